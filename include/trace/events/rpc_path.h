/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints for the path health of multipath RPC clients: events of the
 * sunrpc trace system, in a file of their own (TRACE_INCLUDE_FILE).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sunrpc

#if !defined(_TRACE_RPC_PATH_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_RPC_PATH_H

#include <linux/tracepoint.h>
#include <linux/sunrpc/clnt.h>
#include <linux/sunrpc/sched.h>
#include <linux/sunrpc/xprt.h>
#include <linux/sunrpc/xprt_health.h>

TRACE_DEFINE_ENUM(RPC_PATH_UP);
TRACE_DEFINE_ENUM(RPC_PATH_DOWN);
TRACE_DEFINE_ENUM(RPC_PATH_PROBING);

#define show_rpc_path_state(state)					\
	__print_symbolic(state,						\
		{ RPC_PATH_UP, "up" },					\
		{ RPC_PATH_DOWN, "down" },				\
		{ RPC_PATH_PROBING, "probing" })

TRACE_EVENT(rpc_path_state,
	    TP_PROTO(const struct rpc_xprt *xprt, unsigned int old,
		     unsigned int new, const char *why),
	    TP_ARGS(xprt, old, new, why),
	    TP_STRUCT__entry(__field(int, xprt_id)
			     __field(unsigned int, old)
			     __field(unsigned int, new)
			     __string(netid,
				      xprt->address_strings[RPC_DISPLAY_NETID])
			     __string(addr,
				      xprt->address_strings[RPC_DISPLAY_ADDR])
			     __string(why, why)),
	    TP_fast_assign(__entry->xprt_id = xprt->id;
			   __entry->old = old;
			   __entry->new = new;
			   __assign_str(netid);
			   __assign_str(addr);
			   __assign_str(why);),
	    TP_printk("xprt=%d %s %s %s -> %s (%s)",
		      __entry->xprt_id, __get_str(netid), __get_str(addr),
		      show_rpc_path_state(__entry->old),
		      show_rpc_path_state(__entry->new), __get_str(why))
);

/* A request of a path that went offline moves; or it stays (its own print) */
DECLARE_EVENT_CLASS(rpc_path_task_class,
		    TP_PROTO(const struct rpc_task *task, const struct rpc_xprt *xprt),
		    TP_ARGS(task, xprt),
		    TP_STRUCT__entry(__field(unsigned int, task_id)
				     __field(unsigned int, client_id)
				     __field(int, xprt_id)
				     __field(int, ntrans)
				     __string(addr,
					      xprt->address_strings[RPC_DISPLAY_ADDR])
				     __string(proc, rpc_proc_name(task))),
		    TP_fast_assign(__entry->task_id = task->tk_pid;
				   __entry->client_id = task->tk_client ?
							task->tk_client->cl_clid : -1;
				   __entry->xprt_id = xprt->id;
				   __entry->ntrans = task->tk_rqstp ?
						     task->tk_rqstp->rq_ntrans : 0;
				   __assign_str(addr);
				   __assign_str(proc);),
		    TP_printk("task:%08x@%08x %s from xprt=%d %s%s",
			      __entry->task_id, __entry->client_id, __get_str(proc),
			      __entry->xprt_id, __get_str(addr),
			      __entry->ntrans ? " after it was sent" : "")
);

DEFINE_EVENT(rpc_path_task_class, rpc_path_move,
	     TP_PROTO(const struct rpc_task *task, const struct rpc_xprt *xprt),
	     TP_ARGS(task, xprt));

DEFINE_EVENT_PRINT(rpc_path_task_class, rpc_path_keep,
		   TP_PROTO(const struct rpc_task *task, const struct rpc_xprt *xprt),
		   TP_ARGS(task, xprt),
		   TP_printk("task:%08x@%08x %s stays on xprt=%d %s: sent %d times",
			     __entry->task_id, __entry->client_id, __get_str(proc),
			     __entry->xprt_id, __get_str(addr), __entry->ntrans)
);

#endif /* _TRACE_RPC_PATH_H */

#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE rpc_path
#include <trace/define_trace.h>
