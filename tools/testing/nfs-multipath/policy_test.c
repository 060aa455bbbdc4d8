// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the queue-depth path policy, net/sunrpc/xprt_queuedepth.c,
 * compiled unmodified against shim/.
 *
 * A simulated client keeps a fixed number of requests in flight over a set
 * of transports that each complete requests at a given rate.  The policy
 * must use the transports in proportion to their rates, take turns among
 * equal ones, and skip the ones that are offline or going away.  Each
 * completion reports its round trip (ticks since the pick), so that with
 * one or two requests in flight the fast paths carry them.
 */

#include <stdio.h>
#include <math.h>

#include <linux/sunrpc/xprtmultipath.h>
#include "check.h"
#include "../../../net/sunrpc/xprt_queuedepth.h"

#define MAX_XPRTS	8
#define MAX_DEPTH	64
#define TICK_USECS	1000

struct sim {
	struct list_head	head;
	struct rpc_xprt		xprt[MAX_XPRTS];
	double			rate[MAX_XPRTS];	/* completions per tick */
	double			credit[MAX_XPRTS];
	unsigned long		sent[MAX_XPRTS];
	unsigned int		picked[MAX_XPRTS][MAX_DEPTH];	/* FIFO */
	unsigned int		head_of[MAX_XPRTS];
	unsigned int		now;
	unsigned int		n;
	struct rpc_xprt		*cur;
};

static void sim_init(struct sim *s, const double *rate, unsigned int n)
{
	unsigned int i;

	memset(s, 0, sizeof(*s));
	INIT_LIST_HEAD(&s->head);
	s->n = n;
	for (i = 0; i < n; i++) {
		s->xprt[i].kref.refcount = 1;
		s->rate[i] = rate[i];
		list_add_tail(&s->xprt[i].xprt_switch, &s->head);
	}
}

static int sim_index(struct sim *s, const struct rpc_xprt *x)
{
	return x ? (int)(x - s->xprt) : -1;
}

/* Dispatch one request the way the RPC client does: pick, then hold */
static int sim_pick(struct sim *s)
{
	struct rpc_xprt *x = rpc_xprt_least_queued(&s->head, s->cur);

	if (!x || x->queuelen.counter >= MAX_DEPTH)
		return -1;
	int i = sim_index(s, x);

	s->cur = x;
	s->picked[i][(s->head_of[i] + x->queuelen.counter) % MAX_DEPTH] = s->now;
	x->queuelen.counter++;
	s->sent[i]++;
	return i;
}

/* Run @ticks ticks with @depth requests in flight; each transport serves
 * its queue at its rate.
 */
static void sim_run(struct sim *s, unsigned int depth, unsigned int ticks)
{
	unsigned int t, i;
	long inflight = 0;

	for (i = 0; i < s->n; i++)
		inflight += s->xprt[i].queuelen.counter;
	for (t = 0; t < ticks; t++, s->now++) {
		while (inflight < depth && sim_pick(s) >= 0)
			inflight++;
		for (i = 0; i < s->n; i++) {
			atomic_long_t *q = &s->xprt[i].queuelen;

			s->credit[i] += s->rate[i];
			while (s->credit[i] >= 1.0 && q->counter > 0) {
				unsigned int *h = &s->head_of[i];

				s->credit[i] -= 1.0;
				rpc_xprt_record_rtt(&s->xprt[i], (s->now + 1 -
						    s->picked[i][*h]) * TICK_USECS);
				*h = (*h + 1) % MAX_DEPTH;
				q->counter--;
				inflight--;
			}
			if (!q->counter)
				s->credit[i] = 0;
		}
	}
}

static double sim_share(struct sim *s, unsigned int i)
{
	unsigned long total = 0;
	unsigned int k;

	for (k = 0; k < s->n; k++)
		total += s->sent[k];
	return total ? (double)s->sent[i] / total : 0;
}

static void check_shares(struct sim *s, const double *want, double tol,
			 const char *what)
{
	unsigned int i;

	for (i = 0; i < s->n; i++) {
		double got = sim_share(s, i);

		CHECK(fabs(got - want[i]) <= tol,
		      "%s: transport %u share %.3f, want %.3f +- %.3f",
		      what, i, got, want[i], tol);
	}
}

