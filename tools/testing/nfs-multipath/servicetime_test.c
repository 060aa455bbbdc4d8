// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the service-time path policy,
 * net/sunrpc/xprt_servicetime.c, compiled unmodified against shim/.
 *
 * An event-driven simulation in nanoseconds: each transport is a queue
 * served in order, one request at a time, at its own rate, behind a fixed
 * latency that is not part of its service.  Readers issue a batch of
 * requests each, wait for all of them and issue the next, the way a
 * direct-I/O reader that splits 1 MiB into four RPCs does.  The policy
 * must keep every path busy in proportion to its rate, share equal paths
 * evenly, follow a path whose rate changes, and probe a path it had given
 * up on.  Queue-depth (net/sunrpc/xprt_queuedepth.c) runs the same
 * readers, for comparison.
 */

#include <stdio.h>
#include <math.h>

#include <linux/sunrpc/xprtmultipath.h>
#include <linux/jiffies.h>
#include "check.h"
#include "../../../net/sunrpc/xprt_queuedepth.h"
#include "../../../net/sunrpc/xprt_servicetime.h"

#define MAX_XPRTS	8
#define MAX_EVENTS	256
#define MS		1000000LL

unsigned long shim_jiffies;

enum sim_policy { SIM_SERVICE_TIME, SIM_QUEUE_DEPTH, SIM_ROUND_ROBIN };

struct sim_event {
	s64		done;		/* when its reply comes, ns */
	s64		sent;
	int		xprt;
	int		reader;
};

struct sim {
	struct list_head	head;
	struct rpc_xprt		xprt[MAX_XPRTS];
	s64			service[MAX_XPRTS];	/* ns a request */
	s64			busy_until[MAX_XPRTS];
	unsigned long		done[MAX_XPRTS];
	struct sim_event	ev[MAX_EVENTS];
	int			nev;
	int			left[MAX_EVENTS];	/* of each reader's batch */
	unsigned int		n;
	s64			now;
	s64			latency;	/* ns before a path serves */
	enum sim_policy		policy;
	struct rpc_xprt		*cur;
};

static void sim_init(struct sim *s, const double *ms, unsigned int n,
		     enum sim_policy policy)
{
	unsigned int i;

	memset(s, 0, sizeof(*s));
	INIT_LIST_HEAD(&s->head);
	s->n = n;
	s->policy = policy;
	s->latency = 2 * MS;
	shim_jiffies = 0;
	for (i = 0; i < n; i++) {
		s->xprt[i].kref.refcount = 1;
		s->service[i] = (s64)(ms[i] * MS);
		list_add_tail(&s->xprt[i].xprt_switch, &s->head);
	}
}

static int sim_index(struct sim *s, const struct rpc_xprt *x)
{
	return x ? (int)(x - s->xprt) : -1;
}

static struct rpc_xprt *sim_choose(struct sim *s)
{
	unsigned int i;

	switch (s->policy) {
	case SIM_SERVICE_TIME:
		return rpc_xprt_soonest_done(&s->head, s->cur);
	case SIM_QUEUE_DEPTH:
		return rpc_xprt_least_queued(&s->head, s->cur);
	case SIM_ROUND_ROBIN:
		i = s->cur ? (sim_index(s, s->cur) + 1) % s->n : 0;
		return &s->xprt[i];
	}
	return NULL;
}

/* Dispatch one request of @reader the way the RPC client does: pick, hold */
static int sim_send(struct sim *s, int reader)
{
	struct rpc_xprt *x = sim_choose(s);
	struct sim_event *e;
	int i = sim_index(s, x);

	if (i < 0 || s->nev == MAX_EVENTS)
		return -1;
	s->cur = x;
	x->queuelen.counter++;
	s->busy_until[i] = max(s->now + s->latency, s->busy_until[i]) +
			   s->service[i];
	e = &s->ev[s->nev++];
	e->done = s->busy_until[i];
	e->sent = s->now;
	e->xprt = i;
	e->reader = reader;
	return i;
}

static void sim_batch(struct sim *s, int reader, int batch)
{
	int k;

	for (k = 0; k < batch; k++)
		sim_send(s, reader);
	s->left[reader] = batch;
}

/* The reply that comes first */
static struct sim_event *sim_next(struct sim *s)
{
	struct sim_event *next = &s->ev[0];
	int k;

	for (k = 1; k < s->nev; k++)
		if (s->ev[k].done < next->done)
			next = &s->ev[k];
	return next;
}

