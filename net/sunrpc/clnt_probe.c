// SPDX-License-Identifier: GPL-2.0
/*
 * Path probing for multipath RPC clients.
 *
 * When a client is created, every transport gets a NULL call at once, in
 * parallel, and the client is usable as soon as one endpoint answered.
 * Transports whose endpoint did not answer are taken offline, so that the
 * round-robin iterator skips them, and are probed again in the background
 * with exponential back-off until they answer and come back online.
 */

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include <linux/sunrpc/clnt.h>
#include <linux/sunrpc/sched.h>
#include <linux/sunrpc/xprt.h>
#include <linux/sunrpc/xprtmultipath.h>
#include <linux/sunrpc/clnt_endpoints.h>

/* Back-off between background probes of a dead path, in seconds */
static unsigned int rpc_path_probe_min_delay = 1;
module_param_named(path_probe_min_delay, rpc_path_probe_min_delay, uint, 0644);
MODULE_PARM_DESC(path_probe_min_delay,
		 "Seconds before the first re-probe of a dead path (default 1)");

static unsigned int rpc_path_probe_max_delay = 30;
module_param_named(path_probe_max_delay, rpc_path_probe_max_delay, uint, 0644);
MODULE_PARM_DESC(path_probe_max_delay,
		 "Longest back-off between re-probes of a dead path (default 30)");

struct rpc_path_prober {
	struct delayed_work	work;
	struct mutex		lock;		/* against stop while starting */
	struct rpc_clnt		*clnt;
	unsigned int		delay;		/* seconds */
	bool			stopping;
	unsigned int		nr_down;	/* of the allocated slots */
	struct rpc_xprt		*down[];
};

static void rpc_probe_enc_void(struct rpc_rqst *req, struct xdr_stream *xdr,
			       const void *obj)
{
}

static int rpc_probe_dec_void(struct rpc_rqst *req, struct xdr_stream *xdr,
			      void *obj)
{
	return 0;
}

static const struct rpc_procinfo rpc_probe_null = {
	.p_encode	= rpc_probe_enc_void,
	.p_decode	= rpc_probe_dec_void,
	.p_name		= "NULL",
};

/* The caller waits for the task and reads its status */
static const struct rpc_call_ops rpc_probe_ops = {
};

static struct rpc_task *rpc_probe_start(struct rpc_clnt *clnt,
					struct rpc_xprt *xprt)
{
	struct rpc_message msg = { .rpc_proc = &rpc_probe_null };
	struct rpc_task_setup setup = {
		.rpc_client	= clnt,
		.rpc_xprt	= xprt,
		.rpc_message	= &msg,
		.callback_ops	= &rpc_probe_ops,
		.flags		= RPC_TASK_ASYNC | RPC_TASK_SOFT |
				  RPC_TASK_SOFTCONN | RPC_TASK_NULLCREDS,
	};

	return rpc_run_task(&setup);
}

/* Wait for a probe: 0 when the endpoint answered */
static int rpc_probe_finish(struct rpc_task *task)
{
	int status;

	if (IS_ERR(task))
		return PTR_ERR(task);
	status = rpc_wait_for_completion_task(task);
	if (!status)
		status = task->tk_status;
	rpc_put_task(task);
	return status;
}

static void rpc_probe_start_all(struct rpc_clnt *clnt, struct rpc_xprt **xprts,
				struct rpc_task **tasks, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		tasks[i] = rpc_probe_start(clnt, xprts[i]);
}

static void rpc_probe_finish_all(struct rpc_task **tasks, int *status,
				 unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		status[i] = rpc_probe_finish(tasks[i]);
}

/* An answer that is not about the path: the server itself refused */
static bool rpc_probe_fatal(int status)
{
	switch (status) {
	case -EPROTONOSUPPORT:
	case -EPFNOSUPPORT:
	case -EACCES:
	case -ERESTARTSYS:
	case -EINTR:
	case -ENOMEM:
		return true;
	}
	return false;
}

static void rpc_probe_set_offline(struct rpc_clnt *clnt,
				  struct rpc_xprt *xprt, bool offline)
{
	struct rpc_xprt_switch *xps;

	rcu_read_lock();
	xps = xprt_switch_get(rcu_dereference(clnt->cl_xpi.xpi_xpswitch));
	rcu_read_unlock();
	if (!xps)
		return;
	wait_on_bit_lock(&xprt->state, XPRT_LOCKED, TASK_UNINTERRUPTIBLE);
	if (offline)
		xprt_set_offline_locked(xprt, xps);
	else
		xprt_set_online_locked(xprt, xps);
	xprt_release_write(xprt, NULL);
	xprt_switch_put(xps);
}

static void rpc_prober_schedule(struct rpc_path_prober *p)
{
	queue_delayed_work(system_long_wq, &p->work, p->delay * HZ);
	p->delay = min(p->delay * 2, max(rpc_path_probe_max_delay, 1U));
}

