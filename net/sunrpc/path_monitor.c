// SPDX-License-Identifier: GPL-2.0
/*
 * The path monitor of a multipath RPC client.
 *
 * Each transport of a multipath client is a path to one remote endpoint,
 * bound to one local endpoint.  One monitor per client watches them: at
 * creation every path gets a NULL call at once (path_ping.c), and the
 * client is usable as soon as one answered; from then on a work item on
 * xprtiod looks at every path, every 100 ms while paths carry requests
 * (or did in the last 2 s) or are down and every second otherwise,
 * judges it (path_detect.c), and takes the paths that are down out of use
 * (path_drain.c).
 */

#include <linux/kref.h>
#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>

#include <linux/sunrpc/clnt.h>
#include <linux/sunrpc/xprt.h>
#include <linux/sunrpc/xprt_health.h>

#include "sunrpc.h"
#include "path_monitor.h"

/* How often the monitor looks while paths are busy or down, and otherwise */
#define RPC_PATH_TICK_FAST	(HZ / 10)
#define RPC_PATH_TICK_SLOW	HZ

/* The running monitors, which a local device that comes or goes wakes */
static LIST_HEAD(rpc_path_monitors);
static DEFINE_SPINLOCK(rpc_path_monitors_lock);
static atomic_t rpc_path_local_adds = ATOMIC_INIT(0);

static void rpc_path_monitor_release(struct kref *ref)
{
	struct rpc_path_monitor *mon = container_of(ref, struct rpc_path_monitor,
						    ref);
	unsigned int i;

	cancel_delayed_work_sync(&mon->work);
	for (i = 0; i < mon->n; i++)
		xprt_put(mon->paths[i].xprt);
	kvfree(mon);
}

void rpc_path_monitor_put(struct rpc_path_monitor *mon)
{
	kref_put(&mon->ref, rpc_path_monitor_release);
}

/* A look at the paths, now or after @delay, unless the monitor stopped */
void rpc_path_monitor_kick(struct rpc_path_monitor *mon, unsigned long delay)
{
	spin_lock(&mon->work_lock);
	if (mon->running)
		mod_delayed_work(xprtiod_workqueue, &mon->work, delay);
	spin_unlock(&mon->work_lock);
}

/* A look at the paths of every client now */
static void rpc_path_monitors_kick(void)
{
	struct rpc_path_monitor *mon;

	spin_lock(&rpc_path_monitors_lock);
	list_for_each_entry(mon, &rpc_path_monitors, node)
		rpc_path_monitor_kick(mon, 0);
	spin_unlock(&rpc_path_monitors_lock);
}

/**
 * rpc_xprt_local_gone - the local device of a transport went away
 * @xprt: a transport whose device was removed, or is being removed
 *
 * For transports whose local endpoint depends on more than the carrier of
 * its interface, such as an RDMA device.  If @xprt is a path of a
 * multipath client, it is declared down at the monitor's next look,
 * which this brings forward; otherwise nothing happens.
 *
 * Context: process context, such as an ib_client or CM callback.
 */
void rpc_xprt_local_gone(struct rpc_xprt *xprt)
{
	atomic_inc(&xprt->health.local_gone);
	rpc_path_monitors_kick();
}
EXPORT_SYMBOL_GPL(rpc_xprt_local_gone);

/**
 * rpc_xprt_local_added - a local device came, which may serve a path
 *
 * Paths that are down are probed at the monitors' next look, which this
 * brings forward, rather than after their back-off.  A device that is not
 * ready for them yet fails that probe, and the back-off takes over.
 *
 * Context: process context, such as an ib_client callback.
 */
void rpc_xprt_local_added(void)
{
	atomic_inc(&rpc_path_local_adds);
	rpc_path_monitors_kick();
}
EXPORT_SYMBOL_GPL(rpc_xprt_local_added);

