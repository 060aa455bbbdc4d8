/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The service-time path policy, as the rest of sunrpc sees it
 */
#ifndef _NET_SUNRPC_XPRT_SERVICETIME_H
#define _NET_SUNRPC_XPRT_SERVICETIME_H

#include <linux/ktime.h>

struct list_head;
struct rpc_xprt;

void rpc_xprt_record_service(struct rpc_xprt *xprt, ktime_t sent,
			     ktime_t rtt);
struct rpc_xprt *rpc_xprt_soonest_done(struct list_head *head,
				       const struct rpc_xprt *cur);

#endif /* _NET_SUNRPC_XPRT_SERVICETIME_H */
