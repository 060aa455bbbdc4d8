// SPDX-License-Identifier: GPL-2.0
/*
 * Path health for multipath RPC clients.
 *
 * Each transport of a multipath client is a path to one remote endpoint,
 * bound to one local endpoint.  A monitor per client watches them:
 *
 *  - at creation, every path gets a NULL call at once, and the client is
 *    usable as soon as one answered;
 *  - a path is declared down when the carrier of its local device goes,
 *    or when it carries requests but nothing came back for its stall
 *    time and a NULL call then got no answer within its ping time.  Both
 *    are four of the path's usual gaps between replies, at most
 *    path_timeout, and at least a fifth (stall) or three fifths (ping)
 *    of it:
 *    a path that answers fast is given up on fast, a slow link keeps the
 *    long timeouts.  When no other path was heard from either, the other
 *    paths are pinged too; while none answers, the server is slow or gone,
 *    not the path, which then has eight path_timeout.  Idle paths get
 *    a NULL call every path_heartbeat;
 *  - a path that is down goes offline, so the round-robin iterator skips
 *    it, the requests waiting to be sent or for a slot on it are woken to
 *    start over on a path that is up, and its connection is broken unless
 *    a request that may not move went out on it: the requests it carried
 *    may then start over too, as far as clnt.c lets them (see
 *    rpc_task_move()).  The last path that is up never goes offline:
 *    requests wait on it, as on any hard mount, until a path answers;
 *  - a path that is down is probed with back-off, RPC_PATH_PROBE_MIN_DELAY
 *    doubling up to RPC_PATH_PROBE_MAX_DELAY, or at once when its local
 *    device comes back, and goes online again when it answers within
 *    path_timeout, on a connection that was there when it was asked.
 *
 * Each ping holds a reference on the monitor, so that a ping that ends
 * after the monitor was stopped, a killed mount among them, finds it.
 */

#include <linux/inetdevice.h>
#include <linux/kref.h>
#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/netdevice.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <net/ipv6_stubs.h>

#include <linux/sunrpc/clnt.h>
#include <linux/sunrpc/sched.h>
#include <linux/sunrpc/xprt.h>
#include <linux/sunrpc/xprtmultipath.h>
#include <linux/sunrpc/clnt_endpoints.h>

#include "sunrpc.h"

#define CREATE_TRACE_POINTS
#include <trace/events/rpc_path.h>

/* The two knobs an admin may need.  path_timeout bounds both waits of a
 * busy path: for a reply before it is pinged, and for the ping's answer;
 * links slow or congested enough for a reply to take longer need it
 * raised.  path_heartbeat is how long an idle path may stay silent; sites
 * with many idle mounts may want fewer pings, or none.
 */
#define RPC_PATH_TIMEOUT_MIN	10	/* ms: a few ticks */
#define RPC_PATH_TIMEOUT_MAX	60000
#define RPC_PATH_HEARTBEAT_MAX	3600	/* s */

static int rpc_path_param_set(const char *val, const struct kernel_param *kp,
			      unsigned int min, unsigned int max)
{
	int ret = param_set_uint_minmax(val, kp, min, max);

	if (ret)
		pr_warn("RPC: %s=%.*s: not a number from %u to %u\n",
			kp->name, (int)strcspn(val, "\n"), val, min, max);
	return ret;
}

static int rpc_path_timeout_set(const char *val, const struct kernel_param *kp)
{
	return rpc_path_param_set(val, kp, RPC_PATH_TIMEOUT_MIN,
				  RPC_PATH_TIMEOUT_MAX);
}

static int rpc_path_heartbeat_set(const char *val,
				  const struct kernel_param *kp)
{
	return rpc_path_param_set(val, kp, 0, RPC_PATH_HEARTBEAT_MAX);
}

static const struct kernel_param_ops rpc_path_timeout_ops = {
	.set = rpc_path_timeout_set,
	.get = param_get_uint,
};

static const struct kernel_param_ops rpc_path_heartbeat_ops = {
	.set = rpc_path_heartbeat_set,
	.get = param_get_uint,
};

