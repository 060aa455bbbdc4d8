// SPDX-License-Identifier: GPL-2.0
/*
 * The NUMA preference of the path policies numa-round-robin and
 * numa-queue-depth: a request goes out through a transport whose local
 * device sits on the NUMA node of the request's data, so that neither the
 * device's DMA nor its completions cross between the nodes.
 *
 * A request's node is the node of the first page of its data when the
 * upper layer names one (rpc_task_setup.data_page), else the node of the
 * CPU that started it.  A transport's node is the node of the device its
 * connection went out through, which the transport notes when it connects
 * (rpc_netdev_numa_node() for a network device).  A device that belongs to
 * no node (NUMA_NO_NODE), or a transport not yet connected, is near every
 * node.
 *
 * Among the near transports the base policy, round-robin or queue-depth,
 * chooses, from the last pick for the same node.  All transports are used
 * instead when none of the near ones is active, and when the near ones are
 * crowded: when even the least busy of them holds more than
 * RPC_XPRT_NUMA_CROWD tasks, and more than twice as many as the least busy
 * of the others.  RPC_XPRT_NUMA_CROWD is the credit limit that Linux's
 * NFS/RDMA server grants a connection: past it, requests wait for a
 * credit, and idle far paths would carry them at once.  Below it, a burst
 * (the writeback of a file) is cheaper on the local paths than across the
 * nodes.
 */

#include <linux/export.h>
#include <linux/netdevice.h>
#include <linux/nodemask.h>
#include <linux/numa.h>
#include <linux/rculist.h>
#include <linux/sunrpc/xprt.h>
#include <linux/sunrpc/xprt_health.h>
#include <linux/sunrpc/xprtmultipath.h>

#include "xprt_numa.h"
#include "xprt_queuedepth.h"

#define CREATE_TRACE_POINTS
#include <trace/events/rpc_numa.h>

#define RPC_XPRT_NUMA_CROWD	64

/* The active transports near a request's node: how many, their tasks,
 * and the least busy of them
 */
struct rpc_xprt_near {
	int		node;
	unsigned int	nnear;
	long		near_sum;
	struct rpc_xprt	*least;
};

/* Either node unknown, or the same */
static bool rpc_xprt_is_near(const struct rpc_xprt *xprt, int node)
{
	int xnode = READ_ONCE(xprt->health.node);

	return node == NUMA_NO_NODE || xnode == NUMA_NO_NODE || xnode == node;
}

static bool rpc_xprt_crowded(long near_least, long far_least)
{
	return near_least > RPC_XPRT_NUMA_CROWD && near_least > 2 * far_least;
}

/* Some active transports are near @node and some are not, and the near
 * ones are not crowded.  @near gets their count, tasks and least busy.
 */
static bool rpc_xprt_keep_near(struct list_head *head, int node,
			       struct rpc_xprt_near *near)
{
	long near_least = LONG_MAX, far_least = LONG_MAX;
	struct rpc_xprt *pos;

	near->node = node;
	near->nnear = 0;
	near->near_sum = 0;
	near->least = NULL;
	list_for_each_entry_rcu(pos, head, xprt_switch) {
		long len;

		if (!xprt_is_active(pos))
			continue;
		len = atomic_long_read(&pos->queuelen);
		if (rpc_xprt_is_near(pos, node)) {
			near->nnear++;
			near->near_sum += len;
			if (len < near_least) {
				near_least = len;
				near->least = pos;
			}
		} else {
			far_least = min(far_least, len);
		}
	}
	if (near_least == LONG_MAX || far_least == LONG_MAX)
		return false;
	return !rpc_xprt_crowded(near_least, far_least);
}

static bool rpc_xprt_near_turn(const struct rpc_xprt *xprt, const void *ctx)
{
	const struct rpc_xprt_near *near = ctx;

	return xprt_is_active(xprt) && rpc_xprt_is_near(xprt, near->node) &&
	       atomic_long_read(&xprt->queuelen) * near->nnear <=
	       near->near_sum;
}

/* Round-robin among the near transports: the first after @cur, wrapping
 * around, that holds no more than their average of tasks (as round-robin
 * over all transports does).  When the queues changed under the walks so
 * that none qualifies, the least busy one seen.
 */
static struct rpc_xprt *rpc_xprt_next_near(struct list_head *head,
					   const struct rpc_xprt *cur,
					   const struct rpc_xprt_near *near)
{
	return rpc_xprt_next_turn(head, cur, rpc_xprt_near_turn, near) ?:
	       near->least;
}

/**
 * rpc_xprt_pick_near - the choice of a NUMA path policy
 * @head: the transports of a switch, walked under rcu_read_lock()
 * @cursors: the last pick for each node, nr_node_ids of them; positions
 *           in @head only, never dereferenced
 * @node: the request's node, or NUMA_NO_NODE
 * @least_queued: the base policy is queue-depth, else round-robin
 *
 * Each node takes turns over its own transports from its own cursor: with
 * one cursor, the requests of two nodes that come in turn would each find
 * the same first near transport after the other's pick.
 *
 * Return: the base policy's choice among the transports near @node; NULL
 * when the base policy is to choose among all of them: no near transport
 * is active, all active ones are near (a client without NUMA information),
 * or the near ones are crowded.
 */
struct rpc_xprt *rpc_xprt_pick_near(struct list_head *head,
				    struct rpc_xprt **cursors, int node,
				    bool least_queued)
{
	struct rpc_xprt_near near;
	struct rpc_xprt *cur, *pos;

	if (node < 0 || (unsigned int)node >= nr_node_ids ||
	    !rpc_xprt_keep_near(head, node, &near))
		return NULL;
	cur = READ_ONCE(cursors[node]);
	if (least_queued)
		pos = rpc_xprt_least_queued_if(head, cur, rpc_xprt_is_near,
					       node);
	else
		pos = rpc_xprt_next_near(head, cur, &near);
	WRITE_ONCE(cursors[node], pos);
	return pos;
}

/**
 * rpc_xprt_count_node - count a call sent by a multipath transport
 * @xprt: the transport that sent it
 * @node: the request's node
 *
 * Counts it as near when it stayed on its node, as far when it crossed
 * to another; not at all when either node is unknown.  A retransmission
 * counts again.
 */
void rpc_xprt_count_node(struct rpc_xprt *xprt, int node)
{
	int xnode = READ_ONCE(xprt->health.node);

	if (node == NUMA_NO_NODE || xnode == NUMA_NO_NODE)
		return;
	if (xnode == node)
		atomic_long_inc(&xprt->health.near);
	else
		atomic_long_inc(&xprt->health.far);
}

/* One device below: stop at the first that has a node */
static int rpc_lower_numa_node(struct net_device *lower,
			       struct netdev_nested_priv *priv)
{
	int *node = priv->data;

	*node = dev_to_node(&lower->dev);
	return *node != NUMA_NO_NODE;
}

/**
 * rpc_netdev_numa_node - the NUMA node of a network device's hardware
 * @dev: the device a connection goes through; caller holds rcu_read_lock()
 *
 * A VLAN, a bond, a macvlan and the like have no bus device, and so no
 * node of their own: theirs is that of the first device below them that
 * has one.
 *
 * Return: the node, or NUMA_NO_NODE.
 */
int rpc_netdev_numa_node(struct net_device *dev)
{
	int node = dev_to_node(&dev->dev);
	struct netdev_nested_priv priv = { .data = &node };

	if (node == NUMA_NO_NODE)
		netdev_walk_all_lower_dev_rcu(dev, rpc_lower_numa_node, &priv);
	return node;
}
EXPORT_SYMBOL_GPL(rpc_netdev_numa_node);
