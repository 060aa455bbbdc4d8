// SPDX-License-Identifier: GPL-2.0
/*
 * NFS multipath mounts: the remoteports= and localports= options.
 *
 * remoteports= names the server endpoints that carry the data transports
 * of a mount; the mount address stays the server's identity.  localports=
 * names local endpoints, by address or interface name, that the transports
 * are bound to.  The nconnect transports are placed over both sets by
 * rpc_endpoints_place(), and pathpolicy= says how they share requests.
 */

#include <linux/fs_context.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/nfs_fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sunrpc/xprt.h>
#include <linux/sunrpc/xprtmultipath.h>

#include "internal.h"
#include "multipath.h"
#include "netns.h"

#define NFSDBG_FACILITY		NFSDBG_MOUNT

/* The path policy of a multipath mount without pathpolicy= */
#define NFS_PATHPOLICY_DEFAULT	RPC_XPRT_POLICY_ROUND_ROBIN

static void nfs_endpoints_log(struct fs_context *fc, struct va_format *vaf)
{
	/* errorf() reaches dmesg only when there is no fs_context log */
	if (fc->log.log)
		pr_err("NFS: %pV\n", vaf);
	errorf(fc, "NFS: %pV", vaf);
}

/**
 * nfs_endpoints_invalf - refuse an endpoint option, with a message
 * @fc: mount context
 * @fmt: the message, after "NFS: "
 *
 * Return: -EINVAL.
 */
int nfs_endpoints_invalf(struct fs_context *fc, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	nfs_endpoints_log(fc, &vaf);
	va_end(args);
	return -EINVAL;
}

/**
 * nfs_endpoints_busyf - refuse a change that others' use forbids now
 * @fc: mount context
 * @fmt: the message, after "NFS: "
 *
 * Return: -EBUSY.
 */
int nfs_endpoints_busyf(struct fs_context *fc, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	nfs_endpoints_log(fc, &vaf);
	va_end(args);
	return -EBUSY;
}

/**
 * nfs_endpoints_error - refuse an endpoint option for the reason in @err
 * @fc: mount context
 * @option: the option, or the step, that failed
 * @err: the reason and the item refused
 *
 * Return: -EINVAL.
 */
int nfs_endpoints_error(struct fs_context *fc, const char *option,
			const struct rpc_endpoint_error *err)
{
	return nfs_endpoints_invalf(fc, "%s: %s: '%s'", option, err->reason,
				    err->item);
}

static const char *nfs_endpoints_option(bool local)
{
	return local ? "localports" : "remoteports";
}

/**
 * nfs_parse_endpoints - parse the value of remoteports= or localports=
 * @fc: mount context
 * @local: localports= rather than remoteports=
 * @value: the option's value
 *
 * A repeated option replaces the earlier one.  Interface names in
 * localports= stay names until nfs_validate_endpoints().  remoteports=dns
 * names the server's addresses in the DNS, looked up before validation.
 *
 * Return: 0, -ENOMEM, or -EINVAL with a message that names the bad item.
 */
int nfs_parse_endpoints(struct fs_context *fc, bool local, const char *value)
{
	struct nfs_fs_context *ctx = nfs_fc2context(fc);
	struct rpc_endpoint_set **setp, *set;
	struct rpc_endpoint_error err = { };
	int ret;

	if (!local && !strcmp(value, "dns")) {
		set = NULL;
		ctx->endpoints.flags |= NFS_ENDPOINTS_DNS;
		goto out;
	}
	ret = rpc_endpoints_parse(value, local ? RPC_ENDPOINTS_IFNAMES : 0,
				  &set, &err);
	if (ret == -ENOMEM)
		return ret;
	if (ret)
		return nfs_endpoints_error(fc, nfs_endpoints_option(local),
					   &err);
	if (!local)
		ctx->endpoints.flags &= ~NFS_ENDPOINTS_DNS;
out:
	setp = local ? &ctx->endpoints.local : &ctx->endpoints.remote;
	rpc_endpoints_free(*setp);
	*setp = set;
	return 0;
}