/* The next reply: the policy records it, its reader may issue a batch */
static void sim_reply(struct sim *s, int batch)
{
	struct sim_event *next = sim_next(s), e = *next;

	*next = s->ev[--s->nev];
	s->now = e.done;
	shim_jiffies = s->now / MS;
	s->xprt[e.xprt].queuelen.counter--;
	rpc_xprt_record_service(&s->xprt[e.xprt], e.sent, e.done - e.sent);
	s->done[e.xprt]++;
	if (--s->left[e.reader] == 0)
		sim_batch(s, e.reader, batch);
}

/* Run until @until ns with @readers readers of @batch requests each */
static void sim_run(struct sim *s, int readers, int batch, s64 until)
{
	int r;

	if (!s->nev)
		for (r = 0; r < readers; r++)
			sim_batch(s, r, batch);
	while (s->nev && sim_next(s)->done <= until)
		sim_reply(s, batch);
	s->now = until;
	shim_jiffies = s->now / MS;
}

static void sim_zero(struct sim *s)
{
	memset(s->done, 0, sizeof(s->done));
}

/* Requests completed over those the paths could have completed in @ns */
static double sim_usage(struct sim *s, s64 ns)
{
	double could = 0, did = 0;
	unsigned int i;

	for (i = 0; i < s->n; i++) {
		could += (double)ns / s->service[i];
		did += s->done[i];
	}
	return did / could;
}

static double sim_share(struct sim *s, unsigned int i)
{
	unsigned long total = 0;
	unsigned int k;

	for (k = 0; k < s->n; k++)
		total += s->done[k];
	return total ? (double)s->done[i] / total : 0;
}

static void check_shares(struct sim *s, const double *want, double tol,
			 const char *what)
{
	unsigned int i;

	for (i = 0; i < s->n; i++)
		CHECK(fabs(sim_share(s, i) - want[i]) <= tol,
		      "%s: transport %u share %.3f, want %.3f +- %.3f",
		      what, i, sim_share(s, i), want[i], tol);
}

/* Usage of the paths of @ms by 4 readers of 4 requests, 20 s simulated */
static double usage_of(const double *ms, unsigned int n, enum sim_policy p)
{
	struct sim s;

	sim_init(&s, ms, n, p);
	sim_run(&s, 4, 4, 2000 * MS);
	sim_zero(&s);
	sim_run(&s, 4, 4, 22000 * MS);
	return sim_usage(&s, 20000 * MS);
}

/* 4:2:1:1, the bench's unequal caps: the readers keep every path busy */
static void test_unequal_usage(void)
{
	const double ms[] = { 13, 26, 52, 52 };
	const double want[] = { 0.5, 0.25, 0.125, 0.125 };
	double st = usage_of(ms, 4, SIM_SERVICE_TIME);
	double qd = usage_of(ms, 4, SIM_QUEUE_DEPTH);
	struct sim s;

	CHECK(st >= 0.95, "4:2:1:1: service-time uses %.3f, want >= 0.95", st);
	CHECK(st >= qd + 0.05, "4:2:1:1: service-time %.3f, queue-depth %.3f",
	      st, qd);
	sim_init(&s, ms, 4, SIM_SERVICE_TIME);
	sim_run(&s, 4, 4, 22000 * MS);
	check_shares(&s, want, 0.03, "4:2:1:1 shares");
	printf("servicetime: 4:2:1:1 usage: service-time %.3f, queue-depth %.3f\n",
	       st, qd);
}

/* Equal paths: as good as round-robin, and evenly shared */
static void test_equal_paths(void)
{
	const double ms[] = { 52, 52, 52, 52, 52, 52, 52, 52 };
	const double want[] = { 0.25, 0.25, 0.25, 0.25 };
	double st = usage_of(ms, 4, SIM_SERVICE_TIME);
	double rr = usage_of(ms, 4, SIM_ROUND_ROBIN);
	struct sim s;

	CHECK(st >= rr - 0.01, "equal paths: service-time %.3f, round-robin %.3f",
	      st, rr);
	sim_init(&s, ms, 4, SIM_SERVICE_TIME);
	sim_run(&s, 4, 4, 22000 * MS);
	check_shares(&s, want, 0.01, "equal shares");
	st = usage_of(ms, 8, SIM_SERVICE_TIME);
	rr = usage_of(ms, 8, SIM_ROUND_ROBIN);
	CHECK(st >= rr - 0.01, "8 equal paths: service-time %.3f, round-robin %.3f",
	      st, rr);
}