/* Has a local device come since the monitor's last look? */
static void rpc_path_monitor_sample(struct rpc_path_monitor *mon)
{
	int adds = atomic_read(&rpc_path_local_adds);

	mon->local_back = adds != mon->local_adds;
	mon->local_adds = adds;
}

/* Transports that paths let go of at one look, put once the monitor's lock
 * is dropped: the last put of one waits for its send lock, which a
 * connect may hold for seconds.  More wait for the next look.
 */
#define RPC_PATH_PUTS		8

struct rpc_path_puts {
	unsigned int		n;
	struct rpc_xprt		*xprt[RPC_PATH_PUTS];
};

/* A path sysfs removed is forgotten, so that it can go */
static void rpc_path_forget(struct rpc_path *p, struct rpc_path_puts *puts)
{
	rpc_path_ping_cancel(p);
	if (rpc_path_ping_ended(p))
		rpc_path_ping_reap(p);
	if (p->pinging || puts->n == RPC_PATH_PUTS)
		return;
	puts->xprt[puts->n++] = p->xprt;
	p->xprt = NULL;
}

/* One look at a path: true while it needs fast ticks.  A path being
 * deleted is not judged: it only waits to be removed.
 */
static bool rpc_path_look(struct rpc_path *p, unsigned long now,
			  struct rpc_path_puts *puts)
{
	if (!p->xprt)
		return false;
	if (test_bit(XPRT_REMOVE, &p->xprt->state)) {
		rpc_path_forget(p, puts);
		return !!p->xprt;
	}
	if (p->deleting)
		return !rpc_path_retire(p);
	return rpc_path_check(p, now);
}

static void rpc_path_monitor_work(struct work_struct *work)
{
	struct rpc_path_monitor *mon = container_of(to_delayed_work(work),
						    struct rpc_path_monitor,
						    work);
	struct rpc_path_puts puts = { };
	unsigned int noio, i;
	unsigned long now;
	bool fast = false;

	/* Writeback may wait for this: no allocation may wait for it */
	noio = memalloc_noio_save();
	mutex_lock(&mon->lock);
	if (!mon->stopping) {
		now = jiffies;
		rpc_path_monitor_sample(mon);
		for (i = 0; i < mon->n; i++)
			if (!rpc_path_gone(&mon->paths[i]))
				rpc_path_sample(&mon->paths[i], now);
		for (i = 0; i < mon->n; i++)
			fast |= rpc_path_look(&mon->paths[i], now, &puts);
		rpc_path_monitor_kick(mon, fast ? RPC_PATH_TICK_FAST :
						  RPC_PATH_TICK_SLOW);
	}
	mutex_unlock(&mon->lock);
	memalloc_noio_restore(noio);
	for (i = 0; i < puts.n; i++)
		xprt_put(puts.xprt[i]);
}

/* Creation
 */

/**
 * rpc_path_monitor_join - start watching a transport
 * @p: a slot from rpc_path_monitor_slot(), with the monitor locked
 * @xprt: the transport, which the path holds from now on
 *
 * Everything but the slot's monitor starts afresh: a ping of the path
 * that was there before may still read that when it is released.
 */
void rpc_path_monitor_join(struct rpc_path *p, struct rpc_xprt *xprt)
{
	memset_after(p, 0, mon);
	p->xprt = xprt_get(xprt);
	rpc_path_detect_init(p);
	rpc_path_drain_init(p);
}

/**
 * rpc_path_monitor_slot - room for one more path
 * @mon: a monitor, locked
 *
 * Return: the slot of a path that sysfs removed and the monitor forgot,
 * else a new one; NULL when the monitor has room for no more.
 */
struct rpc_path *rpc_path_monitor_slot(struct rpc_path_monitor *mon)
{
	unsigned int i;

	for (i = 0; i < mon->n; i++)
		if (!mon->paths[i].xprt)
			return &mon->paths[i];
	if (mon->n == mon->max)
		return NULL;
	mon->n++;
	mon->paths[mon->n - 1].mon = mon;
	return &mon->paths[mon->n - 1];
}