static unsigned int nfs_endpoints_count(const struct rpc_endpoint_set *set)
{
	return set ? set->count : 0;
}

/**
 * nfs_endpoints_auto_nconnect - the transports of a mount without nconnect=
 * @cfg: its configuration
 *
 * Return: as many as the larger set has endpoints, within the limit.
 */
unsigned int nfs_endpoints_auto_nconnect(const struct rpc_endpoint_config *cfg)
{
	unsigned int want = max(nfs_endpoints_count(cfg->remote),
				nfs_endpoints_count(cfg->local));

	return clamp_t(unsigned int, want, 1, NFS_MAX_MULTIPATH_CONNECTIONS);
}

/**
 * nfs_endpoints_set_offset - where in the remote endpoints the client starts
 * @cfg: the configuration, with its local endpoints resolved
 * @pinned: @cfg->offset is the one remoteports_offset= gave
 *
 * Unless pinned, the offset is derived from the first local endpoint or,
 * without one, from the node name, for the number of remote endpoints.
 * Either way it ends up below that number.
 */
void nfs_endpoints_set_offset(struct rpc_endpoint_config *cfg, bool pinned)
{
	unsigned int nr_remote = nfs_endpoints_count(cfg->remote);

	if (!pinned)
		cfg->offset = rpc_endpoints_client_offset(cfg->local,
							  nr_remote);
	if (cfg->remote)
		cfg->offset %= cfg->remote->count;
}

/**
 * nfs_endpoints_resolve - make the local endpoints of a configuration usable
 * @fc: mount context, for the network namespace and the messages
 * @cfg: the configuration
 * @server_family: the family of the server's address
 *
 * Resolves the interface names of the local endpoints and checks that
 * each address is on this host, in the family of the remote endpoints or,
 * without them, of the server's address.
 *
 * Return: 0, or -EINVAL with a message that names the bad item.
 */
int nfs_endpoints_resolve(struct fs_context *fc,
			  struct rpc_endpoint_config *cfg,
			  sa_family_t server_family)
{
	struct rpc_endpoint_error err = { };
	sa_family_t family;
	int ret;

	if (!cfg->local)
		return 0;
	family = cfg->remote ? cfg->remote->family : server_family;
	ret = rpc_endpoints_resolve_local(fc->net_ns, cfg->local, family, &err);
	if (ret)
		return nfs_endpoints_error(fc, "localports", &err);
	if (cfg->local->family != family) {
		err.reason = "address family differs from the server's";
		snprintf(err.item, sizeof(err.item), "%pISc",
			 &cfg->local->ep[0].sa);
		return nfs_endpoints_error(fc, "localports", &err);
	}
	return 0;
}

/**
 * nfs_endpoints_stock_nconnect - hold a mount without endpoint sets to 16
 * @fc: mount or remount context
 *
 * The parser takes nconnect= up to 64 for multipath mounts; the others
 * refuse more than 16, as the parser of a stock kernel does.
 *
 * Return: 0, or -EINVAL with the stock message.
 */
int nfs_endpoints_stock_nconnect(struct fs_context *fc)
{
	if (nfs_fc2context(fc)->nfs_server.nconnect > NFS_MAX_CONNECTIONS)
		return nfs_invalf(fc, "NFS: Value for '%s' out of range",
				  "nconnect");
	return 0;
}

/**
 * nfs_validate_endpoints - check the endpoint options against the mount
 * @fc: mount context, with the transport protocol settled
 *
 * Resolves localports= in the mount's network namespace, checks version,
 * transport and address families, defaults nconnect to the larger set,
 * and derives the offset into the remote endpoints unless pinned.  A
 * mount without the options keeps the nconnect limit of 16.
 *
 * Return: 0, or -EINVAL with a message that names the bad item.
 */
