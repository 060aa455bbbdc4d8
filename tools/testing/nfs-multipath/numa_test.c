// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the NUMA path policies, net/sunrpc/xprt_numa.c (with
 * the queue-depth walk of net/sunrpc/xprt_queuedepth.h), compiled
 * unmodified against shim/.
 *
 * Transports sit on simulated nodes; requests come from a node.  The
 * choice must keep to the near transports, take turns among them, fall
 * back to all transports (rpc_xprt_pick_near() returns NULL) when no near
 * one is active, when every transport is near (no NUMA information), and
 * when the near ones are crowded; and the per-path counters must count
 * near and far sends.  A simulation with service rates checks that a
 * backlog spills to the far paths only past the threshold, and comes back
 * once it drains.
 */

#include <stdio.h>

#include <linux/netdevice.h>
#include <linux/nodemask.h>
#include <linux/numa.h>
#include <linux/sunrpc/xprtmultipath.h>
#include "check.h"
#include "../../../net/sunrpc/xprt_numa.h"
#include "../../../net/sunrpc/xprt_queuedepth.h"

#define MAX_XPRTS	8
#define NODES		16

/* What the kernel sizes the per-node cursors by */
unsigned int nr_node_ids = NODES;

int rpc_netdev_numa_node(struct net_device *dev);

struct sw {
	struct list_head	head;
	struct rpc_xprt		xprt[MAX_XPRTS];
	unsigned int		n;
	struct rpc_xprt		*cursors[NODES];	/* the switch's */
	struct rpc_xprt		*cur;		/* the iterator's */
};

/* @node[i]: the node of transport i; all idle and active */
static void sw_init(struct sw *s, const int *node, unsigned int n)
{
	unsigned int i;

	memset(s, 0, sizeof(*s));
	INIT_LIST_HEAD(&s->head);
	s->n = n;
	for (i = 0; i < n; i++) {
		s->xprt[i].kref.refcount = 1;
		s->xprt[i].health.node = node[i];
		list_add_tail(&s->xprt[i].xprt_switch, &s->head);
	}
}

static void sw_queues(struct sw *s, const long *len)
{
	unsigned int i;

	for (i = 0; i < s->n; i++)
		s->xprt[i].queuelen.counter = len[i];
}

static void sw_offline(struct sw *s, unsigned int i, bool off)
{
	if (off)
		s->xprt[i].state |= 1UL << XPRT_OFFLINE;
	else
		s->xprt[i].state &= ~(1UL << XPRT_OFFLINE);
}

/* One pick: the index chosen, or -1 for "the base policy over all" */
static int sw_pick(struct sw *s, int node, bool qd)
{
	struct rpc_xprt *x = rpc_xprt_pick_near(&s->head, s->cursors, node, qd);

	if (!x)
		return -1;
	return (int)(x - s->xprt);
}

static const int two_nodes[8] = { 0, 0, 0, 0, 1, 1, 1, 1 };
static const int interleaved[8] = { 0, 1, 0, 1, 0, 1, 0, 1 };

/* Idle paths: each policy keeps to the near ones and takes turns */
static void test_keeps_near(void)
{
	unsigned int hits[MAX_XPRTS];
	struct sw s;
	int qd, node, k, i;

	for (qd = 0; qd < 2; qd++) {
		for (node = 0; node < 2; node++) {
			sw_init(&s, interleaved, 8);
			memset(hits, 0, sizeof(hits));
			for (k = 0; k < 400; k++) {
				i = sw_pick(&s, node, qd);
				CHECK(i >= 0 && interleaved[i] == node,
				      "qd=%d node %d got %d", qd, node, i);
				if (i >= 0)
					hits[i]++;
			}
			for (i = 0; i < 8; i++)
				CHECK(hits[i] == (interleaved[i] == node ? 100 : 0),
				      "qd=%d node %d: xprt %d had %u", qd, node,
				      i, hits[i]);
		}
	}
}

/* Requests of two nodes, one after the other: each node takes turns
 * among its own paths, from its own cursor; also nodes 0 and 8, which
 * a cursor per node modulo 8 would mix up.
 */
static void test_mixed_nodes(void)
{
	static const int second[2] = { 1, 8 };
	unsigned int hits[MAX_XPRTS];
	int nodes[MAX_XPRTS];
	int k, i, j, qd;
	struct sw s;

	for (j = 0; j < 2; j++) {
		for (i = 0; i < 8; i++)
			nodes[i] = i < 4 ? 0 : second[j];
		for (qd = 0; qd < 2; qd++) {
			sw_init(&s, nodes, 8);
			memset(hits, 0, sizeof(hits));
			for (k = 0; k < 800; k++) {
				int node = k % 2 ? second[j] : 0;

				i = sw_pick(&s, node, qd);
				CHECK(i >= 0 && nodes[i] == node,
				      "node %d got %d", node, i);
				if (i >= 0)
					hits[i]++;
			}
			for (i = 0; i < 8; i++)
				CHECK(hits[i] == 100,
				      "nodes 0 and %d, qd=%d: xprt %d had %u of 800",
				      second[j], qd, i, hits[i]);
		}
	}
}

