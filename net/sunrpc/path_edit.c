// SPDX-License-Identifier: GPL-2.0
/*
 * Paths added to and deleted from a running multipath RPC client, through
 * sysfs.
 *
 * Writing "DST [SRC]" to the xprt_switch_add_xprt file of a multipath
 * switch adds a transport like the client's others, aimed at endpoint DST
 * on the server's port and bound to local endpoint SRC (an address or an
 * interface); an empty write clones the main transport, as upstream's
 * file does.  The path monitor probes the new path at once, and it
 * carries requests once it answered.  Writing to a path's del_xprt file
 * takes it out of use at once and removes it once no request that may
 * not move holds its connection (rpc_path_retire()).
 */

#include <linux/ctype.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <linux/sunrpc/addr.h>
#include <linux/sunrpc/clnt.h>
#include <linux/sunrpc/clnt_endpoints.h>
#include <linux/sunrpc/xprt.h>
#include <linux/sunrpc/xprt_health.h>
#include <linux/sunrpc/xprtmultipath.h>

#include "sunrpc.h"
#include "path_monitor.h"

/* The words of a write: DST and SRC, each optional */
#define RPC_PATH_ADD_WORDS	2

struct rpc_path_add {
	struct rpc_path_monitor		*mon;
	struct rpc_xprt_switch		*xps;
	struct rpc_xprt			*main;
	struct rpc_endpoint_addrs	addrs;
	struct xprt_create		args;
	struct rpc_xprt			*xprt;	/* the new one, once made */
};

/* The longest part of the user's text that a message quotes */
#define RPC_PATH_QUOTE_MAX	RPC_ENDPOINT_ITEM_MAX

static int rpc_path_edit_fail(const struct rpc_xprt_switch *xps,
			      const char *file, const char *reason,
			      const char *item)
{
	int len = min_t(size_t, strlen(item), RPC_PATH_QUOTE_MAX);

	pr_warn_ratelimited("RPC: switch-%d %s: %s: '%*pE'\n", xps->xps_id,
			    file, reason, len, item);
	return -EINVAL;
}

static int rpc_path_add_fail(struct rpc_path_add *add, const char *reason,
			     const char *item)
{
	return rpc_path_edit_fail(add->xps, "xprt_switch_add_xprt", reason,
				  item);
}

/* The one endpoint of a parsed @set, of the server's family, into @dst */
static int rpc_path_add_take(struct rpc_path_add *add,
			     const struct rpc_endpoint_set *set,
			     const char *word, struct sockaddr_storage *dst)
{
	if (set->count != 1)
		return rpc_path_add_fail(add, "one endpoint at a time", word);
	if (set->family != add->main->addr.ss_family)
		return rpc_path_add_fail(add,
					 "address family differs from the server's",
					 word);
	memcpy(dst, &set->ep[0].sa, sizeof(set->ep[0].sin6));
	return 0;
}

/* One endpoint of @word into @dst: a remote address, or a local address
 * or interface that this host has
 */
static int rpc_path_add_endpoint_word(struct rpc_path_add *add,
				      const char *word, bool local,
				      struct sockaddr_storage *dst)
{
	struct rpc_endpoint_error err = { };
	struct rpc_endpoint_set *set;
	int ret;

	ret = rpc_endpoints_parse(word, local ? RPC_ENDPOINTS_IFNAMES : 0,
				  &set, &err);
	if (!ret && local)
		ret = rpc_endpoints_resolve_local(add->main->xprt_net, set,
						  add->main->addr.ss_family,
						  &err);
	if (ret == -EINVAL)
		ret = rpc_path_add_fail(add, err.reason, err.item);
	else if (!ret)
		ret = rpc_path_add_take(add, set, word, dst);
	rpc_endpoints_free(set);
	return ret;
}

/* The main transport's destination and, if it has one, its local endpoint */
static void rpc_path_add_clone(struct rpc_path_add *add)
{
	memcpy(&add->addrs.dst, &add->main->addr, sizeof(add->addrs.dst));
	if (add->main->bindaddr.ss_family != AF_UNSPEC) {
		memcpy(&add->addrs.src, &add->main->bindaddr,
		       sizeof(add->addrs.src));
		add->args.srcaddr = (struct sockaddr *)&add->addrs.src;
	}
}