static void test_equal_rates(void)
{
	const double rate[] = { 1, 1, 1, 1 };
	const double want[] = { 0.25, 0.25, 0.25, 0.25 };
	struct sim s;

	sim_init(&s, rate, 4);
	sim_run(&s, 16, 10000);
	check_shares(&s, want, 0.01, "equal rates, depth 16");
}

/* 4:2:1:1, the bench's unequal caps: shares follow the rates */
static void test_unequal_rates(void)
{
	const double rate[] = { 2.0, 1.0, 0.5, 0.5 };
	const double want[] = { 0.5, 0.25, 0.125, 0.125 };
	struct sim s;

	sim_init(&s, rate, 4);
	sim_run(&s, 32, 20000);
	check_shares(&s, want, 0.02, "rates 4:2:1:1, depth 32");
}

/* Two fast, two slow, shallow queue: the slow ones still get little */
static void test_shallow_queue(void)
{
	const double rate[] = { 1.0, 1.0, 0.1, 0.1 };
	struct sim s;

	sim_init(&s, rate, 4);
	sim_run(&s, 4, 20000);
	CHECK(sim_share(&s, 0) + sim_share(&s, 1) >= 0.85,
	      "fast paths carry %.3f of depth-4 traffic, want >= 0.85",
	      sim_share(&s, 0) + sim_share(&s, 1));
}

/* One request at a time on 4:2:1:1 (2, 3, 5 and 5 ticks a request): once
 * the paths are timed, the fastest carries nearly all.  Without the round
 * trips, each would get a quarter.
 */
static void test_one_in_flight(void)
{
	const double rate[] = { 0.8, 0.4, 0.2, 0.2 };
	struct sim s;

	sim_init(&s, rate, 4);
	sim_run(&s, 1, 20000);
	CHECK(sim_share(&s, 0) >= 0.95,
	      "fastest path carries %.3f at depth 1, want >= 0.95",
	      sim_share(&s, 0));
}

/* Two at a time: the two fast paths carry them */
static void test_two_in_flight(void)
{
	const double rate[] = { 0.8, 0.4, 0.2, 0.2 };
	struct sim s;

	sim_init(&s, rate, 4);
	sim_run(&s, 2, 20000);
	CHECK(sim_share(&s, 0) + sim_share(&s, 1) >= 0.95,
	      "fast paths carry %.3f at depth 2, want >= 0.95",
	      sim_share(&s, 0) + sim_share(&s, 1));
}

/* Equal paths timed equal still take turns, one request at a time */
static void test_equal_one_in_flight(void)
{
	const double rate[] = { 0.5, 0.5, 0.5, 0.5 };
	const double want[] = { 0.25, 0.25, 0.25, 0.25 };
	struct sim s;

	sim_init(&s, rate, 4);
	sim_run(&s, 1, 20000);
	check_shares(&s, want, 0.01, "equal rates, depth 1");
}

/* Round trips within a quarter of the fastest count as equal; longer
 * ones lose a tie of queue lengths, but never beat a shorter queue.
 */
static void test_rtt_ties(void)
{
	const double rate[] = { 1, 1, 1 };
	struct sim s;

	sim_init(&s, rate, 3);
	rpc_xprt_record_rtt(&s.xprt[0], 1000);
	rpc_xprt_record_rtt(&s.xprt[1], 1200);
	rpc_xprt_record_rtt(&s.xprt[2], 5000);
	s.cur = &s.xprt[0];
	CHECK(sim_pick(&s) == 1, "1.2 ms is as good as 1 ms");
	s.xprt[0].queuelen.counter = 1;
	CHECK(sim_pick(&s) == 2, "a shorter queue beats a faster path");
	s.xprt[0].queuelen.counter = 0;
	s.xprt[1].queuelen.counter = 0;
	s.xprt[2].queuelen.counter = 0;
	s.cur = &s.xprt[1];
	CHECK(sim_pick(&s) == 0, "5 ms loses a tie to 1 ms");
	rpc_xprt_record_rtt(&s.xprt[2], 1000);
	CHECK(s.xprt[2].rtt_avg == 4000, "a reply weighs a quarter: %lu",
	      s.xprt[2].rtt_avg);
}

/* A path that was slow once gets no more requests at ties, and so no more
 * replies; the path monitor's NULL calls, which are recorded too, are what
 * bring its average back until it wins ties again.
 */
