// SPDX-License-Identifier: GPL-2.0
/*
 * Judging the paths of a multipath RPC client, one look at a time.
 *
 *  - a path is declared down when the carrier of its local device goes,
 *    when its transport says that device went away (rpc_xprt_local_gone),
 *    or when it carries requests but nothing came back for its stall
 *    time and a NULL call then got no answer within its ping time.  Both
 *    are four of the path's usual gaps between replies, at most
 *    path_timeout, and at least a fifth (stall) or three fifths (ping)
 *    of it: a path that answers fast is given up on fast, a slow link
 *    keeps the long timeouts.  A ping gets at least as long as the
 *    transport takes to resend a lost packet, and a fifth of
 *    path_timeout, up to twice path_timeout: a lost packet is no dead
 *    path.  When no other path was heard from either, the other paths
 *    are pinged too; while none answers, the server is slow or gone, not
 *    the path, which then has eight path_timeout.  Idle paths get a NULL
 *    call every path_heartbeat;
 *  - a path that is down is probed with back-off, RPC_PATH_PROBE_MIN_DELAY
 *    doubling up to RPC_PATH_PROBE_MAX_DELAY, or at once when its local
 *    device comes back or a transport saw a device come
 *    (rpc_xprt_local_added), and comes up again when it answers within
 *    path_timeout, on a connection that was there when it was asked.
 */

#include <linux/inetdevice.h>
#include <linux/lockdep.h>
#include <linux/moduleparam.h>
#include <linux/netdevice.h>
#include <net/ipv6_stubs.h>

#include <linux/sunrpc/clnt.h>
#include <linux/sunrpc/xprt.h>

#include "path_monitor.h"

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
		 "Longest wait of a busy path for a reply before it is pinged, and for the answer (longer for a transport whose lost packets take longer to resend), ms, 10 to 60000 (default 500)");

static unsigned int rpc_path_heartbeat = 5;
module_param_cb(path_heartbeat, &rpc_path_heartbeat_ops, &rpc_path_heartbeat,
		0644);
MODULE_PARM_DESC(path_heartbeat,
		 "Seconds between pings of an idle path, 0 for none, at most 3600 (default 5)");

/* The back-off between probes of a dead path, seconds: 1, then 2.  The
 * longest keeps a rejoin after a server-side outage under five seconds.
 */
#define RPC_PATH_PROBE_MIN_DELAY	1
#define RPC_PATH_PROBE_MAX_DELAY	2

/* The gap a path starts with, and the largest one it learns, in us */
#define RPC_PATH_GAP_MAX	(10 * USEC_PER_SEC)

/* What learning may shorten the two waits to, in fifths of path_timeout:
 * 100 and 300 ms by default
 */
#define RPC_PATH_STALL_MIN	1
#define RPC_PATH_PING_MIN	3

/* The longest ping time that a transport's resend time may ask for, in
 * path_timeout: a fabric whose packet lifetime makes resends slower still
 * needs path_timeout raised.
 */
#define RPC_PATH_RESEND_MAX	2

/* A probe of a dead path may take this many ping timeouts: it connects */
#define RPC_PATH_PROBE_PINGS	4

/* ... and longer while the transport's connect worker still owns it, up
 * to this long: more than a multipath RPC/RDMA connect may take (two
 * resolutions of 5 s, and 3 s for the peer's answer)
 */
#define RPC_PATH_PROBE_CONNECT_MAX	(15 * HZ)

/* A ping unanswered while no other path was heard from either points at
 * a slow server, not at this path: it is down only after this many ping
 * timeouts.
 */
#define RPC_PATH_SILENT_PINGS	8

/* A busy path is pinged after this many of its usual gaps between replies
 * went by without one, and has as many to answer
 */
#define RPC_PATH_GAPS		4

/* A path that was busy at a look in this time, or got more than one
 * reply between two looks, keeps the ticks fast.  A load with pauses (a
 * capped rate, bursts) leaves a path idle at most looks; a slow tick then
 * would let the next request go out on a dead path unseen for up to a
 * second.
 */
#define RPC_PATH_BUSY_LINGER	(2 * HZ)

/* A new path: its carrier is taken to be there, it starts from the
 * longest gap between replies, and with fast ticks.  The monitor probes a
 * dead path every RPC_PATH_PROBE_MAX_DELAY at most: the transport's own
 * reconnect back-off must not hold the transport locked for longer than
 * that.
 */
