// SPDX-License-Identifier: GPL-2.0
/*
 * NFS multipath mounts: remoteports=dns.
 *
 * The remote endpoints are the addresses, of the mount's family, that the
 * DNS gives for the server's name, through the dns_resolver key type and
 * its upcall (keyutils' key.dns_resolver; "list" has it give them all).
 * The keys are "a:NAME" and "aaaa:NAME", apart from the one-address keys
 * of NFSv4 referrals and other users of the name.  Every NFS_DNS_LOOK_S a
 * look asks again if the answer expired (the key's timeout: the record's
 * TTL where the upcall sets it, else keyutils' default_ttl, held within
 * NFS_DNS_LOOK_S and NFS_DNS_MAX_S; past the cache when the key outlives
 * that), or, past the cache, if one of the client's paths was lost since
 * the last look.  The paths follow the answer as on a remount, with the
 * placement turned so that the main transport keeps its pair: its
 * address stays in the set while the client lives.  An answer without an
 * address, or a failed upcall, keeps the current endpoints, and says so
 * once; so does an answer that cannot be followed, which is asked for
 * again at the next look.
 */

#include <linux/time64.h>
#include <linux/dns_resolver.h>
#include <net/ipv6.h>
#include <linux/fs_context.h>
#include <linux/nfs_fs.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/sunrpc/addr.h>
#include <linux/sunrpc/clnt.h>
#include <linux/workqueue.h>

#include "internal.h"
#include "multipath.h"

#define NFSDBG_FACILITY		NFSDBG_MOUNT

/* How often a look comes, and how long an answer is used at most */
#define NFS_DNS_LOOK_S		5
#define NFS_DNS_MAX_S		600

struct nfs_endpoints_dns {
	struct delayed_work	work;
	struct nfs_client	*clp;
	time64_t		expires; /* the answer in use (real time) */
	bool			stale;	/* its key lives longer, or for good */
	unsigned int		online;	/* paths online at the last look */
	bool			failing; /* said so, until an answer comes */
};

/* The addresses of an answer, of one family, each once */
struct nfs_dns_answer {
	unsigned int		n;
	struct sockaddr_storage	addr[RPC_ENDPOINTS_MAX];
};

static bool nfs_dns_answer_has(const struct nfs_dns_answer *a,
			       const struct sockaddr *sap)
{
	unsigned int i;

	for (i = 0; i < a->n; i++)
		if (rpc_cmp_addr((const struct sockaddr *)&a->addr[i], sap))
			return true;
	return false;
}

/* An address without a scope that a transport can reach */
static bool nfs_dns_usable(const struct sockaddr *sap)
{
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)sap;

	return sap->sa_family != AF_INET6 ||
	       !(ipv6_addr_type(&sin6->sin6_addr) & IPV6_ADDR_LINKLOCAL);
}

static void nfs_dns_answer_add(struct nfs_dns_answer *a,
			       const struct sockaddr *sap, sa_family_t family)
{
	if (sap->sa_family != family || a->n == RPC_ENDPOINTS_MAX ||
	    nfs_dns_answer_has(a, sap))
		return;
	if (!nfs_dns_usable(sap)) {
		pr_notice_ratelimited("NFS: remoteports=dns: %pISc has no scope: left out\n",
				      sap);
		return;
	}
	rpc_copy_addr((struct sockaddr *)&a->addr[a->n++], sap);
}

/* "ADDR,ADDR,..." of the upcall into @a */
static void nfs_dns_answer_parse(struct net *net, char *text,
				 sa_family_t family, struct nfs_dns_answer *a)
{
	struct sockaddr_storage ss;
	char *word;

	while ((word = strsep(&text, ",")) != NULL) {
		if (rpc_pton(net, word, strlen(word), (struct sockaddr *)&ss,
			     sizeof(ss)))
			nfs_dns_answer_add(a, (struct sockaddr *)&ss, family);
	}
}

/* @a as an endpoint set, through the parser that mount options take */
static int nfs_dns_answer_set(const struct nfs_dns_answer *a,
			      struct rpc_endpoint_set **setp,
			      struct rpc_endpoint_error *err)
{
	unsigned int i;
	size_t len = 0;
	char *text;
	int ret;