static unsigned int rpc_path_timeout = 500;
module_param_cb(path_timeout, &rpc_path_timeout_ops, &rpc_path_timeout, 0644);
MODULE_PARM_DESC(path_timeout,
		 "Longest wait of a busy path for a reply before it is pinged, and for the answer, ms, 10 to 60000 (default 500)");

static unsigned int rpc_path_heartbeat = 5;
module_param_cb(path_heartbeat, &rpc_path_heartbeat_ops, &rpc_path_heartbeat,
		0644);
MODULE_PARM_DESC(path_heartbeat,
		 "Seconds between pings of an idle path, 0 for none, at most 3600 (default 5)");

/* What learning may shorten the two waits to, in fifths of path_timeout:
 * 100 and 300 ms by default
 */
#define RPC_PATH_STALL_MIN	1
#define RPC_PATH_PING_MIN	3

/* The back-off between probes of a dead path, seconds: 1, then 2.  The
 * longest keeps a rejoin after a server-side outage under five seconds.
 */
#define RPC_PATH_PROBE_MIN_DELAY	1
#define RPC_PATH_PROBE_MAX_DELAY	2

/* How often the monitor looks while paths are busy or down, and otherwise */
#define RPC_PATH_TICK_FAST	(HZ / 10)
#define RPC_PATH_TICK_SLOW	HZ

/* A probe of a dead path may take this many ping timeouts: it connects */
#define RPC_PATH_PROBE_PINGS	4

/* A ping unanswered while no other path was heard from either points at
 * a slow server, not at this path: it is down only after this many ping
 * timeouts.
 */
#define RPC_PATH_SILENT_PINGS	8

/* A busy path is pinged after this many of its usual gaps between replies
 * went by without one, and has as many to answer
 */
#define RPC_PATH_GAPS		4

/* The gap a path starts with, and the largest one it learns, in us */
#define RPC_PATH_GAP_MAX	(10 * USEC_PER_SEC)

struct rpc_path_monitor;

struct rpc_path {
	struct rpc_path_monitor	*mon;
	struct rpc_xprt		*xprt;		/* NULL once sysfs removed it */
	struct sockaddr_storage	src;		/* bound source, or AF_UNSPEC */
	struct rpc_task		*ping;		/* the NULL call, until reaped */
	bool			pinging;	/* a NULL call is not reaped */
	int			ping_status;	/* once ping_done */
	bool			ping_done;
	bool			ping_connected;	/* when it left */
	unsigned long		ping_sent;	/* jiffies */
	unsigned long		recvs;		/* xprt->stat.recvs last seen */
	unsigned long		heard;		/* jiffies of the last reply */
	unsigned int		gap;		/* between replies, us, average */
	unsigned long		busy_since;	/* jiffies */
	bool			busy;		/* at the last look */
	bool			asked;		/* peers pinged for this ping */
	unsigned long		next_probe;	/* jiffies, while down */
	unsigned int		backoff;	/* seconds */
	bool			offlined;	/* offline by us, not by sysfs */
	bool			fenced;		/* connection broken since */
	bool			carrier;	/* of the local device */
	bool			carrier_back;	/* since the look before */
};

struct rpc_path_monitor {
	struct kref		ref;		/* the owner's, and each ping's */
	struct delayed_work	work;
	struct mutex		lock;		/* the paths, against stop */
	spinlock_t		work_lock;	/* running, against the pings */
	wait_queue_head_t	waitq;		/* pings ending, for creation */
	struct rpc_clnt		*clnt;
	struct net		*net;
	bool			running;	/* ticks are on */
	bool			stopping;
	unsigned int		n;
	struct rpc_path		paths[] __counted_by(n);
};

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

static unsigned int rpc_path_state(const struct rpc_path *p)
{
	if (!p->xprt)
		return RPC_PATH_DOWN;
	return READ_ONCE(p->xprt->health.state);
}

static void rpc_path_set_state(struct rpc_path *p, unsigned int state,
			       const char *why)
{
	struct rpc_xprt_health *h = &p->xprt->health;
	unsigned int old = READ_ONCE(h->state);

	if (old == state)
		return;
	trace_rpc_path_state(p->xprt, old, state, why);
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
	}
	return -EINVAL;
}

