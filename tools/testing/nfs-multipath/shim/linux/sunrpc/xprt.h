/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host shim for <linux/sunrpc/xprt.h>: the fields of struct rpc_xprt that
 * the path policies read, nothing else.
 */
#ifndef SHIM_SUNRPC_XPRT_H
#define SHIM_SUNRPC_XPRT_H
#include "../../shim.h"
#include "xprt_health.h"
#include "../ktime.h"

#define XPRT_OFFLINE	(7)

struct rpc_xprt {
	struct kref		kref;
	unsigned long		state;
	atomic_long_t		queuelen;
	unsigned long		rtt_avg;
	int			queue_lock;	/* only its address is taken */
	ktime_t			service_last;
	unsigned long		service_stamp;
	unsigned int		service_ns;
	struct list_head	xprt_switch;
	struct rpc_xprt_health	health;
};
#endif
