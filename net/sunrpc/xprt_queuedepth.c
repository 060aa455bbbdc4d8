// SPDX-License-Identifier: GPL-2.0
/*
 * The queue-depth path policy: each request goes to the active transport
 * with the fewest tasks on it.
 *
 * A transport's queue length counts the tasks that hold it, from when
 * they pick it until they release it.  A slow path keeps its tasks longer
 * and so gets fewer new ones: paths end up used in proportion to how fast
 * they complete requests.
 *
 * Queue lengths alone cannot tell paths apart while few requests are in
 * flight: with one or two, every idle path looks the same, and taking
 * turns hands the slowest path as many requests as the fastest.  So among
 * the shortest queues, a path whose recent round trips are clearly longer
 * (by more than a quarter) than the fastest one's is passed over.  The
 * rest, equal paths among them, take turns: the first one after the
 * transport picked last wins.
 */

#include <linux/rculist.h>
#include <linux/sunrpc/xprt.h>
#include <linux/sunrpc/xprtmultipath.h>

#include "xprt_queuedepth.h"

/**
 * rpc_xprt_record_rtt - account the round trip of a reply
 * @xprt: the transport the reply came in on
 * @usecs: how long the request waited for it, in microseconds
 *
 * Keeps a running average for rpc_xprt_least_queued(), each reply
 * weighing a quarter.  Caller holds @xprt->queue_lock.
 */
void rpc_xprt_record_rtt(struct rpc_xprt *xprt, unsigned long usecs)
{
	unsigned long avg = READ_ONCE(xprt->rtt_avg);

	if (avg)
		usecs = avg - avg / 4 + usecs / 4;
	WRITE_ONCE(xprt->rtt_avg, max(usecs, 1UL));
}

/* Not clearly slower than @fastest; a path not yet timed is not */
static bool rpc_xprt_fast_enough(const struct rpc_xprt *xprt,
				 unsigned long fastest)
{
	unsigned long rtt = READ_ONCE(xprt->rtt_avg);

	return !rtt || rtt - rtt / 5 <= fastest;
}

/**
 * rpc_xprt_least_queued - pick the transport with the shortest queue
 * @head: the transports of a switch, walked under rcu_read_lock()
 * @cur: the transport picked last time, or NULL
 *
 * Return: among the active transports with the fewest queued tasks, and
 * of those the ones not clearly slower than the fastest, the first after
 * @cur, wrapping around.  NULL when none is active.
 */
struct rpc_xprt *rpc_xprt_least_queued(struct list_head *head,
				       const struct rpc_xprt *cur)
{
	struct rpc_xprt *pos, *least = NULL, *first = NULL;
	unsigned long fastest = ULONG_MAX;
	long least_len = LONG_MAX;
	bool past_cur = false;

	list_for_each_entry_rcu(pos, head, xprt_switch) {
		long len = atomic_long_read(&pos->queuelen);
		unsigned long rtt = READ_ONCE(pos->rtt_avg);

		if (!xprt_is_active(pos) || len > least_len)
			continue;
		if (len < least_len) {
			least = pos;
			least_len = len;
			fastest = ULONG_MAX;
		}
		if (rtt)
			fastest = min(fastest, rtt);
	}
	list_for_each_entry_rcu(pos, head, xprt_switch) {
		if (xprt_is_active(pos) &&
		    atomic_long_read(&pos->queuelen) <= least_len &&
		    rpc_xprt_fast_enough(pos, fastest)) {
			if (past_cur)
				return pos;
			if (!first)
				first = pos;
		}
		if (pos == cur)
			past_cur = true;
	}
	/* Queues changed under the walk: the shortest one seen will do */
	return first ?: least;
}
