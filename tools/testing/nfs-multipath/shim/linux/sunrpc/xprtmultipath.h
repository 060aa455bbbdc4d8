/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim for <linux/sunrpc/xprtmultipath.h>: the policy entry points */
#ifndef SHIM_SUNRPC_XPRTMULTIPATH_H
#define SHIM_SUNRPC_XPRTMULTIPATH_H
#include "xprt.h"

struct rpc_xprt *rpc_xprt_least_queued(struct list_head *head,
				       const struct rpc_xprt *cur);
void rpc_xprt_record_rtt(struct rpc_xprt *xprt, unsigned long usecs);
/* net/sunrpc/xprtmultipath.c's, as it is there (policy_test.c) */
bool xprt_is_active(const struct rpc_xprt *xprt);
#endif
