/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host shim for <linux/sunrpc/xprt.h>: the fields of struct rpc_xprt that
 * the path policies read, nothing else.
 */
#ifndef SHIM_SUNRPC_XPRT_H
#define SHIM_SUNRPC_XPRT_H
#include "../../shim.h"
#include "xprt_health.h"

#define XPRT_OFFLINE	(7)

struct rpc_xprt {
	struct kref		kref;
	unsigned long		state;
	atomic_long_t		queuelen;
	unsigned long		rtt_avg;
	struct list_head	xprt_switch;
	struct rpc_xprt_health	health;
};
#endif