static const char *rpc_xprt_state_name(struct rpc_xprt *xprt)
{
	if (test_bit(XPRT_OFFLINE, &xprt->state))
		return "offline";
	if (xprt_connected(xprt))
		return "connected";
	if (xprt_connecting(xprt))
		return "connecting";
	return "idle";
}

static int rpc_show_one_endpoint(struct rpc_clnt *clnt, struct rpc_xprt *xprt,
				 void *data)
{
	struct seq_file *seq = data;
	char src[INET6_ADDRSTRLEN + 8] = "*";

	if (xprt_connected(xprt) && xprt->ops->get_srcaddr &&
	    xprt->ops->get_srcaddr(xprt, src, sizeof(src)) < 0)
		strscpy(src, "*", sizeof(src));
	seq_printf(seq,
		   "\tendpoint:\t%d %s %s -> %s port %s %s path %s downs %ld moved %ld\n",
		   xprt->id, xprt->address_strings[RPC_DISPLAY_NETID], src,
		   xprt->address_strings[RPC_DISPLAY_ADDR],
		   xprt->address_strings[RPC_DISPLAY_PORT],
		   rpc_xprt_state_name(xprt),
		   rpc_path_state_name(READ_ONCE(xprt->health.state)),
		   atomic_long_read(&xprt->health.downs),
		   atomic_long_read(&xprt->health.moved));
	return 0;
}

static bool rpc_clnt_is_multipath(struct rpc_clnt *clnt)
{
	struct rpc_xprt *xprt;
	bool ret;

	rcu_read_lock();
	xprt = rcu_dereference(clnt->cl_xprt);
	ret = xprt && xprt->multipath;
	rcu_read_unlock();
	return ret;
}

/* The iterator of rpc_clnt_iterate_for_each_xprt() skips offline ones */
static void rpc_show_offline_endpoints(struct rpc_clnt *clnt,
				       struct seq_file *seq)
{
	struct rpc_xprt_switch *xps = rpc_clnt_xprt_switch_get(clnt);
	struct rpc_xprt_iter xpi;
	struct rpc_xprt *xprt;

	if (!xps)
		return;
	xprt_iter_init_listoffline(&xpi, xps);
	xprt_switch_put(xps);
	while ((xprt = xprt_iter_get_next(&xpi))) {
		rpc_show_one_endpoint(clnt, xprt, seq);
		xprt_put(xprt);
	}
	xprt_iter_destroy(&xpi);
}

/**
 * rpc_clnt_show_endpoints - show the local -> remote pair of each transport
 * @seq: output, e.g. /proc/self/mountstats
 * @clnt: client whose transports to show
 *
 * For a multipath client, one "endpoint:" line per transport, the active
 * ones first: the transport's id (as in sysfs), netid, source address (or
 * "*" while not connected), remote address, port, transport state, and the
 * path health: state, how often the path went down, and how many requests
 * moved away from it.
 * Other clients show nothing.
 */
void rpc_clnt_show_endpoints(struct seq_file *seq, struct rpc_clnt *clnt)
{
	if (!rpc_clnt_is_multipath(clnt))
		return;
	rpc_clnt_iterate_for_each_xprt(clnt, rpc_show_one_endpoint, seq);
	rpc_show_offline_endpoints(clnt, seq);
}
EXPORT_SYMBOL_GPL(rpc_clnt_show_endpoints);

/* The monitor
 */

static void rpc_path_monitor_release(struct kref *ref)
{
	struct rpc_path_monitor *mon = container_of(ref, struct rpc_path_monitor,
						    ref);
	unsigned int i;

	cancel_delayed_work_sync(&mon->work);
	for (i = 0; i < mon->n; i++)
		xprt_put(mon->paths[i].xprt);
	kfree(mon);
}

static void rpc_path_monitor_put(struct rpc_path_monitor *mon)
{
	kref_put(&mon->ref, rpc_path_monitor_release);
}

