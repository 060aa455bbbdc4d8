/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host shim for <linux/sunrpc/xprt_health.h>: the fields of a path's
 * health that the NUMA policies read and count, nothing else.
 */
#ifndef SHIM_SUNRPC_XPRT_HEALTH_H
#define SHIM_SUNRPC_XPRT_HEALTH_H
#include "../../shim.h"

struct rpc_xprt_health {
	int		node;
	atomic_long_t	near;
	atomic_long_t	far;
};
#endif