/* From a cold start the shares settle within a second of traffic */
static void test_converges(void)
{
	const double ms[] = { 13, 26, 52, 52 };
	const double want[] = { 0.5, 0.25, 0.125, 0.125 };
	struct sim s;

	sim_init(&s, ms, 4, SIM_SERVICE_TIME);
	sim_run(&s, 4, 4, 1000 * MS);
	sim_zero(&s);
	sim_run(&s, 4, 4, 3000 * MS);
	check_shares(&s, want, 0.03, "1 s after a cold start");
	CHECK(sim_usage(&s, 2000 * MS) >= 0.95, "usage %.3f after a cold start",
	      sim_usage(&s, 2000 * MS));
}

/* The fast path becomes the slowest and a slow one the fastest */
static void test_rate_change(void)
{
	const double before[] = { 13, 26, 52, 52 };
	const double want[] = { 0.125, 0.25, 0.5, 0.125 };
	struct sim s;

	sim_init(&s, before, 4, SIM_SERVICE_TIME);
	sim_run(&s, 4, 4, 5000 * MS);
	s.service[0] = 52 * MS;
	s.service[2] = 13 * MS;
	sim_run(&s, 4, 4, 6000 * MS);
	sim_zero(&s);
	sim_run(&s, 4, 4, 10000 * MS);
	check_shares(&s, want, 0.03, "1 s after the rates changed");
	CHECK(sim_usage(&s, 4000 * MS) >= 0.95, "usage %.3f after the change",
	      sim_usage(&s, 4000 * MS));
}

/* A path a hundred times slower is left alone but probed every five
 * seconds; once it is as fast as the others again, it is back within
 * ten.
 */
static void test_probe_recovers(void)
{
	const double ms[] = { 10, 10, 1000 };
	const double even[] = { 1.0 / 3, 1.0 / 3, 1.0 / 3 };
	struct sim s;

	sim_init(&s, ms, 3, SIM_SERVICE_TIME);
	sim_run(&s, 2, 4, 10000 * MS);
	sim_zero(&s);
	sim_run(&s, 2, 4, 30000 * MS);
	CHECK(sim_share(&s, 2) <= 0.01, "the slow path carries %.3f",
	      sim_share(&s, 2));
	CHECK(s.done[2] >= 3 && s.done[2] <= 5,
	      "the slow path got %lu probes in 20 s, want 3 to 5", s.done[2]);
	s.service[2] = 10 * MS;
	sim_run(&s, 2, 4, 40000 * MS);
	sim_zero(&s);
	sim_run(&s, 2, 4, 45000 * MS);
	check_shares(&s, even, 0.03, "10 s after the slow path recovered");
}

/* How one reply counts: a round trip on an idle path, the time since the
 * previous reply on a busy one, an eighth of the average, a fresh start
 * after five seconds without replies; one that completes after a later
 * one is not counted; a sample is at most UINT_MAX ns.  The clock of
 * jiffies wraps in the middle.
 */
static void test_record(void)
{
	const unsigned long j0 = -3000UL;
	struct rpc_xprt x = { .kref = { 1 } };

	shim_jiffies = j0;
	rpc_xprt_record_service(&x, 10 * MS, 4 * MS);
	CHECK(x.service_ns == 4 * MS, "idle: the round trip, got %u",
	      x.service_ns);
	rpc_xprt_record_service(&x, 11 * MS, 4 * MS);
	CHECK(x.service_ns == 3625000, "busy: 1 ms since the reply before, "
	      "weighing an eighth: got %u", x.service_ns);
	shim_jiffies = j0 + 4000;
	rpc_xprt_record_service(&x, 4000 * MS, 8 * MS);
	CHECK(x.service_ns == 4171875, "4 s idle is not stale: got %u",
	      x.service_ns);
	shim_jiffies = j0 + 10000;
	rpc_xprt_record_service(&x, 10000 * MS, 8 * MS);
	CHECK(x.service_ns == 8 * MS, "after 6 s idle it starts over, across "
	      "the wrap of jiffies: got %u", x.service_ns);
	rpc_xprt_record_service(&x, 9990 * MS, 10 * MS);
	CHECK(x.service_ns == 8 * MS && x.service_last == 10008 * MS,
	      "a reply completed after a later one is not counted: got %u",
	      x.service_ns);
	shim_jiffies = j0 + 20000;
	rpc_xprt_record_service(&x, 20000 * MS, 5000 * MS);
	CHECK(x.service_ns == UINT_MAX, "a 5 s sample is clamped: got %u",
	      x.service_ns);
}

