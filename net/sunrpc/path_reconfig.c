// SPDX-License-Identifier: GPL-2.0
/*
 * A running multipath RPC client brought to a new endpoint configuration,
 * as a remount asks.
 *
 * Placement (rpc_endpoints_xprt_args()) gives each of the new transports
 * a pair of endpoints.  A path whose pair is wanted stays, once per want;
 * a path is made for each pair that no path has; the paths left over are
 * deleted as sysfs deletes them (rpc_path_retire()).  The client then has
 * the pairs, as often, of a client created with the new configuration.
 * The main transport cannot go (the client's cl_xprt): a configuration
 * whose placement leaves it out is refused before anything changes.
 */

#include <linux/bitmap.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>

#include <linux/sunrpc/addr.h>
#include <linux/sunrpc/clnt.h>
#include <linux/sunrpc/clnt_endpoints.h>
#include <linux/sunrpc/xprt.h>
#include <linux/sunrpc/xprt_health.h>
#include <linux/sunrpc/xprtmultipath.h>

#include "sunrpc.h"
#include "path_monitor.h"

struct rpc_path_want {
	struct rpc_endpoint_addrs	addrs;
	bool				had;	/* a path that stays has it */
	struct rpc_path			*made;	/* the path made for it */
};

struct rpc_path_plan {
	struct rpc_path_monitor		*mon;
	struct rpc_xprt_switch		*xps;
	struct rpc_xprt			*main;
	struct rpc_endpoint_error	*err;
	unsigned long			*leaves; /* slots of paths that go */
	unsigned int			n;
	struct rpc_path_want		want[] __counted_by(n);
};

static int rpc_path_plan_fail(struct rpc_path_plan *plan, const char *reason,
			      const struct sockaddr *sap)
{
	plan->err->reason = reason;
	snprintf(plan->err->item, sizeof(plan->err->item), "%pISc", sap);
	return -EINVAL;
}

/* Transport @i of @cfg: where placement aims it, as on creation */
static void rpc_path_plan_want(struct rpc_path_plan *plan,
			       const struct rpc_endpoint_config *cfg,
			       unsigned int i)
{
	struct rpc_path_want *w = &plan->want[i];
	struct xprt_create args = {
		.dstaddr	= (struct sockaddr *)&plan->main->addr,
	};

	rpc_endpoints_xprt_args(cfg, i, &args, &w->addrs);
	if (args.dstaddr != (struct sockaddr *)&w->addrs.dst)
		memcpy(&w->addrs.dst, &plan->main->addr, sizeof(w->addrs.dst));
}

/* Does @xprt go from @a->src (or from no address in particular) to
 * @a->dst.  Ports are not compared: every path goes to the server's one
 * port, which rpcbind may not have told each transport yet.
 */
static bool rpc_path_aims(const struct rpc_xprt *xprt,
			  const struct rpc_endpoint_addrs *a)
{
	const struct sockaddr *bound = (const struct sockaddr *)&xprt->bindaddr;

	if (!rpc_cmp_addr((const struct sockaddr *)&xprt->addr,
			  (const struct sockaddr *)&a->dst))
		return false;
	if (a->src.ss_family == AF_UNSPEC || bound->sa_family == AF_UNSPEC)
		return a->src.ss_family == bound->sa_family;
	return rpc_cmp_addr(bound, (const struct sockaddr *)&a->src);
}

/* Mark the first want of @xprt that no path has yet */
static bool rpc_path_plan_claim(struct rpc_path_plan *plan,
				const struct rpc_xprt *xprt)
{
	struct rpc_path_want *w;
	unsigned int i;

	for (i = 0; i < plan->n; i++) {
		w = &plan->want[i];
		if (!w->had && rpc_path_aims(xprt, &w->addrs)) {
			w->had = true;
			return true;
		}
	}
	return false;
}

/* A path that the new configuration may keep: not leaving already */
static bool rpc_path_current(const struct rpc_path *p)
{
	return !rpc_path_gone(p) && !p->deleting;
}

/* The main transport must stay: name its pair */
static int rpc_path_plan_no_main(struct rpc_path_plan *plan)
{
	const struct rpc_xprt *main = plan->main;

	plan->err->reason = "the main transport's endpoints must stay";
	if (main->bindaddr.ss_family == AF_UNSPEC)
		snprintf(plan->err->item, sizeof(plan->err->item), "%pISc",
			 &main->addr);
	else
		snprintf(plan->err->item, sizeof(plan->err->item),
			 "%pISc from %pISc", &main->addr, &main->bindaddr);
	return -EINVAL;
}

/* Paths that carry requests claim their pairs before those that do not,
 * so that of two paths with one pair the one that works stays
 */
static void rpc_path_plan_pass(struct rpc_path_plan *plan, bool working)
{
	struct rpc_path_monitor *mon = plan->mon;
	struct rpc_path *p;
	unsigned int i;

	for (i = 0; i < mon->n; i++) {
		p = &mon->paths[i];
		if (!rpc_path_current(p) || p->xprt == plan->main)
			continue;
		if (working != (rpc_path_state(p) == RPC_PATH_UP &&
				rpc_path_online(p)))
			continue;
		if (!rpc_path_plan_claim(plan, p->xprt))
			__set_bit(i, plan->leaves);
	}
}

/* Which paths stay, and which go; the main transport must stay */
static int rpc_path_plan_match(struct rpc_path_plan *plan)
{
	if (!rpc_path_plan_claim(plan, plan->main))
		return rpc_path_plan_no_main(plan);
	rpc_path_plan_pass(plan, true);
	rpc_path_plan_pass(plan, false);
	return 0;
}

