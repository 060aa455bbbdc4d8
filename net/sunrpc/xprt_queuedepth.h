/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The queue-depth path policy, as the rest of sunrpc sees it
 */
#ifndef _NET_SUNRPC_XPRT_QUEUEDEPTH_H
#define _NET_SUNRPC_XPRT_QUEUEDEPTH_H

#include <linux/rculist.h>
#include <linux/sunrpc/xprt.h>
#include <linux/sunrpc/xprtmultipath.h>

void rpc_xprt_record_rtt(struct rpc_xprt *xprt, unsigned long usecs);
struct rpc_xprt *rpc_xprt_least_queued(struct list_head *head,
				       const struct rpc_xprt *cur);

/* Which transports rpc_xprt_least_queued_if() may pick, besides active */
typedef bool (*rpc_xprt_usable_t)(const struct rpc_xprt *xprt, int arg);

/* Not clearly slower than @fastest; a path not yet timed is not */
static inline bool rpc_xprt_fast_enough(const struct rpc_xprt *xprt,
					unsigned long fastest)
{
	unsigned long rtt = READ_ONCE(xprt->rtt_avg);

	return !rtt || rtt - rtt / 5 <= fastest;
}

/* Which transports may take the next turn; @ctx is the caller's */
typedef bool (*rpc_xprt_turn_t)(const struct rpc_xprt *xprt, const void *ctx);

/**
 * rpc_xprt_next_turn - the transport whose turn it is among some
 * @head: the transports of a switch, walked under rcu_read_lock()
 * @cur: the transport picked last time, or NULL
 * @ok: which transports qualify; a constant, so that it is inlined and
 *      the walk makes no indirect call
 * @ctx: passed to @ok
 *
 * Return: the first transport after @cur for which @ok(xprt, @ctx) is
 * true, wrapping around; NULL when none is.
 */
static __always_inline struct rpc_xprt *
rpc_xprt_next_turn(struct list_head *head, const struct rpc_xprt *cur,
		   rpc_xprt_turn_t ok, const void *ctx)
{
	struct rpc_xprt *pos, *first = NULL;
	bool past_cur = false;

	list_for_each_entry_rcu(pos, head, xprt_switch) {
		if (ok(pos, ctx)) {
			if (past_cur)
				return pos;
			if (!first)
				first = pos;
		}
		if (pos == cur)
			past_cur = true;
	}
	return first;
}

static __always_inline bool rpc_xprt_least_usable(const struct rpc_xprt *xprt,
						  rpc_xprt_usable_t usable,
						  int arg)
{
	return xprt_is_active(xprt) && usable(xprt, arg);
}

/**
 * rpc_xprt_least_queued_if - the queue-depth choice among some transports
 * @head: the transports of a switch, walked under rcu_read_lock()
 * @cur: the transport picked last time, or NULL
 * @usable: which active transports may be picked; a constant, so that
 *          it is inlined and the walk makes no indirect call
 * @arg: passed to @usable
 *
 * The choice of rpc_xprt_least_queued(), among the active transports for
 * which @usable(xprt, @arg) is true.
 *
 * Return: the transport, or NULL when none qualifies.
 */
static __always_inline struct rpc_xprt *
rpc_xprt_least_queued_if(struct list_head *head, const struct rpc_xprt *cur,
			 rpc_xprt_usable_t usable, int arg)
{
	struct rpc_xprt *pos, *least = NULL, *first = NULL;
	unsigned long fastest = ULONG_MAX;
	long least_len = LONG_MAX;
	bool past_cur = false;

	list_for_each_entry_rcu(pos, head, xprt_switch) {
		long len = atomic_long_read(&pos->queuelen);
		unsigned long rtt = READ_ONCE(pos->rtt_avg);

		if (!rpc_xprt_least_usable(pos, usable, arg) || len > least_len)
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
		if (rpc_xprt_least_usable(pos, usable, arg) &&
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

#endif /* _NET_SUNRPC_XPRT_QUEUEDEPTH_H */