	text = kmalloc(RPC_ENDPOINTS_FORMAT_MAX, GFP_KERNEL);
	if (!text)
		return -ENOMEM;
	for (i = 0; i < a->n; i++)
		len += scnprintf(text + len, RPC_ENDPOINTS_FORMAT_MAX - len,
				 "%s%pISc", i ? "~" : "", &a->addr[i]);
	ret = rpc_endpoints_parse(text, 0, setp, err);
	kfree(text);
	return ret;
}

/**
 * nfs_endpoints_dns_lookup - the server endpoints a name has in the DNS
 * @net: network namespace of the mount
 * @name: the server's name
 * @family: the mount's address family
 * @keep: an address the set keeps, answered or not, or NULL
 * @fresh: ask the upcall again even if the cached answer is still good
 * @setp: the set, on success
 * @expiry: when the answer expires (seconds, real time), or 0
 * @err: the reason and the item, for -EINVAL
 *
 * Return: 0; -ENODATA for an answer without an address of @family;
 * -EOPNOTSUPP without the dns_resolver key type; -ENOMEM; the error of
 * the lookup (-EINVAL for a name it refuses); or -EINVAL with @err
 * filled in.
 */
static int nfs_endpoints_dns_lookup(struct net *net, const char *name,
				    sa_family_t family,
				    const struct sockaddr *keep, bool fresh,
				    struct rpc_endpoint_set **setp,
				    time64_t *expiry,
				    struct rpc_endpoint_error *err)
{
	const char *type = family == AF_INET6 ? "aaaa" : "a";
	const char *opts = family == AF_INET6 ? "list ipv6" : "list ipv4";
	struct nfs_dns_answer *a;
	char *text = NULL;
	int ret;

	*expiry = 0;
	if (!IS_REACHABLE(CONFIG_DNS_RESOLVER))
		return -EOPNOTSUPP;
	/* dns_query() drops the cached answer after it used it */
	if (fresh)
		dns_query(net, type, name, strlen(name), opts, NULL, NULL, true);
	ret = dns_query(net, type, name, strlen(name), opts, &text, expiry,
			false);
	if (ret < 0)
		return ret;
	a = kvzalloc(sizeof(*a), GFP_KERNEL);
	if (!a) {
		kfree(text);
		return -ENOMEM;
	}
	if (keep)
		nfs_dns_answer_add(a, keep, family);
	nfs_dns_answer_parse(net, text, family, a);
	kfree(text);
	ret = -ENODATA;
	if (a->n > !!keep)
		ret = nfs_dns_answer_set(a, setp, err);
	kvfree(a);
	return ret;
}

/**
 * nfs_endpoints_dns_mount - look up the remote endpoints of remoteports=dns
 * @fc: mount context, with the server's name and address
 *
 * Return: 0, or -EINVAL with a message that names the server.
 */
int nfs_endpoints_dns_mount(struct fs_context *fc)
{
	struct nfs_fs_context *ctx = nfs_fc2context(fc);
	struct rpc_endpoint_config *cfg = &ctx->endpoints;
	const char *name = ctx->nfs_server.hostname;
	struct rpc_endpoint_error err = { };
	time64_t expiry;
	int ret;

	if (!(cfg->flags & NFS_ENDPOINTS_DNS) || cfg->remote)
		return 0;
	/* nfs_validate_endpoints() refuses the other versions and transports */
	if (ctx->version != 3)
		return 0;
	if (!name)
		return nfs_endpoints_invalf(fc, "remoteports=dns: no server name");
	ret = nfs_endpoints_dns_lookup(fc->net_ns, name,
				       ctx->nfs_server.address.sa_family, NULL,
				       false, &cfg->remote, &expiry, &err);
	if (ret == -EINVAL && err.reason)
		return nfs_endpoints_error(fc, "remoteports=dns", &err);
	if (ret == -ENOMEM || ret == -EINTR)
		return ret;
	if (ret)
		return nfs_endpoints_invalf(fc,
			"remoteports=dns: no address of '%s' (%d)", name, ret);
	return 0;
}

/* How many of the client's transports are online */
static int nfs_dns_count_online(struct rpc_clnt *clnt, struct rpc_xprt *xprt,
				void *data)
{
	(*(unsigned int *)data)++;
	return 0;
}

