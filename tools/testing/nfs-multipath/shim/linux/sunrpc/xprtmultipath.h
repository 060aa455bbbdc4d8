/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim for <linux/sunrpc/xprtmultipath.h> */
#ifndef SHIM_SUNRPC_XPRTMULTIPATH_H
#define SHIM_SUNRPC_XPRTMULTIPATH_H
#include "xprt.h"

/* What net/sunrpc/xprtmultipath.c's xprt_is_active() tests */
static inline bool xprt_is_active(const struct rpc_xprt *xprt)
{
	return kref_read(&xprt->kref) != 0 &&
	       !test_bit(XPRT_OFFLINE, &xprt->state);
}
#endif