/* Room for the adds: slots never used, and those of paths removed.
 * Paths that are deleted keep theirs until they are removed.
 */
static int rpc_path_plan_room(struct rpc_path_plan *plan)
{
	struct rpc_path_monitor *mon = plan->mon;
	unsigned int i, adds = 0, room = mon->max - mon->n;

	for (i = 0; i < mon->n; i++)
		room += !mon->paths[i].xprt;
	for (i = 0; i < plan->n; i++)
		adds += !plan->want[i].had;
	if (adds <= room)
		return 0;
	plan->err->reason = "no room for the new paths beside those they replace";
	snprintf(plan->err->item, sizeof(plan->err->item), "%u new, room for %u",
		 adds, room);
	return -EINVAL;
}

/* A path for each want that none has.  A new path takes only a slot
 * that had no transport, so none of them is in leaves.
 */
static int rpc_path_plan_add(struct rpc_path_plan *plan)
{
	struct rpc_path_want *w;
	unsigned int i;
	int ret;

	for (i = 0; i < plan->n; i++) {
		w = &plan->want[i];
		if (w->had)
			continue;
		ret = rpc_path_add_addrs(plan->mon, plan->xps, plan->main,
					 &w->addrs, &w->made);
		if (ret) {
			rpc_path_plan_fail(plan, "no transport to this endpoint",
					   (struct sockaddr *)&w->addrs.dst);
			return ret;
		}
	}
	return 0;
}

/* The paths made so far go again.  Each is offline until it answers,
 * unless no other path was up: requests that it carried move as from any
 * deleted path.
 */
static void rpc_path_plan_undo(struct rpc_path_plan *plan)
{
	unsigned int i;

	for (i = 0; i < plan->n; i++)
		if (plan->want[i].made)
			rpc_path_delete(plan->want[i].made);
}

static void rpc_path_plan_delete(struct rpc_path_plan *plan)
{
	unsigned int i;

	for_each_set_bit(i, plan->leaves, plan->mon->n)
		rpc_path_delete(&plan->mon->paths[i]);
}

/* With the monitor locked and running */
static int rpc_path_plan_apply(struct rpc_path_plan *plan,
			       const struct rpc_endpoint_config *cfg)
{
	unsigned int i;
	int ret;

	for (i = 0; i < plan->n; i++)
		rpc_path_plan_want(plan, cfg, i);
	ret = rpc_path_plan_match(plan);
	if (!ret)
		ret = rpc_path_plan_room(plan);
	if (!ret)
		ret = rpc_path_plan_add(plan);
	if (ret) {
		rpc_path_plan_undo(plan);
		return ret;
	}
	rpc_path_plan_delete(plan);
	rpc_path_monitor_kick(plan->mon, 0);
	return 0;
}

static int rpc_path_plan_locked(struct rpc_path_plan *plan,
				const struct rpc_endpoint_config *cfg)
{
	struct rpc_path_monitor *mon = plan->mon;
	int ret = -ENOMEM;

	if (mon->stopping)
		return -EBUSY;
	plan->leaves = bitmap_zalloc(mon->max, GFP_KERNEL);
	plan->xps = rpc_clnt_xprt_switch_get(mon->clnt);
	plan->main = rpc_path_main_get(mon);
	if (!plan->xps || !plan->main)
		ret = -ENODEV;
	else if (plan->leaves)
		ret = rpc_path_plan_apply(plan, cfg);
	xprt_put(plan->main);
	if (plan->xps)
		xprt_switch_put(plan->xps);
	bitmap_free(plan->leaves);
	return ret;
}

/**
 * rpc_path_monitor_reconfigure - bring a multipath client's paths to @cfg
 * @mon: the client's path monitor
 * @cfg: the new endpoint configuration; its local endpoints resolved
 * @n: how many transports, from 1 to the monitor's room
 * @err: the reason and the item, for -EINVAL
 *
 * The paths placement keeps stay, with their connections; new paths are
 * probed and carry requests once they answer; the paths left over are
 * deleted like those of del_xprt in sysfs.  Paths added through sysfs
 * count as any other.  The path policy is not touched.
 *
 * Return: 0 once the new paths exist and the others are leaving;
 * -EINVAL when the placement leaves out the main transport's endpoints,
 * @n is out of range or the monitor has no room, with nothing changed;
 * -EBUSY or -ENODEV while the client goes away; -EINTR; -ENOMEM; or the
 * error of a transport's creation, with the paths made until then taken
 * back.
 */
int rpc_path_monitor_reconfigure(struct rpc_path_monitor *mon,
				 const struct rpc_endpoint_config *cfg,
				 unsigned int n, struct rpc_endpoint_error *err)
{
	struct rpc_path_plan *plan;
	unsigned int noio;
	int ret;

	if (!n || n > mon->max) {
		err->reason = "number of transports out of range";
		snprintf(err->item, sizeof(err->item), "%u", n);
		return -EINVAL;
	}
	plan = kvzalloc(struct_size(plan, want, n), GFP_KERNEL);
	if (!plan)
		return -ENOMEM;
	plan->n = n;
	plan->mon = mon;
	plan->err = err;
	ret = mutex_lock_killable(&mon->lock);
	if (!ret) {
		/* As in the monitor's work: writeback may wait for the lock */
		noio = memalloc_noio_save();
		ret = rpc_path_plan_locked(plan, cfg);
		memalloc_noio_restore(noio);
		mutex_unlock(&mon->lock);
	}
	kvfree(plan);
	return ret;
}
EXPORT_SYMBOL_GPL(rpc_path_monitor_reconfigure);