int nfs_validate_endpoints(struct fs_context *fc)
{
	struct nfs_fs_context *ctx = nfs_fc2context(fc);
	struct rpc_endpoint_config *cfg = &ctx->endpoints;
	int ret;

	if (!rpc_endpoint_config_active(cfg) &&
	    !(cfg->flags & NFS_ENDPOINTS_DNS)) {
		if (ctx->endpoints_policy_set)
			return nfs_endpoints_invalf(fc,
				"pathpolicy= needs remoteports= or localports=");
		return nfs_endpoints_stock_nconnect(fc);
	}
	if (ctx->version != 3)
		return nfs_endpoints_invalf(fc,
			"remoteports= and localports= need vers=3, not vers=%u.%u",
			ctx->version, ctx->minorversion);
	switch (ctx->nfs_server.protocol) {
	case XPRT_TRANSPORT_TCP:
	case XPRT_TRANSPORT_RDMA:
		break;
	default:
		return nfs_endpoints_invalf(fc,
			"remoteports= and localports= need proto=tcp or proto=rdma, not '%s'",
			ctx->nfs_server.protocol == XPRT_TRANSPORT_UDP ?
			"udp" : "other");
	}
	if (cfg->flags & NFS_ENDPOINTS_DNS) {
		if (!cfg->remote)
			return nfs_endpoints_invalf(fc,
				"remoteports=dns: the server's name was not looked up");
		if (ctx->endpoints_offset_set)
			return nfs_endpoints_invalf(fc,
				"remoteports_offset= does not go with remoteports=dns, whose answer changes");
	}

	ret = nfs_endpoints_resolve(fc, cfg, ctx->nfs_server.address.sa_family);
	if (ret)
		return ret;

	if (!ctx->nfs_server.nconnect) {
		ctx->nfs_server.nconnect = nfs_endpoints_auto_nconnect(cfg);
		cfg->flags |= NFS_ENDPOINTS_NCONNECT_AUTO;
	}
	if (!ctx->endpoints_policy_set)
		cfg->policy = NFS_PATHPOLICY_DEFAULT;
	nfs_endpoints_set_offset(cfg, ctx->endpoints_offset_set);
	return 0;
}

/**
 * nfs_endpoints_copy - duplicate the endpoint configuration of a mount
 * @dst: destination, overwritten
 * @src: source, or NULL for an empty configuration
 * @gfp: allocation flags
 *
 * Return: 0 on success, or -ENOMEM with @dst left empty.
 */
int nfs_endpoints_copy(struct rpc_endpoint_config *dst,
		       const struct rpc_endpoint_config *src, gfp_t gfp)
{
	memset(dst, 0, sizeof(*dst));
	if (!src)
		return 0;
	dst->offset = src->offset;
	dst->policy = src->policy;
	dst->flags = src->flags;
	if (src->remote) {
		dst->remote = rpc_endpoints_dup(src->remote, gfp);
		if (!dst->remote)
			return -ENOMEM;
	}
	if (src->local) {
		dst->local = rpc_endpoints_dup(src->local, gfp);
		if (!dst->local) {
			nfs_endpoints_free(dst);
			return -ENOMEM;
		}
	}
	return 0;
}

/**
 * nfs_endpoints_free - release the endpoint sets of a configuration
 * @cfg: configuration to empty
 */
void nfs_endpoints_free(struct rpc_endpoint_config *cfg)
{
	rpc_endpoints_free(cfg->remote);
	rpc_endpoints_free(cfg->local);
	cfg->remote = NULL;
	cfg->local = NULL;
}

/* Equal sets, offset and policy, or no sets on either side */
static bool nfs_endpoints_equal(const struct rpc_endpoint_config *a,
				const struct rpc_endpoint_config *b)
{
	bool active = rpc_endpoint_config_active(a);

	if (active != rpc_endpoint_config_active(b))
		return false;
	if (!active)
		return true;
	return rpc_endpoints_equal(a->remote, b->remote) &&
	       rpc_endpoints_equal(a->local, b->local) &&
	       a->offset == b->offset && a->policy == b->policy &&
	       (a->flags & NFS_ENDPOINTS_DNS) == (b->flags & NFS_ENDPOINTS_DNS);
}

/**
 * nfs_client_endpoints_match - may a mount share this nfs_client
 * @clp: existing client
 * @data: what the new mount asks for
 *
 * Mounts that use endpoint sets share a client only when the sets, the
 * offset, the path policy, nconnect and the reserved port choice are all
 * equal: otherwise their transports differ.  No mount shares a client
 * whose paths a remount changes.  Called under nfs_client_lock, which
 * guards the client's configuration against a remount.
 *
 * Return: true when they may share.
 */