static unsigned int nfs_dns_online(struct nfs_client *clp)
{
	unsigned int online = 0;

	rpc_clnt_iterate_for_each_xprt(clp->cl_rpcclient, nfs_dns_count_online,
				       &online);
	return online;
}

/* Was a path lost since the last look */
static bool nfs_dns_path_lost(struct nfs_endpoints_dns *dns)
{
	unsigned int online = nfs_dns_online(dns->clp);
	bool lost = online < dns->online;

	dns->online = online;
	return lost;
}

/* The pair of the main transport, which placement must keep */
static void nfs_dns_main_pair(struct nfs_client *clp,
			      struct sockaddr_storage *dst,
			      struct sockaddr_storage *src)
{
	struct rpc_xprt *xprt;

	rcu_read_lock();
	xprt = rcu_dereference(clp->cl_rpcclient->cl_xprt);
	memcpy(dst, &xprt->addr, sizeof(*dst));
	memcpy(src, &xprt->bindaddr, sizeof(*src));
	rcu_read_unlock();
}

/* Does transport @i of @cfg, at @offset, go from @src to @dst */
static bool nfs_dns_places(const struct rpc_endpoint_config *cfg,
			   unsigned int i, unsigned int offset,
			   const struct sockaddr *dst, const struct sockaddr *src)
{
	unsigned int nr_local = cfg->local ? cfg->local->count : 0;
	unsigned int r, l;

	rpc_endpoints_place(i, cfg->remote->count, nr_local, offset, &r, &l);
	if (!rpc_cmp_addr(&cfg->remote->ep[r].sa, dst))
		return false;
	return !cfg->local || rpc_cmp_addr(&cfg->local->ep[l].sa, src);
}

/* The offset nearest the derived one at which one of the @n transports
 * of @cfg has the main transport's pair: the main transport stays
 */
static void nfs_dns_anchor(struct rpc_endpoint_config *cfg, unsigned int n,
			   const struct sockaddr *dst,
			   const struct sockaddr *src)
{
	unsigned int k, i, offset, nr = cfg->remote->count;

	for (k = 0; k < nr; k++) {
		offset = (cfg->offset + k) % nr;
		for (i = 0; i < n; i++) {
			if (nfs_dns_places(cfg, i, offset, dst, src)) {
				cfg->offset = offset;
				return;
			}
		}
	}
}

/* Bring the client's paths to the answer @set, which this takes; the
 * main transport goes from @src to @dst.  Return: 0, or -EAGAIN to try
 * again at the next look.
 */
static int nfs_dns_follow(struct nfs_client *clp, struct rpc_endpoint_set *set,
			  const struct sockaddr *dst, const struct sockaddr *src)
{
	struct rpc_endpoint_error err = { };
	struct rpc_endpoint_config cfg;
	unsigned int n;
	int ret = -EAGAIN;

	if (!nfs_endpoints_trylock(clp)) {
		rpc_endpoints_free(set);	/* a remount is at work */
		return ret;
	}
	/* A remount that gave addresses ended the following meanwhile */
	if (!(clp->cl_endpoints.flags & NFS_ENDPOINTS_DNS) ||
	    rpc_endpoints_equal(set, clp->cl_endpoints.remote)) {
		rpc_endpoints_free(set);
		ret = 0;
		goto out;
	}
	if (nfs_endpoints_copy(&cfg, &clp->cl_endpoints, GFP_KERNEL)) {
		rpc_endpoints_free(set);
		goto out;
	}
	rpc_endpoints_free(cfg.remote);
	cfg.remote = set;
	nfs_endpoints_set_offset(&cfg, false);
	n = cfg.flags & NFS_ENDPOINTS_NCONNECT_AUTO ?
		nfs_endpoints_auto_nconnect(&cfg) : clp->cl_nconnect;
	nfs_dns_anchor(&cfg, n, dst, src);
	ret = rpc_path_monitor_reconfigure(clp->cl_path_monitor, &cfg, n, &err);
	if (!ret) {
		nfs_endpoints_commit(clp, &cfg, n);
		pr_info("NFS: %s: remoteports=dns: %u addresses, %u transports\n",
			clp->cl_hostname, set->count, n);
	} else {
		pr_warn_ratelimited("NFS: %s: remoteports=dns: the paths did not follow the answer: %s (%d)\n",
				    clp->cl_hostname,
				    err.reason ?: "error", ret);
		ret = -EAGAIN;
	}
	nfs_endpoints_free(&cfg);
out:
	nfs_endpoints_unlock(clp);
	return ret;
}

