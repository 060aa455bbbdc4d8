// SPDX-License-Identifier: GPL-2.0
/*
 * The path health of a transport of a multipath RPC client: its state
 * and counters, as sysfs, the endpoint lines and the tracepoints show
 * them.  The path monitor writes the state; the RPC client counts the
 * requests that move.
 */

#include <linux/sysfs.h>

#include <linux/sunrpc/clnt.h>
#include <linux/sunrpc/xprt.h>

#include "path_monitor.h"

#define CREATE_TRACE_POINTS
#include <trace/events/rpc_path.h>

static const char * const rpc_path_state_names[] = {
	[RPC_PATH_UP]		= "up",
	[RPC_PATH_DOWN]		= "down",
	[RPC_PATH_PROBING]	= "probing",
};

const char *rpc_path_state_name(unsigned int state)
{
	if (state < ARRAY_SIZE(rpc_path_state_names))
		return rpc_path_state_names[state];
	return "unknown";
}

/* A new state of @xprt, for @why; a path that goes from up to down counts */
void rpc_xprt_health_set(struct rpc_xprt *xprt, unsigned int state,
			 const char *why)
{
	struct rpc_xprt_health *h = &xprt->health;
	unsigned int old = READ_ONCE(h->state);

	if (old == state)
		return;
	trace_rpc_path_state(xprt, old, state, why);
	if (old == RPC_PATH_UP && state == RPC_PATH_DOWN)
		atomic_long_inc(&h->downs);
	WRITE_ONCE(h->state, state);
}

/* Called by the RPC client when a task leaves @xprt, which went offline */
void rpc_xprt_health_moved(const struct rpc_task *task, struct rpc_xprt *xprt)
{
	trace_rpc_path_move(task, xprt);
	atomic_long_inc(&xprt->health.moved);
}

/* ... and when one stays, because it was sent and may not go yet */
void rpc_xprt_health_kept(const struct rpc_task *task, struct rpc_xprt *xprt)
{
	trace_rpc_path_keep(task, xprt);
}

/**
 * rpc_xprt_health_bytes - count what a path of a multipath client carried
 * @xprt: the path's transport
 * @sent: bytes of a call it sent, its pages included
 * @received: bytes of a reply it received
 */
void rpc_xprt_health_bytes(struct rpc_xprt *xprt, unsigned int sent,
			   unsigned int received)
{
	if (sent)
		atomic64_add(sent, &xprt->health.sent);
	if (received)
		atomic64_add(received, &xprt->health.received);
}

/* One path health file of a transport in sysfs */
ssize_t rpc_xprt_health_show(struct rpc_xprt *xprt, enum rpc_path_field field,
			     char *buf)
{
	const struct rpc_xprt_health *h = &xprt->health;

	switch (field) {
	case RPC_PATH_FIELD_STATE:
		return sysfs_emit(buf, "%s\n",
				  rpc_path_state_name(READ_ONCE(h->state)));
	case RPC_PATH_FIELD_DOWNS:
		return sysfs_emit(buf, "%ld\n", atomic_long_read(&h->downs));
	case RPC_PATH_FIELD_MOVED:
		return sysfs_emit(buf, "%ld\n", atomic_long_read(&h->moved));
	case RPC_PATH_FIELD_BYTES:
		return sysfs_emit(buf, "%lld %lld\n", atomic64_read(&h->sent),
				  atomic64_read(&h->received));
	}
	return -EINVAL;
}
