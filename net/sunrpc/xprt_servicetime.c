// SPDX-License-Identifier: GPL-2.0
/*
 * The service-time path policy: each request goes to the active transport
 * expected to complete it soonest.
 *
 * A transport's service time is how long one request kept it busy: from
 * the request's transmission, or from the reply before it when that came
 * later, to its own reply.  With requests queued on a path that is the
 * time between its replies, whatever its depth or latency, so it follows
 * the path's rate; on an idle path it is the round trip.  Device-mapper's
 * historical-service-time path selector measures a path the same way.
 * A running average, each reply weighing an eighth, follows a path that
 * speeds up or slows down.
 *
 * A new request would wait about (queued tasks + 1) times the service
 * time.  The paths expected to take no more than an eighth longer than
 * the soonest take turns, the first after the last pick winning: equal
 * paths then share requests evenly, as with round-robin.  Paths end up
 * with queues in proportion to their rates, and the requests sent
 * together complete together, which queue lengths alone do not give a
 * reader that waits for all of them.
 *
 * The estimate ages.  An idle path not timed yet, or whose last reply is
 * older than five seconds, counts as expected to take no time, so one
 * request probes it; a reply after such a pause starts the average over.
 * Until its first reply, a path holding requests counts as slower than
 * any timed one.  A probe costs a request's time on a path that may be
 * much slower: probing after one second, two streams of one request each
 * over 4:2:1:1 paths moved their data 15 % slower.
 *
 * NULL calls (the path monitor's pings) are not counted: their round trip
 * says nothing about how long a READ or a WRITE takes.  A reply that
 * completes after a later one was counted (RPC/RDMA completes some after
 * invalidating their memory) is not counted either.
 */

#include <linux/jiffies.h>
#include <linux/lockdep.h>
#include <linux/sunrpc/xprt.h>
#include <linux/sunrpc/xprtmultipath.h>

#include "xprt_queuedepth.h"
#include "xprt_servicetime.h"

/* An estimate older than this is stale */
#define RPC_SERVICE_STALE	(5 * HZ)
/* A reply weighs 2^-RPC_SERVICE_WEIGHT in the running average */
#define RPC_SERVICE_WEIGHT	3
/* Expected waits within 2^-RPC_SERVICE_SLACK of the soonest tie */
#define RPC_SERVICE_SLACK	3
/* The expected wait of a path holding requests but not timed yet */
#define RPC_SERVICE_UNKNOWN	(U64_MAX - 1)

static bool rpc_xprt_service_stale(const struct rpc_xprt *xprt,
				   unsigned long now)
{
	return time_after(now, READ_ONCE(xprt->service_stamp) +
			       RPC_SERVICE_STALE);
}

/**
 * rpc_xprt_record_service - account the reply to a request
 * @xprt: the transport the reply came in on
 * @sent: when the request was last transmitted
 * @rtt: how long the reply took from then
 *
 * Caller holds @xprt->queue_lock, which orders the replies of @xprt.
 */
void rpc_xprt_record_service(struct rpc_xprt *xprt, ktime_t sent,
			     ktime_t rtt)
{
	ktime_t now = ktime_add(sent, rtt);
	unsigned long stamp = jiffies;
	unsigned int avg;
	ktime_t start;
	u64 ns;

	lockdep_assert_held(&xprt->queue_lock);
	start = ktime_after(xprt->service_last, sent) ? xprt->service_last :
							 sent;
	avg = xprt->service_ns;
	if (!ktime_after(now, start))
		return;
	ns = min_t(u64, ktime_to_ns(ktime_sub(now, start)), UINT_MAX);
	if (avg && !rpc_xprt_service_stale(xprt, stamp))
		ns = avg - (avg >> RPC_SERVICE_WEIGHT) +
		     (ns >> RPC_SERVICE_WEIGHT);
	xprt->service_last = now;
	WRITE_ONCE(xprt->service_stamp, stamp);
	WRITE_ONCE(xprt->service_ns, max_t(u64, ns, 1));
}

/* How long a request picking @xprt now would take, in ns; 0 to probe it */
static u64 rpc_xprt_expected(const struct rpc_xprt *xprt, unsigned long now)
{
	long queued = atomic_long_read(&xprt->queuelen);
	unsigned int avg = READ_ONCE(xprt->service_ns);

	if (queued <= 0 && (!avg || rpc_xprt_service_stale(xprt, now)))
		return 0;
	if (!avg)
		return RPC_SERVICE_UNKNOWN;
	return (u64)(max(queued, 0L) + 1) * avg;
}

/* The active transport expected soonest, and *@least its wait */
static struct rpc_xprt *rpc_xprt_soonest(struct list_head *head,
					 unsigned long now, u64 *least)
{
	struct rpc_xprt *pos, *soonest = NULL;

	*least = U64_MAX;
	list_for_each_entry_rcu(pos, head, xprt_switch) {
		u64 wait;

		if (!xprt_is_active(pos))
			continue;
		wait = rpc_xprt_expected(pos, now);
		if (wait < *least) {
			*least = wait;
			soonest = pos;
		}
	}
	return soonest;
}

/* What the transports whose turn it may be must not exceed */
struct rpc_xprt_service_band {
	unsigned long	now;
	u64		most;
};

static bool rpc_xprt_in_band(const struct rpc_xprt *xprt, const void *ctx)
{
	const struct rpc_xprt_service_band *band = ctx;

	return xprt_is_active(xprt) &&
	       rpc_xprt_expected(xprt, band->now) <= band->most;
}

/**
 * rpc_xprt_soonest_done - pick the transport expected to complete soonest
 * @head: the transports of a switch, walked under rcu_read_lock()
 * @cur: the transport picked last time, or NULL
 *
 * Return: among the active transports whose expected completion is
 * within an eighth of the soonest, the first after @cur, wrapping around.
 * NULL when none is active.
 */
struct rpc_xprt *rpc_xprt_soonest_done(struct list_head *head,
				       const struct rpc_xprt *cur)
{
	struct rpc_xprt_service_band band = { .now = jiffies };
	struct rpc_xprt *soonest;
	u64 least;

	soonest = rpc_xprt_soonest(head, band.now, &least);
	if (!soonest)
		return NULL;
	band.most = least + min(least >> RPC_SERVICE_SLACK, U64_MAX - 1 - least);
	/* Queues changed under the walk: the soonest one seen will do */
	return rpc_xprt_next_turn(head, cur, rpc_xprt_in_band, &band) ?:
	       soonest;
}
