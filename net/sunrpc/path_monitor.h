/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The path monitor of a multipath RPC client, inside sunrpc.ko.
 *
 * path_monitor.c owns the monitor and its work, path_ping.c the NULL
 * calls, path_detect.c the judgement of each path, path_drain.c taking a
 * path out of use and back, xprt_health.c the state that sysfs and the
 * endpoint lines show.
 *
 * Everything here runs with mon->lock held, but rpc_path_ping_done(), the
 * ping's callback, which writes only ping_connected and ping_status, and
 * then ping_done (with release semantics, read with acquire by
 * rpc_path_ping_ended()).
 */
#ifndef _NET_SUNRPC_PATH_MONITOR_H
#define _NET_SUNRPC_PATH_MONITOR_H

#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <linux/sunrpc/xprt.h>

struct rpc_clnt;
struct rpc_endpoint_addrs;
struct rpc_path_monitor;
struct rpc_xprt_switch;

struct rpc_path {
	/* Never rewritten: a ping's release may still read it */
	struct rpc_path_monitor	*mon;
	struct rpc_xprt		*xprt;		/* NULL once sysfs removed it */
	bool			deleting;	/* sysfs del_xprt: leaves once
						 * its connection is broken
						 */
	struct rpc_task		*ping;		/* the NULL call, until reaped */
	bool			pinging;	/* a NULL call is not reaped */
	int			ping_status;	/* once ping_done */
	bool			ping_done;
	bool			ping_connected;	/* went out on the connection
						 * there when it was asked
						 */
	unsigned int		ping_cookie;	/* connect_cookie when asked */
	unsigned long		ping_sent;	/* jiffies */
	unsigned long		connect_ran;	/* jiffies: the last look at which
						 * the ping's connect ran
						 */
	unsigned long		recvs;		/* xprt->stat.recvs last seen */
	unsigned long		heard;		/* jiffies of the last reply */
	unsigned int		gap;		/* between replies, us, average */
	unsigned long		busy_since;	/* jiffies */
	unsigned long		busy_last;	/* jiffies of the last busy look */
	bool			busy;		/* at the last look */
	bool			asked;		/* peers pinged for this ping */
	unsigned long		next_probe;	/* jiffies, while down */
	unsigned int		backoff;	/* seconds */
	bool			offlined;	/* offline by us, not by sysfs */
	bool			fenced;		/* connection broken since */
	bool			carrier;	/* of the local device */
	bool			carrier_back;	/* since the look before */
	int			local_gone;	/* health.local_gone last seen */
	bool			device_gone;	/* since the look before */
	bool			device_added;	/* a device came since its last probe */
};

struct rpc_path_monitor {
	struct kref		ref;		/* the owner's, and each ping's */
	struct delayed_work	work;
	struct mutex		lock;		/* the paths, against stop */
	spinlock_t		work_lock;	/* running, against the pings */
	wait_queue_head_t	waitq;		/* pings ending, for creation */
	struct rpc_clnt		*clnt;
	/* The client's switch: only compared, while the monitor runs */
	const struct rpc_xprt_switch *xps;
	struct net		*net;
	struct list_head	node;		/* in the running monitors */
	int			local_adds;	/* devices added, last seen */
	bool			local_back;	/* one was, since the look before */
	bool			running;	/* ticks are on */
	bool			stopping;
	unsigned int		max;		/* room for this many paths */
	unsigned int		n;
	struct rpc_path		paths[] __counted_by(n);
};

/* A path that was removed, or none: nothing to look at */
static inline bool rpc_path_gone(const struct rpc_path *p)
{
	return !p->xprt || test_bit(XPRT_REMOVE, &p->xprt->state);
}

static inline unsigned int rpc_path_state(const struct rpc_path *p)
{
	if (!p->xprt)
		return RPC_PATH_DOWN;
	return READ_ONCE(p->xprt->health.state);
}

/* xprt_health.c */
void rpc_xprt_health_set(struct rpc_xprt *xprt, unsigned int state,
			 const char *why);

/* path_monitor.c */
void rpc_path_monitor_put(struct rpc_path_monitor *mon);
void rpc_path_monitor_kick(struct rpc_path_monitor *mon, unsigned long delay);
struct rpc_path_monitor *rpc_path_monitor_find(const struct rpc_xprt_switch *xps);
struct rpc_path *rpc_path_monitor_slot(struct rpc_path_monitor *mon);
void rpc_path_monitor_join(struct rpc_path *p, struct rpc_xprt *xprt);
struct rpc_path *rpc_path_of(struct rpc_path_monitor *mon,
			     const struct rpc_xprt *xprt);

/* path_ping.c */
void rpc_path_ping(struct rpc_path *p);
bool rpc_path_ping_ended(const struct rpc_path *p);
void rpc_path_ping_cancel(struct rpc_path *p);
int rpc_path_ping_reap(struct rpc_path *p);

/* path_detect.c */
void rpc_path_detect_init(struct rpc_path *p);
void rpc_path_sample(struct rpc_path *p, unsigned long now);
bool rpc_path_check(struct rpc_path *p, unsigned long now);
void rpc_path_up(struct rpc_path *p, const char *why);
void rpc_path_down(struct rpc_path *p, const char *why);

/* path_drain.c */
void rpc_path_drain_init(struct rpc_path *p);
void rpc_path_refence(struct rpc_path *p);
bool rpc_path_online(const struct rpc_path *p);
void rpc_path_drain(struct rpc_path *p);
void rpc_path_rejoin(struct rpc_path *p);
bool rpc_path_another_up(struct rpc_path_monitor *mon,
			 const struct rpc_path *self);
bool rpc_path_another_online(struct rpc_path_monitor *mon,
			     const struct rpc_path *self);
bool rpc_path_retire(struct rpc_path *p);

/* path_edit.c, for sysfs and path_reconfig.c */
int rpc_path_add_endpoint(struct rpc_xprt_switch *xps, const char *buf);
int rpc_path_del_xprt(struct rpc_xprt_switch *xps, struct rpc_xprt *xprt);
struct rpc_xprt *rpc_path_main_get(struct rpc_path_monitor *mon);
int rpc_path_add_addrs(struct rpc_path_monitor *mon,
		       struct rpc_xprt_switch *xps, struct rpc_xprt *main,
		       const struct rpc_endpoint_addrs *addrs,
		       struct rpc_path **pathp);
void rpc_path_delete(struct rpc_path *p);

#endif /* _NET_SUNRPC_PATH_MONITOR_H */
