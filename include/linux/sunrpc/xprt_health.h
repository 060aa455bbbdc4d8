/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Path health of the transports of a multipath RPC client.
 *
 * Every transport carries one: transports of ordinary clients stay up and
 * never count anything.
 */
#ifndef _LINUX_SUNRPC_XPRT_HEALTH_H
#define _LINUX_SUNRPC_XPRT_HEALTH_H

#include <linux/atomic.h>

struct rpc_clnt;
struct rpc_endpoint_config;
struct rpc_endpoint_error;
struct rpc_path_monitor;
struct rpc_task;
struct rpc_xprt;
struct seq_file;

/*
 * RPC_PATH_UP:      carries requests
 * RPC_PATH_DOWN:    declared dead; offline unless it is the client's last
 *                   path, and probed again after a back-off
 * RPC_PATH_PROBING: a NULL call is finding out whether it answers
 */
enum rpc_path_state {
	RPC_PATH_UP,
	RPC_PATH_DOWN,
	RPC_PATH_PROBING,
};

/* The values of a path's health, one per sysfs file */
enum rpc_path_field {
	RPC_PATH_FIELD_STATE,		/* path_state */
	RPC_PATH_FIELD_DOWNS,		/* path_downs */
	RPC_PATH_FIELD_MOVED,		/* path_moved */
	RPC_PATH_FIELD_BYTES,		/* path_bytes */
};

struct rpc_xprt_health {
	unsigned int	state;		/* enum rpc_path_state */
	atomic_long_t	downs;		/* times it went from up to down */
	atomic_long_t	moved;		/* requests that left it for another */
	atomic_t	local_gone;	/* times its local device went away */
	atomic64_t	sent;		/* bytes of the calls sent */
	atomic64_t	received;	/* bytes of the replies received */
	unsigned int	resend_ms;	/* a lost packet may stall it so long */
	int		node;		/* NUMA node of its local device */
	atomic_long_t	near;		/* requests sent from their own node */
	atomic_long_t	far;		/* requests that crossed to it */
};

const char *rpc_path_state_name(unsigned int state);
void rpc_xprt_health_moved(const struct rpc_task *task, struct rpc_xprt *xprt);
void rpc_xprt_health_kept(const struct rpc_task *task, struct rpc_xprt *xprt);
void rpc_xprt_health_bytes(struct rpc_xprt *xprt, unsigned int sent,
			   unsigned int received);
ssize_t rpc_xprt_health_show(struct rpc_xprt *xprt, enum rpc_path_field field,
			     char *buf);

int rpc_path_monitor_start(struct rpc_clnt *clnt, unsigned int max,
			   struct rpc_path_monitor **monp);
void rpc_path_monitor_stop(struct rpc_path_monitor *mon);
int rpc_path_monitor_reconfigure(struct rpc_path_monitor *mon,
				 const struct rpc_endpoint_config *cfg,
				 unsigned int n, struct rpc_endpoint_error *err);
void rpc_xprt_local_gone(struct rpc_xprt *xprt);
void rpc_xprt_local_added(void);
void rpc_clnt_show_endpoints(struct seq_file *seq, struct rpc_clnt *clnt);

#endif /* _LINUX_SUNRPC_XPRT_HEALTH_H */
