// SPDX-License-Identifier: GPL-2.0
/*
 * Taking a path of a multipath RPC client out of use, and back.
 *
 * A path that is down goes offline, so the round-robin iterator skips it,
 * the requests waiting to be sent or for a slot on it are woken to start
 * over on a path that is up, and its connection is broken unless a request
 * that may not move went out on it: the requests it carried may then
 * start over too, as far as clnt.c lets them (see rpc_task_move()).  The
 * last path that is up never goes offline: requests wait on it, as on any
 * hard mount, until a path answers.
 */

#include <linux/lockdep.h>

#include <linux/sunrpc/clnt.h>
#include <linux/sunrpc/sched.h>
#include <linux/sunrpc/xprt.h>
#include <linux/sunrpc/xprtmultipath.h>

#include "sunrpc.h"
#include "path_monitor.h"

static void rpc_path_set_offline(struct rpc_path *p, bool offline)
{
	struct rpc_xprt_switch *xps = rpc_clnt_xprt_switch_get(p->mon->clnt);

	if (!xps)
		return;
	if (offline)
		xprt_set_offline_locked(p->xprt, xps);
	else
		xprt_set_online_locked(p->xprt, xps);
	p->offlined = offline;
	xprt_switch_put(xps);
}

bool rpc_path_online(const struct rpc_path *p)
{
	return !test_bit(XPRT_OFFLINE, &p->xprt->state);
}

/* Wake the requests that wait on @p for their turn to be sent, those
 * that wait for a slot, those that wait out the delay after a failed
 * connect, and, once its connection is gone, those that wait for the
 * connect: nothing on ->pending then waits for a reply.  They start over
 * on a path that is up, as far as rpc_task_move() lets them.  -EAGAIN,
 * so that one that stays retries as it would have; one that stays after
 * its connect delay tries to connect again at the next look, not 3 s
 * later, and the transport's reconnect back-off still paces the connects.
 */
static void rpc_path_kick(struct rpc_path *p)
{
	struct rpc_xprt *xprt = p->xprt;

	if (READ_ONCE(xprt->sending.qlen))
		rpc_wake_up_status(&xprt->sending, -EAGAIN);
	if (READ_ONCE(xprt->backlog.qlen))
		rpc_wake_up_status(&xprt->backlog, -EAGAIN);
	if (READ_ONCE(xprt->delayed.qlen))
		rpc_wake_up_status(&xprt->delayed, -EAGAIN);
	if (!xprt_connected(xprt) && READ_ONCE(xprt->pending.qlen))
		rpc_wake_up_status(&xprt->pending, -EAGAIN);
}

/* A request that may not move keeps the connection it may have gone out
 * on: its retransmission on a new connection would come from a new port,
 * over RPC/RDMA always, over TCP after a connect that failed, and the
 * server's reply cache would not know it.  Each look that keeps the
 * connection for a request says so (rpc_path_keep).
 */
static bool rpc_path_needs_connection(const struct rpc_rqst *req)
{
	const struct rpc_procinfo *proc = req->rq_task->tk_msg.rpc_proc;

	if (!proc->p_proc || proc->p_idempotent)
		return false;
	rpc_xprt_health_kept(req->rq_task, req->rq_xprt);
	return true;
}

/* Break the connection of a path that went offline, so that the requests
 * it carried may start over elsewhere once it can no longer deliver them.
 * Returns false when a request kept it; the next look tries again.
 */
static bool rpc_path_fence(struct rpc_path *p)
{
	return xprt_disconnect_unless(p->xprt, rpc_path_needs_connection);
}

/**
 * rpc_path_another_up - is a path other than @self up and online
 * @mon: the monitor, locked
 * @self: a path of @mon
 *
 * Return: true if one is.
 */
bool rpc_path_another_up(struct rpc_path_monitor *mon,
			 const struct rpc_path *self)
{
	unsigned int i;

	for (i = 0; i < mon->n; i++) {
		const struct rpc_path *p = &mon->paths[i];

		if (p != self && p->xprt && rpc_path_state(p) == RPC_PATH_UP &&
		    rpc_path_online(p))
			return true;
	}
	return false;
}

/* A path that is not up goes offline, as long as another path is up; its
 * waiting requests are woken, and its connection is broken.  Repeated on
 * every look while it is down: a task can start to wait on the path after
 * the previous look, and a request may have kept the connection.
 */
void rpc_path_drain(struct rpc_path *p)
{
	lockdep_assert_held(&p->mon->lock);
	if (!p->xprt || rpc_path_state(p) == RPC_PATH_UP)
		return;
	if (rpc_path_online(p)) {
		if (!rpc_path_another_up(p->mon, p))
			return;
		rpc_path_set_offline(p, true);
	}
	if (!p->offlined)
		return;
	rpc_path_kick(p);
	if (!p->fenced)
		p->fenced = rpc_path_fence(p);
}

/* A new path: nothing was sent on it before it answered once */
void rpc_path_drain_init(struct rpc_path *p)
{
	p->fenced = true;
}

/* The connection of a path that is down may have come back (a probe
 * connected it): the next drain breaks it again
 */
void rpc_path_refence(struct rpc_path *p)
{
	p->fenced = false;
}

/* A path that came up goes back online, and the paths that stayed online
 * only as the last one up can go offline now
 */
void rpc_path_rejoin(struct rpc_path *p)
{
	struct rpc_path_monitor *mon = p->mon;
	unsigned int i;

	p->fenced = false;
	if (p->offlined)
		rpc_path_set_offline(p, false);
	for (i = 0; i < mon->n; i++) {
		struct rpc_path *q = &mon->paths[i];

		if (q->xprt && rpc_path_state(q) != RPC_PATH_UP &&
		    rpc_path_online(q))
			rpc_path_drain(q);
	}
}

/**
 * rpc_path_retire - take a deleted path out of the switch
 * @p: a path whose deletion was asked
 *
 * The path goes offline at once, unless no other path carries requests:
 * then it waits for one that does (a remount that replaces every path).
 * Its waiting requests start over on another, and its connection is
 * broken unless a request that may not move holds it.  Once it is
 * broken, the transport is removed: the tasks that remain on it leave,
 * and the last one takes it out of the switch.  Repeated at each look
 * until then.
 *
 * Return: true once the transport is removed.
 */
bool rpc_path_retire(struct rpc_path *p)
{
	struct rpc_xprt_switch *xps;
	bool removed = false;

	lockdep_assert_held(&p->mon->lock);
	if (rpc_path_online(p) && !rpc_path_another_online(p->mon, p))
		return false;
	if (rpc_path_online(p))
		rpc_path_set_offline(p, true);
	rpc_path_kick(p);
	if (!p->fenced)
		p->fenced = rpc_path_fence(p);
	if (!p->fenced)
		return false;
	xps = rpc_clnt_xprt_switch_get(p->mon->clnt);
	if (xps) {
		removed = !xprt_delete(p->xprt, xps);
		xprt_switch_put(xps);
	}
	return removed;
}

/**
 * rpc_path_another_online - does a path other than @self carry requests
 * @mon: the monitor, locked
 * @self: a path of @mon
 *
 * Return: true if another path of @mon is online, up or not.
 */
bool rpc_path_another_online(struct rpc_path_monitor *mon,
			     const struct rpc_path *self)
{
	unsigned int i;

	for (i = 0; i < mon->n; i++) {
		const struct rpc_path *p = &mon->paths[i];

		if (p != self && p->xprt && !p->deleting && rpc_path_online(p))
			return true;
	}
	return false;
}
