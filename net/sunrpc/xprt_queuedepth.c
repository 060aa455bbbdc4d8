// SPDX-License-Identifier: GPL-2.0
/*
 * The queue-depth path policy: each request goes to the active transport
 * with the fewest tasks on it.
 *
 * A transport's queue length counts the tasks that hold it, from when
 * they pick it until they release it.  A slow path keeps its tasks longer
 * and so gets fewer new ones: paths end up used in proportion to how fast
 * they complete requests.  Among equal queues the scan favours the first
 * transport after the one picked last, so that equal paths take turns.
 */

#include <linux/kref.h>
#include <linux/rculist.h>
#include <linux/sunrpc/xprt.h>
#include <linux/sunrpc/xprtmultipath.h>

static bool rpc_xprt_usable(const struct rpc_xprt *xprt)
{
	return kref_read(&xprt->kref) != 0 &&
	       !test_bit(XPRT_OFFLINE, &xprt->state);
}

/**
 * rpc_xprt_least_queued - pick the transport with the shortest queue
 * @head: the transports of a switch, walked under rcu_read_lock()
 * @cur: the transport picked last time, or NULL
 *
 * Return: the active transport with the fewest queued tasks; among equal
 * ones, the first after @cur, wrapping around.  NULL when none is active.
 */
struct rpc_xprt *rpc_xprt_least_queued(struct list_head *head,
				       const struct rpc_xprt *cur)
{
	struct rpc_xprt *pos, *before = NULL, *after = NULL;
	long before_len = LONG_MAX, after_len = LONG_MAX;
	bool past_cur = false;

	list_for_each_entry_rcu(pos, head, xprt_switch) {
		long len = atomic_long_read(&pos->queuelen);

		if (rpc_xprt_usable(pos)) {
			if (past_cur && len < after_len) {
				after = pos;
				after_len = len;
			} else if (!past_cur && len < before_len) {
				before = pos;
				before_len = len;
			}
		}
		if (pos == cur)
			past_cur = true;
	}
	if (after && after_len <= before_len)
		return after;
	return before;
}
