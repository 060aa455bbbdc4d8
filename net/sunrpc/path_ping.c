// SPDX-License-Identifier: GPL-2.0
/*
 * The NULL calls of the path monitor: one at a time per path, down that
 * path only.  Each holds a reference on the monitor, so that one that ends
 * after the monitor was stopped, a killed mount among them, finds it.
 */

#include <linux/lockdep.h>

#include <linux/sunrpc/clnt.h>
#include <linux/sunrpc/sched.h>

#include "sunrpc.h"
#include "path_monitor.h"

/* The task is still active when its rpc_call_done runs: the monitor learns
 * that a ping ended from here, not from RPC_IS_ACTIVATED().
 */
static void rpc_path_ping_done(struct rpc_task *task, void *data)
{
	struct rpc_path *p = data;
	struct rpc_path_monitor *mon = p->mon;
	const struct rpc_rqst *req = task->tk_rqstp;

	/* A ping asked while the connection was closing (the monitor's own
	 * fence, say) read it as connected.  It had to connect if it went
	 * out on a later connection, under another cookie.
	 */
	if (!req || !RPC_WAS_SENT(task) ||
	    req->rq_sent_cookie != p->ping_cookie)
		p->ping_connected = false;
	p->ping_status = task->tk_status;
	/* Pairs with rpc_path_ping_ended(): the status first, then done */
	smp_store_release(&p->ping_done, true);
	wake_up(&mon->waitq);
	rpc_path_monitor_kick(mon, 0);
}

static void rpc_path_ping_release(void *data)
{
	struct rpc_path *p = data;

	rpc_path_monitor_put(p->mon);
}

static const struct rpc_call_ops rpc_path_ping_ops = {
	.rpc_call_done	= rpc_path_ping_done,
	.rpc_release	= rpc_path_ping_release,
};

/* A NULL call down @p only: soft, and failing at once when it cannot connect */
void rpc_path_ping(struct rpc_path *p)
{
	struct rpc_task *task;

	lockdep_assert_held(&p->mon->lock);
	p->pinging = true;
	p->ping_done = false;
	p->asked = false;
	p->ping_sent = jiffies;
	p->connect_ran = p->ping_sent;
	p->ping_cookie = READ_ONCE(p->xprt->connect_cookie);
	p->ping_connected = xprt_connected(p->xprt);
	kref_get(&p->mon->ref);
	task = rpc_call_null_helper(p->mon->clnt, p->xprt, NULL,
				    RPC_TASK_ASYNC | RPC_TASK_NO_ROUND_ROBIN,
				    &rpc_path_ping_ops, p);
	if (IS_ERR(task)) {
		/* The call data, and with it the reference, is released */
		p->ping = NULL;
		p->ping_status = PTR_ERR(task);
		/* As rpc_path_ping_done(): the status first, then done */
		smp_store_release(&p->ping_done, true);
		return;
	}
	p->ping = task;
}

bool rpc_path_ping_ended(const struct rpc_path *p)
{
	/* Pairs with rpc_path_ping_done(): done, then a final status */
	return p->pinging && smp_load_acquire(&p->ping_done);
}

/* End a ping in flight; it is reaped once it ended */
void rpc_path_ping_cancel(struct rpc_path *p)
{
	if (p->ping && !rpc_path_ping_ended(p))
		rpc_signal_task(p->ping);
}

/* The status of a ping that ended, which is then forgotten */
int rpc_path_ping_reap(struct rpc_path *p)
{
	if (p->ping)
		rpc_put_task(p->ping);
	p->ping = NULL;
	p->pinging = false;
	return p->ping_status;
}