/* A node past nr_node_ids, and none: the base policy */
static void test_node_bounds(void)
{
	struct sw s;

	sw_init(&s, two_nodes, 8);
	CHECK(sw_pick(&s, NODES, false) == -1, "node %d", NODES);
	CHECK(sw_pick(&s, -2, true) == -1, "node -2");
}

/* No NUMA information, or no node for the request: the base policy */
static void test_no_information(void)
{
	static const int none[4] = { NUMA_NO_NODE, NUMA_NO_NODE,
				     NUMA_NO_NODE, NUMA_NO_NODE };
	static const int one[4] = { 0, 0, 0, 0 };
	struct sw s;
	int qd;

	for (qd = 0; qd < 2; qd++) {
		sw_init(&s, none, 4);
		CHECK(sw_pick(&s, 0, qd) == -1, "no device nodes, qd=%d", qd);
		CHECK(sw_pick(&s, 1, qd) == -1, "no device nodes, qd=%d", qd);
		sw_init(&s, one, 4);
		CHECK(sw_pick(&s, 0, qd) == -1, "all near, qd=%d", qd);
		sw_init(&s, two_nodes, 8);
		CHECK(sw_pick(&s, NUMA_NO_NODE, qd) == -1,
		      "request without a node, qd=%d", qd);
	}
}

/* A device on no node is near every node */
static void test_device_without_node(void)
{
	static const int nodes[4] = { 0, NUMA_NO_NODE, 1, 1 };
	unsigned int hits[4] = { 0 };
	struct sw s;
	int k, i;

	sw_init(&s, nodes, 4);
	for (k = 0; k < 100; k++) {
		i = sw_pick(&s, 0, false);
		CHECK(i == 0 || i == 1, "node 0 got %d", i);
		if (i >= 0)
			hits[i]++;
	}
	CHECK(hits[0] == 50 && hits[1] == 50, "shares %u/%u", hits[0], hits[1]);
	for (k = 0; k < 30; k++) {
		i = sw_pick(&s, 1, false);
		CHECK(i >= 1, "node 1 got %d", i);
	}
}

/* No near path active: all; one near path back: it alone */
static void test_fallback_offline(void)
{
	struct sw s;
	int qd, i;

	for (qd = 0; qd < 2; qd++) {
		sw_init(&s, two_nodes, 8);
		for (i = 0; i < 4; i++)
			sw_offline(&s, i, true);
		CHECK(sw_pick(&s, 0, qd) == -1, "node 0 paths down, qd=%d", qd);
		/* every active path is near node 1: its base policy */
		CHECK(sw_pick(&s, 1, qd) == -1, "node 1, qd=%d", qd);
		sw_offline(&s, 2, false);
		for (i = 0; i < 10; i++)
			CHECK(sw_pick(&s, 0, qd) == 2, "back on 2, qd=%d", qd);
		s.xprt[2].kref.refcount = 0;	/* being destroyed */
		CHECK(sw_pick(&s, 0, qd) == -1, "destroyed, qd=%d", qd);
	}
}

/* The threshold: crowded when the least busy near path holds more than
 * 64 tasks and more than twice the least busy far one's.
 */
static void test_crowded_threshold(void)
{
	static const struct {
		long near, far;
		bool keep;
	} cases[] = {
		{ 64, 0, true },	/* 64 is not crowded */
		{ 65, 0, false },
		{ 65, 32, false },	/* 65 > 64 and 65 > 2 * 32 */
		{ 65, 33, true },	/* not more than twice 33 */
		{ 66, 33, true },	/* not more than twice */
		{ 67, 33, false },
		{ 200, 99, false },
		{ 200, 100, true },
		{ 0, 0, true },
		{ 3, 1000, true },	/* far ones busier: stay */
	};
	long len[8];
	unsigned int c, i;
	struct sw s;
	int qd;

	for (qd = 0; qd < 2; qd++) {
		for (c = 0; c < ARRAY_SIZE(cases); c++) {
			sw_init(&s, two_nodes, 8);
			for (i = 0; i < 8; i++)
				len[i] = i < 4 ? cases[c].near + i :
						 cases[c].far + i - 4;
			sw_queues(&s, len);
			CHECK((sw_pick(&s, 0, qd) >= 0) == cases[c].keep,
			      "near %ld far %ld qd=%d: want %s", cases[c].near,
			      cases[c].far, qd,
			      cases[c].keep ? "near" : "all");
		}
	}
}

/* Among the near paths, queue-depth takes the shortest queue and
 * round-robin passes over a path above the near ones' average.
 */
static void test_base_policy_among_near(void)
{
	static const long len[8] = { 5, 3, 1, 4, 0, 0, 0, 0 };
	struct sw s;

	sw_init(&s, two_nodes, 8);
	sw_queues(&s, len);
	CHECK(sw_pick(&s, 0, true) == 2, "queue-depth: the shortest near");
	/* average 13 / 4: paths 1 and 2 qualify, in turn */
	s.cursors[0] = &s.xprt[1];
	CHECK(sw_pick(&s, 0, false) == 2, "round-robin after 1");
	CHECK(sw_pick(&s, 0, false) == 1, "round-robin wraps to 1");
}