static void test_rtt_ages(void)
{
	const double rate[] = { 1, 1 };
	struct sim s;
	int pings, i;

	sim_init(&s, rate, 2);
	rpc_xprt_record_rtt(&s.xprt[0], 1000);
	rpc_xprt_record_rtt(&s.xprt[1], 50000);
	for (i = 0; i < 4; i++) {
		s.xprt[0].queuelen.counter = 0;
		CHECK(sim_pick(&s) == 0, "the path that was slow loses a tie");
	}
	s.xprt[0].queuelen.counter = 0;
	/* A heartbeat NULL call every 5 s answers in about a millisecond;
	 * each weighs a quarter, so a path fifty times slower than the
	 * fastest is back within 19 of them, about a minute and a half.
	 */
	for (pings = 1; pings <= 30; pings++) {
		rpc_xprt_record_rtt(&s.xprt[1], 1000);
		s.cur = &s.xprt[0];
		if (sim_pick(&s) == 1)
			break;
		s.xprt[0].queuelen.counter = 0;
	}
	CHECK(pings <= 19, "still passed over after %d NULL calls", pings);
}

/* With nothing in flight, equal paths take turns in list order */
static void test_turns(void)
{
	const double rate[] = { 1, 1, 1 };
	struct sim s;
	int i, got;

	sim_init(&s, rate, 3);
	for (i = 0; i < 9; i++) {
		got = sim_pick(&s);
		s.xprt[got].queuelen.counter--;
		CHECK(got == i % 3, "pick %d went to %d, want %d", i, got, i % 3);
	}
}

/* The shortest queue wins wherever it is, before or after the cursor */
static void test_shortest_wins(void)
{
	const double rate[] = { 1, 1, 1, 1 };
	struct sim s;

	sim_init(&s, rate, 4);
	s.xprt[0].queuelen.counter = 1;
	s.xprt[1].queuelen.counter = 3;
	s.xprt[2].queuelen.counter = 5;
	s.xprt[3].queuelen.counter = 2;
	s.cur = &s.xprt[1];
	CHECK(sim_pick(&s) == 0, "shortest queue before the cursor");
	s.cur = &s.xprt[0];
	s.xprt[3].queuelen.counter = 0;
	CHECK(sim_pick(&s) == 3, "shortest queue after the cursor");
	/* a tie between before and after the cursor goes after it */
	s.xprt[0].queuelen.counter = 0;
	s.xprt[3].queuelen.counter = 0;
	s.cur = &s.xprt[2];
	CHECK(sim_pick(&s) == 3, "tie goes to the first after the cursor");
	s.cur = &s.xprt[3];
	s.xprt[3].queuelen.counter = 0;
	CHECK(sim_pick(&s) == 0, "tie wraps around past the end");
}

static void test_unusable(void)
{
	const double rate[] = { 1, 1, 1, 1 };
	struct sim s;
	int i;

	sim_init(&s, rate, 4);
	s.xprt[0].state |= 1UL << XPRT_OFFLINE;
	s.xprt[2].kref.refcount = 0;
	for (i = 0; i < 8; i++) {
		int got = sim_pick(&s);

		CHECK(got == 1 || got == 3, "picked unusable transport %d", got);
	}
	CHECK(s.sent[1] == 4 && s.sent[3] == 4,
	      "the usable ones share: %lu and %lu", s.sent[1], s.sent[3]);
	s.xprt[1].state |= 1UL << XPRT_OFFLINE;
	s.xprt[3].state |= 1UL << XPRT_OFFLINE;
	CHECK(sim_pick(&s) == -1, "all offline gives NULL");
}

static void test_empty_and_stale_cursor(void)
{
	const double rate[] = { 1, 1 };
	struct rpc_xprt stray = { .kref = { 1 } };
	struct sim s;

	sim_init(&s, rate, 0);
	CHECK(rpc_xprt_least_queued(&s.head, NULL) == NULL, "empty list");
	sim_init(&s, rate, 2);
	s.cur = &stray;		/* removed from the switch since */
	CHECK(sim_pick(&s) == 0, "a cursor not in the list starts over");
}

int main(void)
{
	test_equal_rates();
	test_unequal_rates();
	test_shallow_queue();
	test_one_in_flight();
	test_two_in_flight();
	test_equal_one_in_flight();
	test_rtt_ties();
	test_rtt_ages();
	test_turns();
	test_shortest_wins();
	test_unusable();
	test_empty_and_stale_cursor();
	printf("policy: %d checks, %d failures\n", checks, failures);
	return failures ? 1 : 0;
}
