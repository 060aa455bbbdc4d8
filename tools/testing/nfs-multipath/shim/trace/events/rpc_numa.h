/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim for <trace/events/rpc_numa.h>: no tracepoints on the host */