static int rpc_path_collect(struct rpc_clnt *clnt, struct rpc_xprt *xprt,
			    void *data)
{
	struct rpc_path_monitor *mon = data;
	struct rpc_path *p;

	p = rpc_path_monitor_slot(mon);
	if (!p)
		return -E2BIG;
	rpc_path_monitor_join(p, xprt);
	return 0;
}

/**
 * rpc_path_of - the path of a transport
 * @mon: a monitor, locked
 * @xprt: one of its transports
 *
 * Return: the path, or NULL if @mon does not watch @xprt.
 */
struct rpc_path *rpc_path_of(struct rpc_path_monitor *mon,
			     const struct rpc_xprt *xprt)
{
	unsigned int i;

	for (i = 0; i < mon->n; i++)
		if (mon->paths[i].xprt == xprt)
			return &mon->paths[i];
	return NULL;
}

/**
 * rpc_path_monitor_find - the running monitor of a switch
 * @xps: the switch of a multipath client
 *
 * Return: the monitor, with a reference that rpc_path_monitor_put() drops,
 * or NULL when none watches @xps (yet, or any more).
 */
struct rpc_path_monitor *rpc_path_monitor_find(const struct rpc_xprt_switch *xps)
{
	struct rpc_path_monitor *mon, *found = NULL;

	spin_lock(&rpc_path_monitors_lock);
	list_for_each_entry(mon, &rpc_path_monitors, node) {
		if (mon->xps == xps && kref_get_unless_zero(&mon->ref)) {
			found = mon;
			break;
		}
	}
	spin_unlock(&rpc_path_monitors_lock);
	return found;
}

/* An answer that is not about the path: the server itself refused */
static bool rpc_path_status_fatal(int status)
{
	switch (status) {
	case -EPROTONOSUPPORT:
	case -EPFNOSUPPORT:
	case -EACCES:
	case -ENOMEM:
		return true;
	}
	return false;
}

/* Creation is over once a path answered, or every ping ended */
static bool rpc_path_monitor_settled(struct rpc_path_monitor *mon)
{
	unsigned int i, ended = 0;

	for (i = 0; i < mon->n; i++) {
		struct rpc_path *p = &mon->paths[i];

		if (!rpc_path_ping_ended(p))
			continue;
		if (!p->ping_status || rpc_path_status_fatal(p->ping_status))
			return true;
		ended++;
	}
	return ended == mon->n;
}

/* The pings of creation that ended decide the state of their path; the
 * paths still waiting for an answer stay offline until the monitor sees
 * one.  Returns 0 when a path is up.
 */
static int rpc_path_monitor_settle(struct rpc_path_monitor *mon)
{
	int ret = -EIO;
	unsigned int i;

	for (i = 0; i < mon->n; i++) {
		struct rpc_path *p = &mon->paths[i];
		int status;

		if (!rpc_path_ping_ended(p))
			continue;
		status = rpc_path_ping_reap(p);
		if (rpc_path_status_fatal(status))
			return status;
		if (status == 0)
			rpc_path_up(p, "answered");
		if (ret)
			ret = status;
	}
	if (ret)
		return ret;
	for (i = 0; i < mon->n; i++) {
		struct rpc_path *p = &mon->paths[i];

		if (rpc_path_state(p) == RPC_PATH_UP)
			continue;
		if (p->pinging)
			rpc_path_drain(p);
		else
			rpc_path_down(p, "no answer");
	}
	return 0;
}

/**
 * rpc_path_monitor_start - find the working paths of a new client, and watch
 * @clnt: a multipath client whose transports are all added
 * @max: the most transports @clnt may have, those that sysfs adds later
 *	included
 * @monp: set to the monitor, which rpc_path_monitor_stop() ends
 *
 * Sends a NULL call down every transport at once and waits until one
 * answered, or all failed.  Transports that have not answered stay
 * offline until they do; from then on the monitor watches all of them.
 *
 * Return: 0 when a path answered.  Otherwise, or when a server refused the
 * program or version, an error from the pings, or -EINTR.
 */