/* Near and far sends, and sends of unknown nodes */
static void test_counters(void)
{
	static const int nodes[3] = { 0, 1, NUMA_NO_NODE };
	struct sw s;

	sw_init(&s, nodes, 3);
	rpc_xprt_count_node(&s.xprt[0], 0);
	rpc_xprt_count_node(&s.xprt[0], 0);
	rpc_xprt_count_node(&s.xprt[0], 1);
	rpc_xprt_count_node(&s.xprt[0], NUMA_NO_NODE);
	rpc_xprt_count_node(&s.xprt[1], 1);
	rpc_xprt_count_node(&s.xprt[2], 0);
	CHECK(s.xprt[0].health.near.counter == 2 &&
	      s.xprt[0].health.far.counter == 1, "xprt 0: %ld near %ld far",
	      s.xprt[0].health.near.counter, s.xprt[0].health.far.counter);
	CHECK(s.xprt[1].health.near.counter == 1 &&
	      s.xprt[1].health.far.counter == 0, "xprt 1");
	CHECK(s.xprt[2].health.near.counter == 0 &&
	      s.xprt[2].health.far.counter == 0, "a device on no node counts nothing");
}

/*
 * Node 0 keeps @depth requests in flight on @s; every path serves one
 * request a tick.  The base policy over all is queue-depth, as the
 * kernel's numa-queue-depth falls back to.  Returns the share of the far
 * paths in what was sent meanwhile.
 */
static double sim_spill(struct sw *s, long *inflight, unsigned int depth,
			unsigned int ticks, long *near_max)
{
	unsigned long sent[8] = { 0 }, total = 0, far = 0;
	unsigned int t, i;

	*near_max = 0;
	for (t = 0; t < ticks; t++) {
		while (*inflight < depth) {
			struct rpc_xprt *x = rpc_xprt_pick_near(&s->head,
								s->cursors, 0,
								true);

			if (!x)
				x = rpc_xprt_least_queued(&s->head, s->cur);
			s->cur = x;
			x->queuelen.counter++;
			sent[x - s->xprt]++;
			(*inflight)++;
		}
		for (i = 0; i < 8; i++) {
			if (i < 4)
				*near_max = max(*near_max,
						s->xprt[i].queuelen.counter);
			if (s->xprt[i].queuelen.counter) {
				s->xprt[i].queuelen.counter--;
				(*inflight)--;
			}
		}
	}
	for (i = 0; i < 8; i++) {
		total += sent[i];
		if (i >= 4)
			far += sent[i];
	}
	return total ? (double)far / total : 0;
}

static void test_spill_simulation(void)
{
	long near_max, inflight = 0;
	double far;
	struct sw s;

	/* 256 in flight over 4 near paths: 64 each, never crowded */
	sw_init(&s, two_nodes, 8);
	far = sim_spill(&s, &inflight, 256, 1000, &near_max);
	CHECK(far == 0.0, "256 in flight: far share %.3f", far);
	CHECK(near_max <= 65, "256 in flight: near queue reached %ld",
	      near_max);
	/* 600 in flight: the near paths hold about twice the far ones'
	 * tasks, and every path serves: half the requests go far
	 */
	far = sim_spill(&s, &inflight, 600, 1000, &near_max);
	CHECK(far > 0.4 && far < 0.6, "600 in flight: far share %.3f", far);
	CHECK(near_max <= 110, "600 in flight: near queue reached %ld",
	      near_max);
	/* Back to 256: once the backlog drained, nothing goes far */
	sim_spill(&s, &inflight, 256, 500, &near_max);
	far = sim_spill(&s, &inflight, 256, 500, &near_max);
	CHECK(far == 0.0, "256 in flight again: far share %.3f", far);
}

/* A VLAN or a bond has the node of the first device below it with one */
static void test_netdev_node(void)
{
	struct net_device nic = { .dev = { .numa_node = 1 } };
	struct net_device other = { .dev = { .numa_node = NUMA_NO_NODE } };
	struct net_device bond = { .dev = { .numa_node = NUMA_NO_NODE } };
	struct net_device vlan = { .dev = { .numa_node = NUMA_NO_NODE } };

	CHECK(rpc_netdev_numa_node(&nic) == 1, "a NIC");
	vlan.lower = &nic;
	CHECK(rpc_netdev_numa_node(&vlan) == 1, "a VLAN on it");
	vlan.lower = &bond;
	bond.lower = &other;
	other.lower = &nic;
	CHECK(rpc_netdev_numa_node(&vlan) == 1, "a VLAN on a bond");
	other.lower = NULL;
	CHECK(rpc_netdev_numa_node(&vlan) == NUMA_NO_NODE, "none below");
}

int main(void)
{
	test_keeps_near();
	test_mixed_nodes();
	test_node_bounds();
	test_netdev_node();
	test_no_information();
	test_device_without_node();
	test_fallback_offline();
	test_crowded_threshold();
	test_base_policy_among_near();
	test_counters();
	test_spill_simulation();
	printf("numa_test: %d checks, %d failures\n", checks, failures);
	return failures ? 1 : 0;
}