/* "DST [SRC]" into the creation arguments; an empty @buf clones main */
static int rpc_path_add_parse(struct rpc_path_add *add, char *buf)
{
	char *words[RPC_PATH_ADD_WORDS + 1] = { };
	unsigned int n = 0;
	char *word;
	int ret;

	while ((word = strsep(&buf, " \t\n")) != NULL) {
		if (!*word)
			continue;
		if (n == RPC_PATH_ADD_WORDS)
			return rpc_path_add_fail(add, "more than DST SRC",
						 word);
		words[n++] = word;
	}
	if (!n) {
		rpc_path_add_clone(add);
		return 0;
	}
	ret = rpc_path_add_endpoint_word(add, words[0], false,
					 &add->addrs.dst);
	if (ret)
		return ret;
	rpc_set_port((struct sockaddr *)&add->addrs.dst,
		     rpc_get_port((struct sockaddr *)&add->main->addr));
	if (n < 2)
		return 0;
	ret = rpc_path_add_endpoint_word(add, words[1], true, &add->addrs.src);
	if (!ret)
		add->args.srcaddr = (struct sockaddr *)&add->addrs.src;
	return ret;
}

/* rpc_clnt_add_xprt()'s setup: keep the new transport for the monitor */
static int rpc_path_add_setup(struct rpc_clnt *clnt,
			      struct rpc_xprt_switch *xps,
			      struct rpc_xprt *xprt, void *data)
{
	struct rpc_path_add *add = data;

	add->xprt = xprt_get(xprt);
	return 0;
}

/* Make the transport, add it to the switch, and to the monitor in slot @p.
 * The monitor takes it offline at once while another path is up, so a
 * request picks it only in between: one that was not sent yet, and that
 * leaves it then.
 */
static int rpc_path_add_xprt(struct rpc_path_add *add, struct rpc_path *p)
{
	struct rpc_path_monitor *mon = add->mon;
	int ret;

	add->args.ident = add->main->xprt_class->ident;
	add->args.net = add->main->xprt_net;
	add->args.dstaddr = (struct sockaddr *)&add->addrs.dst;
	add->args.addrlen = add->addrs.dst.ss_family == AF_INET6 ?
			    sizeof(struct sockaddr_in6) :
			    sizeof(struct sockaddr_in);
	add->args.servername = add->main->servername;
	add->args.flags = XPRT_CREATE_MULTIPATH;
	if (!add->main->idle_timeout)
		add->args.flags |= XPRT_CREATE_NO_IDLE_TIMEOUT;
	ret = rpc_clnt_add_xprt(mon->clnt, &add->args, rpc_path_add_setup,
				add);
	if (ret) {
		pr_warn_ratelimited("RPC: switch-%d xprt_switch_add_xprt: no transport to %pISpc: %d\n",
				    add->xps->xps_id, add->args.dstaddr, ret);
		return ret;
	}
	rpc_path_monitor_join(p, add->xprt);
	p->heard = jiffies;
	rpc_xprt_health_set(p->xprt, RPC_PATH_PROBING, "added");
	rpc_path_drain(p);
	rpc_path_ping(p);
	rpc_path_monitor_kick(mon, 0);
	return 0;
}

/* With the monitor locked and running, so that the client is alive */
static int rpc_path_add_locked(struct rpc_path_add *add, char *words,
			       const char *text)
{
	struct rpc_path *p;
	int ret;

	add->main = rpc_path_main_get(add->mon);
	if (!add->main)
		return -ENODEV;
	ret = rpc_path_add_parse(add, words);
	if (ret)
		return ret;
	p = rpc_path_monitor_slot(add->mon);
	if (!p)
		return rpc_path_add_fail(add, "no room for another path", text);
	return rpc_path_add_xprt(add, p);
}

static void rpc_path_add_free(struct rpc_path_add *add)
{
	xprt_put(add->xprt);
	xprt_put(add->main);
	kfree(add);
}

/**
 * rpc_path_main_get - the transport a multipath client was created with
 * @mon: the client's monitor, running
 *
 * The other paths copy its class, port and settings.
 *
 * Return: the transport, with a reference, or NULL.
 */
struct rpc_xprt *rpc_path_main_get(struct rpc_path_monitor *mon)
{
	struct rpc_xprt *xprt;

	rcu_read_lock();
	xprt = xprt_get(rcu_dereference(mon->clnt->cl_xprt));
	rcu_read_unlock();
	return xprt;
}

/**
 * rpc_path_add_addrs - add a path to given endpoints
 * @mon: the client's monitor, locked and running
 * @xps: the client's switch, held
 * @main: the client's main transport, held
 * @addrs: remote endpoint, with the port, and local one or AF_UNSPEC
 * @pathp: the new path, on success
 *
 * Return: 0, -ENOSPC when @mon has no room, -ENOMEM, or the error of
 * the creation.
 */
int rpc_path_add_addrs(struct rpc_path_monitor *mon,
		       struct rpc_xprt_switch *xps, struct rpc_xprt *main,
		       const struct rpc_endpoint_addrs *addrs,
		       struct rpc_path **pathp)
{
	struct rpc_path_add *add;
	struct rpc_path *p;
	int ret;

