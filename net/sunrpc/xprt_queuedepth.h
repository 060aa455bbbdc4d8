/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The queue-depth path policy, as the rest of sunrpc sees it
 */
#ifndef _NET_SUNRPC_XPRT_QUEUEDEPTH_H
#define _NET_SUNRPC_XPRT_QUEUEDEPTH_H

struct list_head;
struct rpc_xprt;

void rpc_xprt_record_rtt(struct rpc_xprt *xprt, unsigned long usecs);
struct rpc_xprt *rpc_xprt_least_queued(struct list_head *head,
				       const struct rpc_xprt *cur);

#endif /* _NET_SUNRPC_XPRT_QUEUEDEPTH_H */