/* A look at the paths, now or after @delay, unless the monitor stopped */
static void rpc_path_monitor_kick(struct rpc_path_monitor *mon,
				  unsigned long delay)
{
	spin_lock(&mon->work_lock);
	if (mon->running)
		mod_delayed_work(xprtiod_workqueue, &mon->work, delay);
	spin_unlock(&mon->work_lock);
}

/* Pings
 */

static void rpc_path_enc_void(struct rpc_rqst *req, struct xdr_stream *xdr,
			      const void *obj)
{
}

static int rpc_path_dec_void(struct rpc_rqst *req, struct xdr_stream *xdr,
			     void *obj)
{
	return 0;
}

static const struct rpc_procinfo rpc_path_null = {
	.p_encode	= rpc_path_enc_void,
	.p_decode	= rpc_path_dec_void,
	.p_name		= "NULL",
};

/* The task is still active when its rpc_call_done runs: the monitor learns
 * that a ping ended from here, not from RPC_IS_ACTIVATED().
 */
static void rpc_path_ping_done(struct rpc_task *task, void *data)
{
	struct rpc_path *p = data;
	struct rpc_path_monitor *mon = p->mon;

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

static void rpc_path_ping(struct rpc_path *p)
{
	struct rpc_message msg = { .rpc_proc = &rpc_path_null };
	struct rpc_task_setup setup = {
		.rpc_client	= p->mon->clnt,
		.rpc_xprt	= p->xprt,
		.rpc_message	= &msg,
		.callback_ops	= &rpc_path_ping_ops,
		.callback_data	= p,
		.flags		= RPC_TASK_ASYNC | RPC_TASK_SOFT |
				  RPC_TASK_SOFTCONN | RPC_TASK_NULLCREDS |
				  RPC_TASK_NO_ROUND_ROBIN,
	};
	struct rpc_task *task;

	p->pinging = true;
	p->ping_done = false;
	p->asked = false;
	p->ping_sent = jiffies;
	p->ping_connected = xprt_connected(p->xprt);
	kref_get(&p->mon->ref);
	task = rpc_run_task(&setup);
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

static bool rpc_path_ping_ended(const struct rpc_path *p)
{
	/* Pairs with rpc_path_ping_done(): done, then a final status */
	return p->pinging && smp_load_acquire(&p->ping_done);
}

/* End a ping in flight; it is reaped once it ended */
static void rpc_path_ping_cancel(struct rpc_path *p)
{
	if (p->ping && !rpc_path_ping_ended(p))
		rpc_signal_task(p->ping);
}

/* The status of a ping that ended, which is then forgotten */
static int rpc_path_ping_reap(struct rpc_path *p)
{
	if (p->ping)
		rpc_put_task(p->ping);
	p->ping = NULL;
	p->pinging = false;
	return p->ping_status;
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

/* Offline and online
 */

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

static bool rpc_path_online(const struct rpc_path *p)
{
	return !test_bit(XPRT_OFFLINE, &p->xprt->state);
}

/* Wake the requests that wait on @p for their turn to be sent, those
 * that wait for a slot, and, once its connection is gone, those that wait
 * for the connect: nothing on ->pending then waits for a reply.  They
 * start over on a path that is up, as far as rpc_task_move() lets them.
 * -EAGAIN, so that one that stays retries as it would have.
 */
static void rpc_path_kick(struct rpc_path *p)
{
	struct rpc_xprt *xprt = p->xprt;

	if (READ_ONCE(xprt->sending.qlen))
		rpc_wake_up_status(&xprt->sending, -EAGAIN);
	if (READ_ONCE(xprt->backlog.qlen))
		rpc_wake_up_status(&xprt->backlog, -EAGAIN);
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

static bool rpc_path_another_up(struct rpc_path_monitor *mon,
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
static void rpc_path_drain(struct rpc_path *p)
{
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

/* The next probe of a dead path: the back-off after @from, which is when
 * the path went down or when the last probe started.  Probes start that
 * far apart, however long the unanswered one took (a connect that runs
 * into its timeout).
 */
static void rpc_path_backoff(struct rpc_path *p, bool reset,
			     unsigned long from)
{
	if (reset || !p->backoff)
		p->backoff = RPC_PATH_PROBE_MIN_DELAY;
	else
		p->backoff = min(p->backoff * 2, RPC_PATH_PROBE_MAX_DELAY);
	p->next_probe = from + p->backoff * HZ;
}

static void rpc_path_down(struct rpc_path *p, const char *why)
{
	rpc_path_set_state(p, RPC_PATH_DOWN, why);
	rpc_path_backoff(p, true, jiffies);
	rpc_path_drain(p);
}

static void rpc_path_up(struct rpc_path *p, const char *why)
{
	unsigned int i;

	p->heard = jiffies;
	if (rpc_path_state(p) == RPC_PATH_UP)
		return;
	rpc_path_set_state(p, RPC_PATH_UP, why);
	p->fenced = false;
	if (p->offlined)
		rpc_path_set_offline(p, false);
	/* A path that stayed online as the last one up can go offline now */
	for (i = 0; i < p->mon->n; i++) {
		struct rpc_path *q = &p->mon->paths[i];

		if (q->xprt && rpc_path_state(q) != RPC_PATH_UP &&
		    rpc_path_online(q))
			rpc_path_drain(q);
	}
}

/* Carrier of the local device a path is bound to.  A source address that
 * no device has any more counts as no carrier.
 */
static bool rpc_path_carrier(const struct rpc_path *p)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)&p->src;
	struct net_device *dev = NULL;
	bool up;

	rcu_read_lock();
	switch (p->src.ss_family) {
	case AF_INET:
		dev = __ip_dev_find(p->mon->net, sin->sin_addr.s_addr, false);
		break;
#if IS_ENABLED(CONFIG_IPV6)
	case AF_INET6: {
		const struct sockaddr_in6 *sin6 =
			(const struct sockaddr_in6 *)&p->src;

		/* Through the stub: sunrpc.ko does not need ipv6.ko */
		dev = ipv6_stub->ipv6_dev_find(p->mon->net, &sin6->sin6_addr,
					       NULL);
		if (IS_ERR(dev))
			dev = NULL;
		break;
	}
#endif
	default:
		rcu_read_unlock();
		return true;
	}
	up = dev && netif_running(dev) && netif_carrier_ok(dev);
	rcu_read_unlock();
	return up;
}

/* Requests wait for a reply, or for their turn to be sent */
static bool rpc_xprt_busy(struct rpc_xprt *xprt)
{
	return !RB_EMPTY_ROOT(&xprt->recv_queue) ||
	       !list_empty(&xprt->xmit_queue);
}

/* Was another path that is up heard from since @since? */
static bool rpc_path_another_heard(const struct rpc_path *self,
				   unsigned long since)
{
	const struct rpc_path_monitor *mon = self->mon;
	unsigned int i;

	for (i = 0; i < mon->n; i++) {
		const struct rpc_path *p = &mon->paths[i];

		if (p != self && p->xprt && rpc_path_state(p) == RPC_PATH_UP &&
		    time_after_eq(p->heard, since))
			return true;
	}
	return false;
}

/* path_timeout in jiffies: at least one, since it is at least 10 ms */
static unsigned long rpc_path_timeout_jiffies(void)
{
	return msecs_to_jiffies(READ_ONCE(rpc_path_timeout));
}

/* A time limit of @p: RPC_PATH_GAPS of its gaps between replies, from
 * @fifths fifths of path_timeout up to all of it
 */
static unsigned long rpc_path_limit(const struct rpc_path *p,
				    unsigned int fifths)
{
	unsigned long gaps = usecs_to_jiffies(RPC_PATH_GAPS * p->gap);
	unsigned long max = rpc_path_timeout_jiffies();

	return clamp(gaps, max * fifths / 5, max);
}

/* @replies came back on @p since the last look, when it was busy: since
 * the last reply, or since it became busy if that was later
 */
static void rpc_path_learn_gap(struct rpc_path *p, unsigned long now,
			       unsigned long replies)
{
	unsigned long since = time_after(p->busy_since, p->heard) ?
			      p->busy_since : p->heard;
	unsigned long j = min(now - since, usecs_to_jiffies(RPC_PATH_GAP_MAX));
	unsigned int us = jiffies_to_usecs(j) / replies;

	p->gap = (3 * p->gap + us) / 4;
}

/* Since when the ping in flight on an up path waits for an answer.  Any
 * reply is as good as its answer; but the ping itself may be stuck behind
 * requests the path will never answer, so after a reply it counts from
 * when a new ping would have left, a stall time later.
 */
static unsigned long rpc_path_ping_since(const struct rpc_path *p)
{
	if (time_before(p->heard, p->ping_sent))
		return p->ping_sent;
	return p->heard + rpc_path_limit(p, RPC_PATH_STALL_MIN);
}

/* When the ping in flight on an up path has had its time */
static unsigned long rpc_path_ping_deadline(const struct rpc_path *p)
{
	return rpc_path_ping_since(p) +
	       rpc_path_limit(p, RPC_PATH_PING_MIN);
}

static bool rpc_path_ping_late(const struct rpc_path *p, unsigned long now)
{
	return time_after(now, rpc_path_ping_deadline(p));
}

/* Did the ping in flight on an up path go unanswered?  Only if another
 * path answered after this one's time ran out: a server that stalled for
 * a moment answered nobody then, and answers every path when it goes on.
 * When every path is silent, the server is slow or gone, and declaring
 * paths dead one by one would only churn: give them longer.
 */
static bool rpc_path_ping_lost(const struct rpc_path *p, unsigned long now)
{
	unsigned long silent = RPC_PATH_SILENT_PINGS *
			       rpc_path_timeout_jiffies();
	unsigned long deadline = rpc_path_ping_deadline(p);

	if (!time_after(now, deadline))
		return false;
	return rpc_path_another_heard(p, deadline) ||
	       time_after(now, rpc_path_ping_since(p) + silent);
}

/* A late ping, and no other path heard from since it left: ping the
 * other paths that are up, so that their answers tell a dead path from a
 * slow server.
 */
static void rpc_path_ask_peers(struct rpc_path *p)
{
	struct rpc_path_monitor *mon = p->mon;
	unsigned int i;

	p->asked = true;
	for (i = 0; i < mon->n; i++) {
		struct rpc_path *q = &mon->paths[i];

		if (q != p && q->xprt && !q->pinging &&
		    rpc_path_state(q) == RPC_PATH_UP && rpc_path_online(q))
			rpc_path_ping(q);
	}
}

/* A path that is up: is it still?  True while it needs fast ticks. */
static bool rpc_path_check_up(struct rpc_path *p, unsigned long now)
{
	unsigned long stall = rpc_path_limit(p, RPC_PATH_STALL_MIN);
	bool busy = p->busy;

	if (!p->carrier) {
		rpc_path_down(p, "no carrier");
		return true;
	}
	if (p->pinging) {
		if (rpc_path_ping_lost(p, now)) {
			rpc_path_ping_cancel(p);
			rpc_path_down(p, "no answer to a ping");
		} else if (!p->asked && rpc_path_ping_late(p, now)) {
			rpc_path_ask_peers(p);
		}
		return true;
	}
	if (busy && time_after(now, p->heard + stall)) {
		rpc_path_ping(p);
		return true;
	}
	if (rpc_path_heartbeat &&
	    time_after(now, p->heard + rpc_path_heartbeat * HZ))
		rpc_path_ping(p);
	return busy;
}

/* A path that is down or probing: time for a probe? */
static void rpc_path_check_down(struct rpc_path *p, unsigned long now,
				bool carrier_back)
{
	unsigned long wait = rpc_path_timeout_jiffies();

	if (p->pinging) {
		if (time_after(now, p->ping_sent + RPC_PATH_PROBE_PINGS * wait))
			rpc_path_ping_cancel(p);
		return;
	}
	if (!p->carrier)
		return;
	if (!carrier_back && time_before(now, p->next_probe))
		return;
	/* The monitor paces reconnects of a dead path, not the transport */
	WRITE_ONCE(p->xprt->reestablish_timeout, 0);
	rpc_path_set_state(p, RPC_PATH_PROBING, carrier_back ?
			   "carrier back" : "probe");
	rpc_path_ping(p);
}

/* The answer to a probe.  A path rejoins only when it answers as a path
 * that is up must: within path_timeout, on a connection that was
 * there when it was asked.  A probe that had to connect first is followed
 * by one that must.
 */
static void rpc_path_probe_result(struct rpc_path *p, int status,
				  unsigned long took, bool connected)
{
	const char *why = "no answer to a probe";

	if (!status) {
		if (!connected) {
			rpc_path_ping(p);
			return;
		}
		if (took <= rpc_path_timeout_jiffies()) {
			rpc_path_up(p, "answered");
			return;
		}
		why = "answered too late";
	}
	rpc_path_set_state(p, RPC_PATH_DOWN, why);
	rpc_path_backoff(p, false, p->ping_sent);
	/* The probe may have connected it: break that connection too */
	p->fenced = false;
}

/* The answer to a ping that ended */
static void rpc_path_ping_result(struct rpc_path *p)
{
	unsigned long took = jiffies - p->ping_sent;
	bool connected = p->ping_connected;
	int status = rpc_path_ping_reap(p);

	switch (rpc_path_state(p)) {
	case RPC_PATH_UP:
		if (!status)
			rpc_path_up(p, "answered");
		/* Timed out pings were signalled and handled already */
		else if (status != -ERESTARTSYS && status != -EINTR)
			rpc_path_down(p, "ping failed");
		break;
	case RPC_PATH_PROBING:
		rpc_path_probe_result(p, status, took, connected);
		break;
	}
}

/* A path sysfs removed is forgotten, so that it can go */
static void rpc_path_forget(struct rpc_path *p)
{
	rpc_path_ping_cancel(p);
	if (rpc_path_ping_ended(p))
		rpc_path_ping_reap(p);
	if (p->pinging)
		return;
	xprt_put(p->xprt);
	p->xprt = NULL;
}

/* What a look sees of a path, taken for every path before any is judged:
 * whether another path answered lately must not depend on their order.
 */
static void rpc_path_sample(struct rpc_path *p, unsigned long now)
{
	unsigned long recvs = READ_ONCE(p->xprt->stat.recvs);
	bool busy = rpc_xprt_busy(p->xprt);
	bool carrier = rpc_path_carrier(p);

	p->carrier_back = carrier && !p->carrier;
	p->carrier = carrier;
	if (recvs != p->recvs) {
		if (p->busy)
			rpc_path_learn_gap(p, now, recvs - p->recvs);
		p->recvs = recvs;
		p->heard = now;
	}
	if (busy && !p->busy)
		p->busy_since = now;
	p->busy = busy;
}

/* A path that sysfs removed, or none: nothing to look at */
static bool rpc_path_gone(const struct rpc_path *p)
{
	return !p->xprt || test_bit(XPRT_REMOVE, &p->xprt->state);
}

/* One look at a path: true while it needs fast ticks */
static bool rpc_path_check(struct rpc_path *p, unsigned long now)
{
	if (!p->xprt)
		return false;
	if (test_bit(XPRT_REMOVE, &p->xprt->state)) {
		rpc_path_forget(p);
		return !!p->xprt;
	}
	if (rpc_path_ping_ended(p))
		rpc_path_ping_result(p);
	if (rpc_path_state(p) == RPC_PATH_UP)
		return rpc_path_check_up(p, now);
	rpc_path_check_down(p, now, p->carrier_back);
	rpc_path_drain(p);
	return true;
}

static void rpc_path_monitor_work(struct work_struct *work)
{
	struct rpc_path_monitor *mon = container_of(to_delayed_work(work),
						    struct rpc_path_monitor,
						    work);
	unsigned int noio, i;
	unsigned long now;
	bool fast = false;

	/* Writeback may wait for this: no allocation may wait for it */
	noio = memalloc_noio_save();
	mutex_lock(&mon->lock);
	if (!mon->stopping) {
		now = jiffies;
		for (i = 0; i < mon->n; i++)
			if (!rpc_path_gone(&mon->paths[i]))
				rpc_path_sample(&mon->paths[i], now);
		for (i = 0; i < mon->n; i++)
			fast |= rpc_path_check(&mon->paths[i], now);
		rpc_path_monitor_kick(mon, fast ? RPC_PATH_TICK_FAST :
						  RPC_PATH_TICK_SLOW);
	}
	mutex_unlock(&mon->lock);
	memalloc_noio_restore(noio);
}

/* Creation
 */

struct rpc_path_collect {
	struct rpc_path_monitor		*mon;
	const struct rpc_endpoint_config *cfg;
	unsigned int			max;
};

static int rpc_path_collect(struct rpc_clnt *clnt, struct rpc_xprt *xprt,
			    void *data)
{
	struct rpc_path_collect *c = data;
	struct rpc_path_monitor *mon = c->mon;
	struct rpc_endpoint_addrs addrs;
	struct xprt_create args = {
		.dstaddr	= (struct sockaddr *)&xprt->addr,
	};
	struct rpc_path *p;

	if (mon->n == c->max)
		return -E2BIG;
	p = &mon->paths[mon->n];
	/* Transports are in the order rpc_create() placed them */
	rpc_endpoints_xprt_args(c->cfg, mon->n, &args, &addrs);
	mon->n++;
	p->mon = mon;
	p->xprt = xprt_get(xprt);
	p->carrier = true;
	/* Nothing was sent on it before it answered once */
	p->fenced = true;
	p->gap = RPC_PATH_GAP_MAX;
	/* The monitor probes a dead path every RPC_PATH_PROBE_MAX_DELAY at
	 * most: the transport's own reconnect back-off must not hold the
	 * transport locked for longer than that.
	 */
	if (xprt->ops->set_connect_timeout)
		xprt->ops->set_connect_timeout(xprt, xprt->connect_timeout,
				RPC_PATH_PROBE_MAX_DELAY * HZ);
	if (args.srcaddr)
		memcpy(&p->src, args.srcaddr, sizeof(p->src));
	return 0;
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
		if (!p->pinging) {
			rpc_path_set_state(p, RPC_PATH_DOWN, "no answer");
			rpc_path_backoff(p, true, jiffies);
		}
		rpc_path_drain(p);
	}
	return 0;
}

/**
 * rpc_path_monitor_start - find the working paths of a new client, and watch
 * @clnt: a multipath client whose transports are all added
 * @cfg: the endpoint configuration @clnt was created with
 * @max: the most transports @clnt may have
 * @monp: set to the monitor, which rpc_path_monitor_stop() ends
 *
 * Sends a NULL call down every transport at once and waits until one
 * answered, or all failed.  Transports that have not answered stay
 * offline until they do; from then on the monitor watches all of them.
 *
 * Return: 0 when a path answered.  Otherwise, or when a server refused the
 * program or version, an error from the pings, or -EINTR.
 */
int rpc_path_monitor_start(struct rpc_clnt *clnt,
			   const struct rpc_endpoint_config *cfg,
			   unsigned int max, struct rpc_path_monitor **monp)
{
	struct rpc_path_collect c = { .cfg = cfg, .max = max };
	struct rpc_path_monitor *mon;
	unsigned int i;
	int ret;

	*monp = NULL;
	mon = kzalloc(struct_size(mon, paths, max), GFP_KERNEL);
	if (!mon)
		return -ENOMEM;
	kref_init(&mon->ref);
	INIT_DELAYED_WORK(&mon->work, rpc_path_monitor_work);
	mutex_init(&mon->lock);
	spin_lock_init(&mon->work_lock);
	init_waitqueue_head(&mon->waitq);
	mon->clnt = clnt;
	mon->net = rpc_net_ns(clnt);
	c.mon = mon;
	ret = rpc_clnt_iterate_for_each_xprt(clnt, rpc_path_collect, &c);
	if (ret)
		goto out_stop;

	mutex_lock(&mon->lock);
	for (i = 0; i < mon->n; i++) {
		mon->paths[i].heard = jiffies;
		rpc_path_set_state(&mon->paths[i], RPC_PATH_PROBING, "created");
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