static void rpc_prober_work(struct work_struct *work)
{
	struct rpc_path_prober *p = container_of(to_delayed_work(work),
						 struct rpc_path_prober, work);
	unsigned int i, kept = 0;
	struct rpc_task **tasks;
	int *status;

	status = kcalloc(p->nr_down, sizeof(*status), GFP_KERNEL);
	tasks = kcalloc(p->nr_down, sizeof(*tasks), GFP_KERNEL);
	mutex_lock(&p->lock);
	if (p->stopping || !status || !tasks) {
		if (!p->stopping)
			rpc_prober_schedule(p);
		mutex_unlock(&p->lock);
		goto out;
	}
	/* Started under the lock: rpc_path_prober_stop() then kills them */
	rpc_probe_start_all(p->clnt, p->down, tasks, p->nr_down);
	mutex_unlock(&p->lock);
	rpc_probe_finish_all(tasks, status, p->nr_down);

	mutex_lock(&p->lock);
	for (i = 0; i < p->nr_down; i++) {
		if (status[i] == 0 && !p->stopping) {
			rpc_probe_set_offline(p->clnt, p->down[i], false);
			xprt_put(p->down[i]);
			continue;
		}
		p->down[kept++] = p->down[i];
	}
	p->nr_down = kept;
	if (kept && !p->stopping)
		rpc_prober_schedule(p);
	mutex_unlock(&p->lock);
out:
	kfree(tasks);
	kfree(status);
}

struct rpc_probe_xprts {
	struct rpc_xprt	**xprts;
	unsigned int	n, max;
};

static int rpc_probe_collect(struct rpc_clnt *clnt, struct rpc_xprt *xprt,
			     void *data)
{
	struct rpc_probe_xprts *c = data;

	if (c->n == c->max)
		return -E2BIG;
	c->xprts[c->n++] = xprt_get(xprt);
	return 0;
}

static struct rpc_path_prober *rpc_prober_alloc(struct rpc_clnt *clnt,
						unsigned int n)
{
	struct rpc_path_prober *p;

	p = kzalloc(struct_size(p, down, n), GFP_KERNEL);
	if (!p)
		return NULL;
	INIT_DELAYED_WORK(&p->work, rpc_prober_work);
	mutex_init(&p->lock);
	p->clnt = clnt;
	p->delay = max(rpc_path_probe_min_delay, 1U);
	return p;
}

/**
 * rpc_clnt_probe_paths - find which transports of a new client work
 * @clnt: a client whose transports are all added
 * @max: the most transports it may have
 * @proberp: set to the background prober, or NULL when all paths answered
 *
 * Sends a NULL call down every transport at once.  Transports that get no
 * answer are taken offline and probed again in the background until they
 * answer; rpc_path_prober_stop() ends that.
 *
 * Return: 0 when at least one endpoint answered; otherwise, or when a
 * server refused the program or version, the error of the first probe.
 */
int rpc_clnt_probe_paths(struct rpc_clnt *clnt, unsigned int max,
			 struct rpc_path_prober **proberp)
{
	struct rpc_probe_xprts c = { .max = max };
	struct rpc_path_prober *p = NULL;
	struct rpc_task **tasks;
	unsigned int i, up = 0;
	int *status, ret;

	*proberp = NULL;
	c.xprts = kcalloc(max, sizeof(*c.xprts), GFP_KERNEL);
	status = kcalloc(max, sizeof(*status), GFP_KERNEL);
	tasks = kcalloc(max, sizeof(*tasks), GFP_KERNEL);
	ret = -ENOMEM;
	if (!c.xprts || !status || !tasks)
		goto out;
	ret = rpc_clnt_iterate_for_each_xprt(clnt, rpc_probe_collect, &c);
	if (ret)
		goto out;
	rpc_probe_start_all(clnt, c.xprts, tasks, c.n);
	rpc_probe_finish_all(tasks, status, c.n);
	ret = status[0];
	for (i = 0; i < c.n; i++) {
		if (rpc_probe_fatal(status[i])) {
			ret = status[i];
			goto out;
		}
		up += status[i] == 0;
	}
	if (!up)
		goto out;
	ret = 0;
	if (up < c.n) {
		p = rpc_prober_alloc(clnt, c.n - up);
		if (!p) {
			ret = -ENOMEM;
			goto out;
		}
	}
	for (i = 0; i < c.n; i++) {
		if (status[i] == 0)
			continue;
		rpc_probe_set_offline(clnt, c.xprts[i], true);
		p->down[p->nr_down++] = c.xprts[i];
		c.xprts[i] = NULL;
	}
	if (p)
		rpc_prober_schedule(p);
	*proberp = p;
out:
	for (i = 0; i < c.n; i++)
		if (c.xprts[i])
			xprt_put(c.xprts[i]);
	kfree(c.xprts);
	kfree(tasks);
	kfree(status);
	return ret;
}
EXPORT_SYMBOL_GPL(rpc_clnt_probe_paths);

/**
 * rpc_path_prober_stop - end the background probing of a client's paths
 * @p: prober from rpc_clnt_probe_paths(), or NULL
 *
 * Call before the client is shut down.  Kills the client's tasks, which
 * includes any probe in flight, so only use it when the client goes away.
 */
void rpc_path_prober_stop(struct rpc_path_prober *p)
{
	unsigned int i;

	if (!p)
		return;
	mutex_lock(&p->lock);
	p->stopping = true;
	mutex_unlock(&p->lock);
	rpc_killall_tasks(p->clnt);
	cancel_delayed_work_sync(&p->work);
	for (i = 0; i < p->nr_down; i++)
		xprt_put(p->down[i]);
	kfree(p);
}
EXPORT_SYMBOL_GPL(rpc_path_prober_stop);