bool nfs_client_endpoints_match(const struct nfs_client *clp,
				const struct nfs_client_initdata *data)
{
	/* Its paths change: what it will be is not settled */
	if (test_bit(NFS_CS_ENDPOINTS_CHANGING, &clp->cl_flags))
		return false;
	if (!nfs_endpoints_equal(&clp->cl_endpoints, data->endpoints))
		return false;
	if (!rpc_endpoint_config_active(data->endpoints))
		return true;
	return clp->cl_nconnect == data->nconnect &&
	       test_bit(NFS_CS_NORESVPORT, &clp->cl_flags) ==
	       test_bit(NFS_CS_NORESVPORT, &data->init_flags);
}

/* The mounts that share @clp, under nfs_client_lock */
static unsigned int nfs_client_mounts(const struct nfs_client *clp)
{
	const struct nfs_server *server;
	unsigned int n = 0;

	list_for_each_entry(server, &clp->cl_superblocks, client_link)
		n++;
	return n;
}

/**
 * nfs_endpoints_lock - become the one that changes a client's paths
 * @clp: a multipath client
 *
 * Until nfs_endpoints_unlock(), no other change starts and no new mount
 * shares @clp; the holder may read the client's configuration without
 * nfs_client_lock.
 *
 * Return: 0, or -EINTR.
 */
int nfs_endpoints_lock(struct nfs_client *clp)
{
	return wait_on_bit_lock(&clp->cl_flags, NFS_CS_ENDPOINTS_CHANGING,
				TASK_KILLABLE) ? -EINTR : 0;
}

/**
 * nfs_endpoints_trylock - nfs_endpoints_lock() unless another holds it
 * @clp: a multipath client
 *
 * Return: true if taken.
 */
bool nfs_endpoints_trylock(struct nfs_client *clp)
{
	return !test_and_set_bit_lock(NFS_CS_ENDPOINTS_CHANGING, &clp->cl_flags);
}

/**
 * nfs_endpoints_unlock - end what nfs_endpoints_lock() began
 * @clp: the client
 */
void nfs_endpoints_unlock(struct nfs_client *clp)
{
	clear_and_wake_up_bit(NFS_CS_ENDPOINTS_CHANGING, &clp->cl_flags);
}

/**
 * nfs_endpoints_alone - does one mount alone use a client
 * @clp: the client
 * @mounts: the mounts that share it, on return
 *
 * A mount holds a reference from its match on, before it is in the
 * client's list of mounts: such a mount counts too.
 *
 * Return: true if no other mount shares @clp, nor is about to.
 */
bool nfs_endpoints_alone(struct nfs_client *clp, unsigned int *mounts)
{
	struct nfs_net *nn = net_generic(clp->cl_net, nfs_net_id);
	bool alone;

	spin_lock(&nn->nfs_client_lock);
	*mounts = nfs_client_mounts(clp);
	alone = refcount_read(&clp->cl_count) == 1;
	spin_unlock(&nn->nfs_client_lock);
	return alone;
}

/**
 * nfs_endpoints_commit - put a new configuration of a client in force
 * @clp: a client locked with nfs_endpoints_lock()
 * @cfg: the configuration its paths were brought to; the old one on return
 * @n: its number of transports
 */
void nfs_endpoints_commit(struct nfs_client *clp,
			  struct rpc_endpoint_config *cfg, unsigned int n)
{
	struct nfs_net *nn = net_generic(clp->cl_net, nfs_net_id);

	spin_lock(&nn->nfs_client_lock);
	swap(clp->cl_endpoints, *cfg);
	WRITE_ONCE(clp->cl_nconnect, n);
	spin_unlock(&nn->nfs_client_lock);
}