void rpc_path_detect_init(struct rpc_path *p)
{
	struct rpc_xprt *xprt = p->xprt;

	p->carrier = true;
	p->local_gone = atomic_read(&xprt->health.local_gone);
	p->gap = RPC_PATH_GAP_MAX;
	p->busy_last = jiffies;
	if (xprt->ops->set_connect_timeout)
		xprt->ops->set_connect_timeout(xprt, xprt->connect_timeout,
				RPC_PATH_PROBE_MAX_DELAY * HZ);
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

/* Declare @p dead, for @why: it leaves use and is probed after a back-off */
void rpc_path_down(struct rpc_path *p, const char *why)
{
	rpc_xprt_health_set(p->xprt, RPC_PATH_DOWN, why);
	rpc_path_backoff(p, true, jiffies);
	rpc_path_drain(p);
}

/* @p answered: it was heard from now, and rejoins if it was not up */
void rpc_path_up(struct rpc_path *p, const char *why)
{
	p->heard = jiffies;
	if (rpc_path_state(p) == RPC_PATH_UP)
		return;
	rpc_xprt_health_set(p->xprt, RPC_PATH_UP, why);
	rpc_path_rejoin(p);
}

/* Carrier of the local device a path is bound to.  A source address that
 * no device has any more counts as no carrier.
 */
static bool rpc_path_carrier(const struct rpc_path *p)
{
	const struct sockaddr_storage *src = &p->xprt->bindaddr;
	const struct sockaddr_in *sin = (const struct sockaddr_in *)src;
	struct net_device *dev = NULL;
	bool up;

	rcu_read_lock();
	switch (src->ss_family) {
	case AF_INET:
		dev = __ip_dev_find(p->mon->net, sin->sin_addr.s_addr, false);
		break;
#if IS_ENABLED(CONFIG_IPV6)
	case AF_INET6: {
		const struct sockaddr_in6 *sin6 =
			(const struct sockaddr_in6 *)src;

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
 * @min up to path_timeout (or @min, if that is longer)
 */
static unsigned long rpc_path_limit(const struct rpc_path *p,
				    unsigned long min)
{
	unsigned long gaps = usecs_to_jiffies(RPC_PATH_GAPS * p->gap);

	return clamp(gaps, min, max(min, rpc_path_timeout_jiffies()));
}

/* The stall time of @p: at least RPC_PATH_STALL_MIN fifths of path_timeout */
static unsigned long rpc_path_stall(const struct rpc_path *p)
{
	unsigned long timeout = rpc_path_timeout_jiffies();

	return rpc_path_limit(p, timeout * RPC_PATH_STALL_MIN / 5);
}

/* The ping time of @p.  At least RPC_PATH_PING_MIN fifths of path_timeout;
 * and a lost packet is no dead path: where the transport knows how long
 * its connection takes to resend one (the local ACK timeout of an RDMA
 * queue pair), at least that and a fifth of path_timeout, up to
 * RPC_PATH_RESEND_MAX path_timeout.  Over RoCE at the default
 * path_timeout that is 637 ms whatever the path's gaps.
 */
static unsigned long rpc_path_ping_time(const struct rpc_path *p)
{
	unsigned long timeout = rpc_path_timeout_jiffies();
	unsigned long lo = timeout * RPC_PATH_PING_MIN / 5;
	unsigned int resend = READ_ONCE(p->xprt->health.resend_ms);
	unsigned long need;

	if (resend) {
		need = msecs_to_jiffies(resend) + timeout / 5;
		lo = max(lo, min(need, RPC_PATH_RESEND_MAX * timeout));
	}
	return rpc_path_limit(p, lo);
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
	return p->heard + rpc_path_stall(p);
}

/* When the ping in flight on an up path has had its time */
static unsigned long rpc_path_ping_deadline(const struct rpc_path *p)
{
	return rpc_path_ping_since(p) + rpc_path_ping_time(p);
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
	unsigned long stall = rpc_path_stall(p);
	bool busy = p->busy;

	if (!p->carrier) {
		rpc_path_down(p, "no carrier");
		return true;
	}
	/* As for the carrier: a ping in flight is reaped when it ends */
	if (p->device_gone) {
		rpc_path_down(p, "device removed");
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
	return time_before(now, p->busy_last + RPC_PATH_BUSY_LINGER);
}

/* Is the connect worker of @xprt still at work?  It owns the send lock
 * (XPRT_SND_IS_COOKIE) from when the connect is queued until it ends: the
 * whole connect for RPC/RDMA, up to the SYN for TCP, and through the
 * handshake for TLS.  Cancelling the probe would not end it sooner, and
 * the probe's failure would break the connection it makes.
 */
static bool rpc_path_connect_running(const struct rpc_xprt *xprt)
{
	return test_bit(XPRT_CONNECTING, &xprt->state) &&
	       test_bit(XPRT_SND_IS_COOKIE, &xprt->state);
}

/* Has the probe of @p waited long enough?  RPC_PATH_PROBE_PINGS ping
 * timeouts, or a ping timeout (two looks at least) past the last look at
 * which its connect still ran: a path whose connects are slow, but which
 * then answers as fast as its peers, must not be given up on while its
 * connection is being made.
 */
static bool rpc_path_probe_overdue(struct rpc_path *p, unsigned long now)
{
	unsigned long wait = rpc_path_timeout_jiffies();
	unsigned long end = p->ping_sent + RPC_PATH_PROBE_PINGS * wait;

	if (rpc_path_connect_running(p->xprt) &&
	    time_before(now, p->ping_sent + RPC_PATH_PROBE_CONNECT_MAX))
		p->connect_ran = now;
	if (p->connect_ran != p->ping_sent) {
		wait = max_t(unsigned long, wait, HZ / 5);
		if (time_after(p->connect_ran + wait, end))
			end = p->connect_ran + wait;
	}
	return time_after(now, end);
}

/* A path that is down or probing: time for a probe?  @back says why one
 * is due at once (its device came back), or is NULL.
 */
static void rpc_path_check_down(struct rpc_path *p, unsigned long now,
				const char *back)
{
	if (p->pinging) {
		if (rpc_path_probe_overdue(p, now))
			rpc_path_ping_cancel(p);
		return;
	}
	if (!p->carrier)
		return;
	if (!back && time_before(now, p->next_probe))
		return;
	/* The monitor paces reconnects of a dead path, not the transport */
	WRITE_ONCE(p->xprt->reestablish_timeout, 0);
	rpc_xprt_health_set(p->xprt, RPC_PATH_PROBING, back ?: "probe");
	p->device_added = false;
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
	rpc_xprt_health_set(p->xprt, RPC_PATH_DOWN, why);
	rpc_path_backoff(p, false, p->ping_sent);
	/* The probe may have connected it: break that connection too */
	rpc_path_refence(p);
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

/* What a look sees of a path, taken for every path before any is judged:
 * whether another path answered lately must not depend on their order.
 */
void rpc_path_sample(struct rpc_path *p, unsigned long now)
{
	unsigned long recvs = READ_ONCE(p->xprt->stat.recvs);
	bool busy = rpc_xprt_busy(p->xprt);
	bool carrier = rpc_path_carrier(p);
	int gone = atomic_read(&p->xprt->health.local_gone);

	p->carrier_back = carrier && !p->carrier;
	p->carrier = carrier;
	p->device_gone = gone != p->local_gone;
	p->local_gone = gone;
	/* Until its next probe: a probe in flight may still have to end */
	if (p->mon->local_back)
		p->device_added = true;
	/* A light load is rarely busy at a look, but it leaves replies
	 * between looks; more than one, unlike an idle path's heartbeat
	 */
	if (busy || recvs - p->recvs > 1)
		p->busy_last = now;
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

/* One look at a path that is still there: true while it needs fast ticks */
bool rpc_path_check(struct rpc_path *p, unsigned long now)
{
	lockdep_assert_held(&p->mon->lock);
	if (rpc_path_ping_ended(p))
		rpc_path_ping_result(p);
	if (rpc_path_state(p) == RPC_PATH_UP) {
		p->device_added = false;
		return rpc_path_check_up(p, now);
	}
	rpc_path_check_down(p, now, p->carrier_back ? "carrier back" :
				    p->device_added ? "device added" : NULL);
	rpc_path_drain(p);
	return true;
}