	p = rpc_path_monitor_slot(mon);
	if (!p)
		return -ENOSPC;
	add = kzalloc(sizeof(*add), GFP_KERNEL);
	if (!add)
		return -ENOMEM;
	add->mon = mon;
	add->xps = xps;
	add->main = xprt_get(main);
	add->addrs = *addrs;
	if (add->addrs.src.ss_family != AF_UNSPEC)
		add->args.srcaddr = (struct sockaddr *)&add->addrs.src;
	ret = rpc_path_add_xprt(add, p);
	if (!ret)
		*pathp = p;
	rpc_path_add_free(add);
	return ret;
}

/**
 * rpc_path_add_endpoint - add a path to a running multipath client
 * @xps: the client's switch, which the caller need not hold
 * @buf: what was written to its xprt_switch_add_xprt file
 *
 * @xps is used only while its client's monitor runs: the client holds it
 * until then.
 *
 * Return: 0; -EINVAL, with a message that names the bad item, for bad
 * input or a client that has as many paths as it may; -EBUSY while no
 * monitor watches the client's paths; -EINTR; or the error of the
 * creation.
 */
int rpc_path_add_endpoint(struct rpc_xprt_switch *xps, const char *buf)
{
	struct rpc_path_monitor *mon = NULL;
	struct rpc_path_add *add;
	char *text, *words = NULL;
	unsigned int noio;
	int ret = -ENOMEM;

	add = kzalloc(sizeof(*add), GFP_KERNEL);
	text = kstrdup(buf, GFP_KERNEL);
	if (text)
		words = kstrdup(strim(text), GFP_KERNEL);
	if (!add || !words)
		goto out;
	add->xps = xps;
	mon = rpc_path_monitor_find(xps);
	ret = mon ? mutex_lock_killable(&mon->lock) : -EBUSY;
	if (ret)
		goto out;
	add->mon = mon;
	/* As in the monitor's work: writeback may wait for the lock */
	noio = memalloc_noio_save();
	ret = mon->stopping ? -EBUSY :
		rpc_path_add_locked(add, words, strim(text));
	memalloc_noio_restore(noio);
	mutex_unlock(&mon->lock);
out:
	if (add)
		rpc_path_add_free(add);
	if (mon)
		rpc_path_monitor_put(mon);
	kfree(words);
	kfree(text);
	return ret;
}

/**
 * rpc_path_delete - take a path out of use, and away
 * @p: a path of a locked, running monitor, not being deleted
 *
 * @p goes offline now, unless it is the last path that carries requests,
 * and away once rpc_path_retire() says so.
 */
void rpc_path_delete(struct rpc_path *p)
{
	p->deleting = true;
	p->fenced = false;
	rpc_path_ping_cancel(p);
	rpc_xprt_health_set(p->xprt, RPC_PATH_DOWN, "deleted");
	rpc_path_retire(p);
	rpc_path_monitor_kick(p->mon, 0);
}

/* With the monitor locked and running.  A path that carries requests
 * goes only while another one does too.
 */
static int rpc_path_del_locked(struct rpc_path_monitor *mon,
			       const struct rpc_xprt_switch *xps,
			       struct rpc_xprt *xprt)
{
	struct rpc_path *p = rpc_path_of(mon, xprt);

	if (!p)
		return -ENOENT;
	if (p->deleting)
		return 0;
	if (rpc_path_online(p) && !rpc_path_another_online(mon, p))
		return rpc_path_edit_fail(xps, "del_xprt",
					  "no other path carries requests",
					  xprt->address_strings[RPC_DISPLAY_ADDR]);
	rpc_path_delete(p);
	return 0;
}

/**
 * rpc_path_del_xprt - delete a path of a running multipath client
 * @xps: the client's switch, which the caller need not hold
 * @xprt: the path's transport
 *
 * The path goes offline now, and away once its connection is broken.
 *
 * Return: 0; -EINVAL, with a message, for the main transport or the
 * last path that carries requests; -EBUSY while no monitor watches the
 * client's paths; -ENOENT for a transport that the monitor no longer
 * watches; or -EINTR.
 */
int rpc_path_del_xprt(struct rpc_xprt_switch *xps, struct rpc_xprt *xprt)
{
	struct rpc_path_monitor *mon;
	int ret;

	if (xprt->main)
		return rpc_path_edit_fail(xps, "del_xprt",
					  "the main transport stays",
					  xprt->address_strings[RPC_DISPLAY_ADDR]);
	mon = rpc_path_monitor_find(xps);
	if (!mon)
		return -EBUSY;
	ret = mutex_lock_killable(&mon->lock);
	if (!ret) {
		ret = mon->stopping ? -EBUSY : rpc_path_del_locked(mon, xps, xprt);
		mutex_unlock(&mon->lock);
	}
	rpc_path_monitor_put(mon);
	return ret;
}
