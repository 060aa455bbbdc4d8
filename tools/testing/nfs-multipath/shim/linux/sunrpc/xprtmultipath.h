/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim for <linux/sunrpc/xprtmultipath.h> */
#ifndef SHIM_SUNRPC_XPRTMULTIPATH_H
#define SHIM_SUNRPC_XPRTMULTIPATH_H
#include "xprt.h"

/* net/sunrpc/xprtmultipath.c's, as it is there (policy_test.c) */
bool xprt_is_active(const struct rpc_xprt *xprt);
#endif
