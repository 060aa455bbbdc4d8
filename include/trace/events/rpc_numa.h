/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoint of the NUMA-aware dispatch of multipath RPC clients: an
 * event of the sunrpc trace system, in a file of its own
 * (TRACE_INCLUDE_FILE).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sunrpc

#if !defined(_TRACE_RPC_NUMA_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_RPC_NUMA_H

#include <linux/tracepoint.h>
#include <linux/sunrpc/clnt.h>
#include <linux/sunrpc/sched.h>
#include <linux/sunrpc/xprt.h>

/* A multipath client gave a new request a transport: the request's NUMA
 * node and that of the transport's device (-1: none)
 */
TRACE_EVENT(rpc_path_pick,
	    TP_PROTO(const struct rpc_task *task, const struct rpc_clnt *clnt,
		     const struct rpc_xprt *xprt),
	    TP_ARGS(task, clnt, xprt),
	    TP_STRUCT__entry(__field(unsigned int, task_id)
			     __field(unsigned int, client_id)
			     __field(int, xprt_id)
			     __field(int, node)
			     __field(int, xprt_node)),
	    TP_fast_assign(__entry->task_id = task->tk_pid;
			   __entry->client_id = clnt->cl_clid;
			   __entry->xprt_id = xprt->id;
			   __entry->node = task->tk_numa_node;
			   __entry->xprt_node = READ_ONCE(xprt->health.node);),
	    TP_printk("task:%08x@%08x node=%d xprt=%d xprt_node=%d",
		      __entry->task_id, __entry->client_id, __entry->node,
		      __entry->xprt_id, __entry->xprt_node)
);

#endif /* _TRACE_RPC_NUMA_H */

#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE rpc_numa
#include <trace/define_trace.h>