/**
 * nfs_endpoints_probe - find the working paths of a new multipath client
 * @clp: the client
 * @clnt: its new RPC client, created without a ping
 *
 * Sets the path policy, then pings every transport at once.  The mount
 * goes on when one endpoint answered; from then on a monitor watches the
 * health of every path: paths that go down are avoided, and rejoin when
 * they answer again.
 *
 * Return: 0, or the error of the first ping when no endpoint answered.
 */
int nfs_endpoints_probe(struct nfs_client *clp, struct rpc_clnt *clnt)
{
	unsigned int paths = max(clp->cl_nconnect, 1U);
	int ret;

	if (!rpc_endpoint_config_active(&clp->cl_endpoints))
		return 0;
	rpc_clnt_set_xprt_policy(clnt, clp->cl_endpoints.policy);
	if (test_bit(NFS_CS_NOPING, &clp->cl_flags))
		return 0;
	/* Room for the paths that sysfs may add, up to nconnect's limit */
	ret = rpc_path_monitor_start(clnt, NFS_MAX_MULTIPATH_CONNECTIONS,
				     &clp->cl_path_monitor);
	if (ret)
		pr_warn("NFS: none of the %u paths to server %s answered (%d)\n",
			paths, clp->cl_hostname, ret);
	return ret;
}

/**
 * nfs_endpoints_stop - stop watching the paths of a client that goes away
 * @clp: the client, before its RPC client is shut down
 */
void nfs_endpoints_stop(struct nfs_client *clp)
{
	rpc_path_monitor_stop(clp->cl_path_monitor);
	clp->cl_path_monitor = NULL;
}

/* The text of the client's configuration, taken under nfs_client_lock
 * against a remount that changes it
 */
struct nfs_endpoints_text {
	char		remote[RPC_ENDPOINTS_FORMAT_MAX];
	char		local[RPC_ENDPOINTS_FORMAT_MAX];
	bool		has_remote;
	unsigned int	offset;
	unsigned int	flags;
};

static void nfs_endpoints_text(const struct nfs_client *clp,
			       struct nfs_endpoints_text *t)
{
	struct nfs_net *nn = net_generic(clp->cl_net, nfs_net_id);
	const struct rpc_endpoint_config *cfg = &clp->cl_endpoints;

	spin_lock(&nn->nfs_client_lock);
	t->has_remote = !!cfg->remote;
	if (cfg->remote)
		rpc_endpoints_format(cfg->remote, t->remote, sizeof(t->remote));
	if (cfg->local)
		rpc_endpoints_format(cfg->local, t->local, sizeof(t->local));
	t->offset = cfg->offset;
	t->flags = cfg->flags;
	spin_unlock(&nn->nfs_client_lock);
}

/**
 * nfs_show_endpoint_options - show the endpoint options of a mount
 * @m: /proc/mounts output
 * @clp: the mount's client
 *
 * Shows remoteports=, localports= (resolved to addresses),
 * remoteports_offset= and pathpolicy= in canonical form: consecutive
 * addresses are folded into ranges, and the policy is the one in force.
 * The text parses back to the same sets.  remoteports=dns stays that,
 * without an offset: the endpoint lines of mountstats show the answer.
 */
void nfs_show_endpoint_options(struct seq_file *m,
			       const struct nfs_client *clp)
{
	struct nfs_endpoints_text *t;

	/* A client is multipath for good: a remount never empties both sets */
	if (!rpc_endpoint_config_active(&clp->cl_endpoints))
		return;
	t = kvzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return;
	nfs_endpoints_text(clp, t);
	if (t->flags & NFS_ENDPOINTS_DNS)
		seq_puts(m, ",remoteports=dns");
	else if (t->remote[0])
		seq_printf(m, ",remoteports=%s", t->remote);
	if (t->local[0])
		seq_printf(m, ",localports=%s", t->local);
	if (t->has_remote && !(t->flags & NFS_ENDPOINTS_DNS))
		seq_printf(m, ",remoteports_offset=%u", t->offset);
	if (!IS_ERR_OR_NULL(clp->cl_rpcclient)) {
		unsigned int policy = rpc_clnt_xprt_policy(clp->cl_rpcclient);

		seq_printf(m, ",pathpolicy=%s", rpc_xprt_policy_names[policy]);
	}
	kvfree(t);
}
