// SPDX-License-Identifier: GPL-2.0
/*
 * The "endpoint:" lines of a multipath RPC client, one per transport, for
 * the mountstats of NFS.
 */

#include <linux/export.h>
#include <linux/seq_file.h>

#include <linux/sunrpc/clnt.h>
#include <linux/sunrpc/xprt.h>
#include <linux/sunrpc/xprt_health.h>
#include <linux/sunrpc/xprtmultipath.h>

#include "sunrpc.h"

static const char *rpc_xprt_state_name(struct rpc_xprt *xprt)
{
	if (test_bit(XPRT_OFFLINE, &xprt->state))
		return "offline";
	if (xprt_connected(xprt))
		return "connected";
	if (xprt_connecting(xprt))
		return "connecting";
	return "idle";
}

static int rpc_show_one_endpoint(struct rpc_clnt *clnt, struct rpc_xprt *xprt,
				 void *data)
{
	struct seq_file *seq = data;
	char src[INET6_ADDRSTRLEN + 8] = "*";

	if (xprt_connected(xprt) && xprt->ops->get_srcaddr &&
	    xprt->ops->get_srcaddr(xprt, src, sizeof(src)) < 0)
		strscpy(src, "*", sizeof(src));
	seq_printf(seq,
		   "\tendpoint:\t%d %s %s -> %s port %s %s path %s downs %ld moved %ld node %d near %ld far %ld\n",
		   xprt->id, xprt->address_strings[RPC_DISPLAY_NETID], src,
		   xprt->address_strings[RPC_DISPLAY_ADDR],
		   xprt->address_strings[RPC_DISPLAY_PORT],
		   rpc_xprt_state_name(xprt),
		   rpc_path_state_name(READ_ONCE(xprt->health.state)),
		   atomic_long_read(&xprt->health.downs),
		   atomic_long_read(&xprt->health.moved),
		   READ_ONCE(xprt->health.node),
		   atomic_long_read(&xprt->health.near),
		   atomic_long_read(&xprt->health.far));
	return 0;
}

static bool rpc_clnt_is_multipath(struct rpc_clnt *clnt)
{
	struct rpc_xprt *xprt;
	bool ret;

	rcu_read_lock();
	xprt = rcu_dereference(clnt->cl_xprt);
	ret = xprt && xprt->multipath;
	rcu_read_unlock();
	return ret;
}

/* The iterator of rpc_clnt_iterate_for_each_xprt() skips offline ones */
static void rpc_show_offline_endpoints(struct rpc_clnt *clnt,
				       struct seq_file *seq)
{
	struct rpc_xprt_switch *xps = rpc_clnt_xprt_switch_get(clnt);
	struct rpc_xprt_iter xpi;
	struct rpc_xprt *xprt;

	if (!xps)
		return;
	xprt_iter_init_listoffline(&xpi, xps);
	xprt_switch_put(xps);
	while ((xprt = xprt_iter_get_next(&xpi))) {
		rpc_show_one_endpoint(clnt, xprt, seq);
		xprt_put(xprt);
	}
	xprt_iter_destroy(&xpi);
}

/**
 * rpc_clnt_show_endpoints - show the local -> remote pair of each transport
 * @seq: output, e.g. /proc/self/mountstats
 * @clnt: client whose transports to show
 *
 * For a multipath client, one "endpoint:" line per transport, the active
 * ones first: the transport's id (as in sysfs), netid, source address (or
 * "*" while not connected), remote address, port, transport state, and the
 * path health: state, how often the path went down, and how many requests
 * moved away from it; then the NUMA node of its device (-1: none, or not
 * yet connected), and how many calls it sent that came from that node
 * (near) and from another node (far).
 * Other clients show nothing.
 */
void rpc_clnt_show_endpoints(struct seq_file *seq, struct rpc_clnt *clnt)
{
	if (!rpc_clnt_is_multipath(clnt))
		return;
	rpc_clnt_iterate_for_each_xprt(clnt, rpc_show_one_endpoint, seq);
	rpc_show_offline_endpoints(clnt, seq);
}
EXPORT_SYMBOL_GPL(rpc_clnt_show_endpoints);