int rpc_path_monitor_start(struct rpc_clnt *clnt, unsigned int max,
			   struct rpc_path_monitor **monp)
{
	struct rpc_xprt_switch *xps;
	struct rpc_path_monitor *mon;
	unsigned int i;
	int ret;

	*monp = NULL;
	mon = kvzalloc(struct_size(mon, paths, max), GFP_KERNEL);
	if (!mon)
		return -ENOMEM;
	mon->max = max;
	kref_init(&mon->ref);
	INIT_DELAYED_WORK(&mon->work, rpc_path_monitor_work);
	mutex_init(&mon->lock);
	spin_lock_init(&mon->work_lock);
	init_waitqueue_head(&mon->waitq);
	mon->clnt = clnt;
	mon->net = rpc_net_ns(clnt);
	INIT_LIST_HEAD(&mon->node);
	mon->local_adds = atomic_read(&rpc_path_local_adds);
	/* The client holds its switch for longer than the monitor runs */
	xps = rpc_clnt_xprt_switch_get(clnt);
	mon->xps = xps;
	xprt_switch_put(xps);
	ret = rpc_clnt_iterate_for_each_xprt(clnt, rpc_path_collect, mon);
	if (ret)
		goto out_stop;

	mutex_lock(&mon->lock);
	for (i = 0; i < mon->n; i++) {
		mon->paths[i].heard = jiffies;
		rpc_xprt_health_set(mon->paths[i].xprt, RPC_PATH_PROBING,
				    "created");
		rpc_path_ping(&mon->paths[i]);
	}
	mutex_unlock(&mon->lock);
	ret = wait_event_killable(mon->waitq, rpc_path_monitor_settled(mon));
	if (ret)
		goto out_stop;

	mutex_lock(&mon->lock);
	ret = rpc_path_monitor_settle(mon);
	if (!ret) {
		spin_lock(&mon->work_lock);
		mon->running = true;
		spin_unlock(&mon->work_lock);
		spin_lock(&rpc_path_monitors_lock);
		list_add(&mon->node, &rpc_path_monitors);
		spin_unlock(&rpc_path_monitors_lock);
		rpc_path_monitor_kick(mon, 0);
	}
	mutex_unlock(&mon->lock);
	if (ret)
		goto out_stop;
	*monp = mon;
	return 0;

out_stop:
	rpc_path_monitor_stop(mon);
	return ret;
}
EXPORT_SYMBOL_GPL(rpc_path_monitor_start);

/**
 * rpc_path_monitor_stop - stop watching the paths of a client
 * @mon: monitor from rpc_path_monitor_start(), or NULL
 *
 * Call before the client is shut down.  Ends the pings in flight, and
 * waits for none: each holds the monitor until it is released.
 */
void rpc_path_monitor_stop(struct rpc_path_monitor *mon)
{
	unsigned int i;

	if (!mon)
		return;
	spin_lock(&rpc_path_monitors_lock);
	list_del_init(&mon->node);
	spin_unlock(&rpc_path_monitors_lock);
	spin_lock(&mon->work_lock);
	mon->running = false;
	spin_unlock(&mon->work_lock);
	cancel_delayed_work_sync(&mon->work);
	mutex_lock(&mon->lock);
	mon->stopping = true;
	for (i = 0; i < mon->n; i++) {
		struct rpc_path *p = &mon->paths[i];

		rpc_path_ping_cancel(p);
		if (p->pinging)
			rpc_path_ping_reap(p);
	}
	mutex_unlock(&mon->lock);
	rpc_path_monitor_put(mon);
}
EXPORT_SYMBOL_GPL(rpc_path_monitor_stop);