/* A path not timed yet gets one request, not every request, until its
 * first reply; the wait counts the requests ahead and the new one; the
 * tie band is an eighth, inclusive.
 */
static void test_untimed_and_band(void)
{
	const double ms[] = { 1, 1, 1 };
	struct sim s;
	int i;

	sim_init(&s, ms, 3, SIM_SERVICE_TIME);
	rpc_xprt_record_service(&s.xprt[0], 0, 1 * MS);
	rpc_xprt_record_service(&s.xprt[1], 0, 1 * MS);
	for (i = 0; i < 32; i++) {
		struct rpc_xprt *x = rpc_xprt_soonest_done(&s.head, s.cur);

		x->queuelen.counter++;
		s.cur = x;
	}
	CHECK(s.xprt[2].queuelen.counter == 1,
	      "the untimed path got %ld of 32 requests, want 1",
	      s.xprt[2].queuelen.counter);

	sim_init(&s, ms, 2, SIM_SERVICE_TIME);
	rpc_xprt_record_service(&s.xprt[0], 0, 10 * MS);
	rpc_xprt_record_service(&s.xprt[1], 0, 15 * MS);
	s.xprt[0].queuelen.counter = 1;
	CHECK(rpc_xprt_soonest_done(&s.head, &s.xprt[1]) == &s.xprt[1],
	      "1 queued at 10 ms waits 20 ms, longer than 15 ms idle");
	s.xprt[1].service_ns = 18 * MS;
	s.xprt[0].service_ns = 8 * MS;
	CHECK(rpc_xprt_soonest_done(&s.head, &s.xprt[0]) == &s.xprt[1],
	      "18 ms is within an eighth of 16 ms: a tie, taken in turn");
	s.xprt[1].service_ns = 18 * MS + 1;
	CHECK(rpc_xprt_soonest_done(&s.head, &s.xprt[0]) == &s.xprt[0],
	      "18 ms + 1 ns is past the eighth");
}

/* Equal estimates take turns from the last pick; unusable ones are
 * skipped; an untimed path is probed first.
 */
static void test_turns_and_unusable(void)
{
	const double ms[] = { 10, 10, 10, 10 };
	struct sim s;
	int i;

	sim_init(&s, ms, 4, SIM_SERVICE_TIME);
	for (i = 0; i < 4; i++)
		rpc_xprt_record_service(&s.xprt[i], 0, 10 * MS);
	for (i = 0; i < 8; i++) {
		struct rpc_xprt *x = rpc_xprt_soonest_done(&s.head, s.cur);

		CHECK(sim_index(&s, x) == i % 4, "pick %d went to %d", i,
		      sim_index(&s, x));
		s.cur = x;
	}
	s.xprt[1].state |= 1UL << XPRT_OFFLINE;
	s.xprt[2].kref.refcount = 0;
	s.cur = &s.xprt[0];
	CHECK(rpc_xprt_soonest_done(&s.head, s.cur) == &s.xprt[3],
	      "offline and dying transports are skipped");
	s.xprt[3].state |= 1UL << XPRT_OFFLINE;
	CHECK(rpc_xprt_soonest_done(&s.head, s.cur) == &s.xprt[0],
	      "the only usable one");
	s.xprt[0].state |= 1UL << XPRT_OFFLINE;
	CHECK(!rpc_xprt_soonest_done(&s.head, s.cur), "none usable gives NULL");

	sim_init(&s, ms, 3, SIM_SERVICE_TIME);
	rpc_xprt_record_service(&s.xprt[0], 0, 1 * MS);
	rpc_xprt_record_service(&s.xprt[2], 0, 1 * MS);
	CHECK(rpc_xprt_soonest_done(&s.head, NULL) == &s.xprt[1],
	      "an untimed path is probed first");
	sim_init(&s, ms, 0, SIM_SERVICE_TIME);
	CHECK(!rpc_xprt_soonest_done(&s.head, NULL), "empty list");
}

int main(void)
{
	test_record();
	test_untimed_and_band();
	test_turns_and_unusable();
	test_unequal_usage();
	test_equal_paths();
	test_converges();
	test_rate_change();
	test_probe_recovers();
	printf("servicetime: %d checks, %d failures\n", checks, failures);
	return failures ? 1 : 0;
}