/* One look: ask again if the answer expired or a path was lost */
static void nfs_dns_look(struct nfs_endpoints_dns *dns)
{
	struct nfs_client *clp = dns->clp;
	struct rpc_endpoint_error err = { };
	time64_t expiry, now = ktime_get_real_seconds();
	struct sockaddr_storage dst, src;
	struct rpc_endpoint_set *set;
	bool lost = nfs_dns_path_lost(dns);
	int ret;

	if (!lost && now < dns->expires)
		return;
	nfs_dns_main_pair(clp, &dst, &src);
	ret = nfs_endpoints_dns_lookup(clp->cl_net, clp->cl_hostname,
				       dst.ss_family, (struct sockaddr *)&dst,
				       lost || dns->stale, &set, &expiry,
				       &err);
	if (ret) {
		if (!dns->failing)
			pr_warn("NFS: %s: remoteports=dns: no answer (%d); the endpoints stay\n",
				clp->cl_hostname, ret);
		dns->failing = true;
		dns->expires = now;
		return;
	}
	if (dns->failing)
		pr_info("NFS: %s: remoteports=dns: answered again\n",
			clp->cl_hostname);
	dns->failing = false;
	/* A key without a timeout lives for good */
	if (!expiry)
		expiry = TIME64_MAX;
	dns->expires = now + clamp_t(time64_t, expiry - now, NFS_DNS_LOOK_S,
				     NFS_DNS_MAX_S);
	dns->stale = expiry > dns->expires;
	if (nfs_dns_follow(clp, set, (struct sockaddr *)&dst,
			   (struct sockaddr *)&src))
		dns->expires = now;
	dns->online = nfs_dns_online(clp);
}

static void nfs_endpoints_dns_work(struct work_struct *work)
{
	struct nfs_endpoints_dns *dns = container_of(to_delayed_work(work),
						     struct nfs_endpoints_dns,
						     work);

	/* A remount that gave addresses ends the following */
	if (!(READ_ONCE(dns->clp->cl_endpoints.flags) & NFS_ENDPOINTS_DNS))
		return;
	nfs_dns_look(dns);
	queue_delayed_work(system_long_wq, &dns->work, NFS_DNS_LOOK_S * HZ);
}

/**
 * nfs_endpoints_dns_start - follow the server's name, for remoteports=dns
 * @clp: a client with its RPC client and path monitor
 */
void nfs_endpoints_dns_start(struct nfs_client *clp)
{
	struct nfs_endpoints_dns *dns;

	if (!(clp->cl_endpoints.flags & NFS_ENDPOINTS_DNS) ||
	    !clp->cl_path_monitor)
		return;
	dns = kzalloc(sizeof(*dns), GFP_KERNEL);
	if (!dns) {
		pr_warn("NFS: %s: remoteports=dns: the endpoints stay as they are\n",
			clp->cl_hostname);
		return;
	}
	INIT_DELAYED_WORK(&dns->work, nfs_endpoints_dns_work);
	dns->clp = clp;
	dns->online = clp->cl_nconnect;
	dns->expires = ktime_get_real_seconds() + NFS_DNS_LOOK_S;
	clp->cl_endpoints_dns = dns;
	queue_delayed_work(system_long_wq, &dns->work, NFS_DNS_LOOK_S * HZ);
}

/**
 * nfs_endpoints_dns_stop - stop following the server's name
 * @clp: a client that goes away, before its path monitor stops
 */
void nfs_endpoints_dns_stop(struct nfs_client *clp)
{
	struct nfs_endpoints_dns *dns = clp->cl_endpoints_dns;

	if (!dns)
		return;
	cancel_delayed_work_sync(&dns->work);
	clp->cl_endpoints_dns = NULL;
	kfree(dns);
}
