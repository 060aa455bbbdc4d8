/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The NUMA preference of the path policies, as the rest of sunrpc sees it
 */
#ifndef _NET_SUNRPC_XPRT_NUMA_H
#define _NET_SUNRPC_XPRT_NUMA_H

struct list_head;
struct rpc_xprt;

struct rpc_xprt *rpc_xprt_pick_near(struct list_head *head,
				    struct rpc_xprt **cursors, int node,
				    bool least_queued);
void rpc_xprt_count_node(struct rpc_xprt *xprt, int node);

#endif /* _NET_SUNRPC_XPRT_NUMA_H */
