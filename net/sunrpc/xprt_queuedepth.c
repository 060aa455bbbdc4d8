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

#include <linux/sunrpc/xprt.h>

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

static bool rpc_xprt_any(const struct rpc_xprt *xprt, int unused)
{
	return true;
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
	return rpc_xprt_least_queued_if(head, cur, rpc_xprt_any, 0);
}
