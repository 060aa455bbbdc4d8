// SPDX-License-Identifier: GPL-2.0
/*
 * Placement at scale: a host simulation of many clients that mount one
 * server's remote endpoints, built against shim/ with the real
 * net/sunrpc/endpoints.c.
 *
 * Each client has a node name ("cn0001", ...) and, in most layouts, two
 * local endpoints (10.1.x.y and 10.2.x.y, as on a cluster with two
 * networks).  Its offset is computed as the kernel computes it, by
 * rpc_endpoints_offset() reduced as nfs_endpoints_set_offset() reduces
 * it, and each of its transports goes where rpc_endpoints_place() puts
 * it.  The simulation counts the transports of every remote endpoint and
 * prints, for each case, the mean, the extremes and their ratios to the
 * mean, beside the ratio that the hashed offset of before gave;
 * "placement: ... max/mean X" is the line to grep.
 *
 * It checks what the offset guarantees: for a run of up to 1000 clients
 * with consecutive addresses, wherever the run starts, every remote
 * endpoint carries the mean number of transports within less than 4, so
 * 1000 clients with nconnect=8 over 64 endpoints stay within 1.10 of the
 * mean.  Random addresses and node names spread as a hash spreads them:
 * only reported.
 *
 * "-q" prints only the failures and the summary line.  Exits non-zero on
 * any failure.
 */
#include <arpa/inet.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "shim/shim.h"
#include <linux/jhash.h>
#include <linux/sunrpc/endpoints.h>

#define MAX_REMOTES	256
/* The documented bound: every endpoint within less than this of the mean */
#define SPREAD_BOUND	4.0
#define SPREAD_HOSTS	1000
/* The goal for 1000 clients, nconnect=8, 64 endpoints */
#define GOAL_RATIO	1.10
/* 2^32 / phi^2, rounded: GOLDEN_RATIO_32 of <linux/hash.h> */
#define PHI_32		0x61c88647u

enum layout {
	CONSECUTIVE,	/* from 10.1.0.1 up, across /24 boundaries */
	RACKS,		/* 40 hosts per /24: 10.1.R.1 to 10.1.R.40 */
	RANDOM,		/* anywhere in 10.0.0.0/8, fixed seed */
	CONSECUTIVE6,	/* fd00:1::1:0:1 up */
	NODENAME,	/* no localports=: the node name alone */
};

static const char *const layout_names[] = {
	[CONSECUTIVE]	= "consecutive local addresses",
	[RACKS]		= "40 hosts per /24",
	[RANDOM]	= "random local addresses",
	[CONSECUTIVE6]	= "consecutive IPv6 local addresses",
	[NODENAME]	= "no localports, node name only",
};

struct scenario {
	unsigned int	clients;
	unsigned int	nconnect;
	unsigned int	remotes;
	enum layout	layout;
	u32		base;		/* CONSECUTIVE: the first address */
};

struct result {
	unsigned int	min, max;
	double		mean;
};

typedef unsigned int (*offset_fn)(const char *node,
				  const struct rpc_endpoint_set *local,
				  unsigned int nr_remote);

static unsigned int checks, failures;
static bool quiet;

static void check(bool cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void check(bool cond, const char *fmt, ...)
{
	va_list ap;

	checks++;
	if (cond)
		return;
	failures++;
	fprintf(stderr, "FAIL ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
}

static unsigned long long rng_state;

static u32 rnd32(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (u32)(rng_state >> 16);
}

static void v4_text(char *buf, size_t len, u32 host_order)
{
	struct in_addr a = { .s_addr = htonl(host_order) };

	inet_ntop(AF_INET, &a, buf, len);
}

/* The localports= of client @c (from 0) of @s, or "" for none */
static void local_text(char *buf, size_t len, const struct scenario *s,
		       unsigned int c)
{
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
	u32 host;

	switch (s->layout) {
	case CONSECUTIVE:
		host = (s->base ?: 0x0a010001) + c;	/* 10.1.0.1 + c */
		break;
	case RACKS:
		host = 0x0a010001 + (c / 40) * 256 + c % 40;
		break;
	case RANDOM:
		host = 0x0a000000 | (rnd32() & 0x00ffffff);
		break;
	case CONSECUTIVE6:
		host = 0x10001 + c;
		snprintf(buf, len, "fd00:1::1:%x:%x~fd00:2::1:%x:%x",
			 host >> 16, host & 0xffff, host >> 16, host & 0xffff);
		return;
	default:
		buf[0] = '\0';
		return;
	}
	v4_text(a, sizeof(a), host);
	v4_text(b, sizeof(b), host + 0x00010000);	/* 10.2.x.y */
	snprintf(buf, len, "%s~%s", a, b);
}

static struct rpc_endpoint_set *local_set(const struct scenario *s,
					  unsigned int c)
{
	struct rpc_endpoint_set *set = NULL;
	struct rpc_endpoint_error err;
	char text[2 * INET6_ADDRSTRLEN + 2];

	local_text(text, sizeof(text), s, c);
	if (!text[0])
		return NULL;
	if (rpc_endpoints_parse(text, 0, &set, &err) ||
	    rpc_endpoints_finish(set, &err)) {
		check(false, "localports=%s: %s '%s'", text, err.reason,
		      err.item);
		rpc_endpoints_free(set);
		return NULL;
	}
	return set;
}

/* The offset of a mount, as fs/nfs/multipath.c's nfs_endpoints_set_offset()
 * derives it: rpc_endpoints_client_offset() is rpc_endpoints_offset() of
 * the node name
 */
static unsigned int mount_offset(const char *node,
				 const struct rpc_endpoint_set *local,
				 unsigned int nr_remote)
{
	unsigned int offset = rpc_endpoints_offset(node, local, nr_remote);

	check(offset < nr_remote, "%s: offset %u of %u", node, offset,
	      nr_remote);
	return offset % nr_remote;
}

/* The offset before Fibonacci hashing, for comparison: a jhash of the
 * node name and the first local endpoint, modulo the number of remotes
 */
static unsigned int jhash_offset(const char *node,
				 const struct rpc_endpoint_set *local,
				 unsigned int nr_remote)
{
	const struct rpc_endpoint *ep;
	u32 hash;

	hash = jhash(node, strlen(node), 0);
	if (local && local->count) {
		ep = &local->ep[0];
		if (ep->sa.sa_family == AF_INET6)
			hash = jhash(&ep->sin6.sin6_addr,
				     sizeof(ep->sin6.sin6_addr), hash);
		else
			hash = jhash_1word(ep->sin.sin_addr.s_addr, hash);
	}
	return hash % nr_remote;
}

static void simulate(const struct scenario *s, offset_fn offset_of,
		     struct result *res)
{
	unsigned int load[MAX_REMOTES] = { 0 };
	struct rpc_endpoint_set *local;
	unsigned int c, i, r, l, offset;
	char node[16];

	rng_state = 0x9e3779b97f4a7c15ull;
	for (c = 0; c < s->clients; c++) {
		snprintf(node, sizeof(node), "cn%04u", c + 1);
		local = local_set(s, c);
		offset = offset_of(node, local, s->remotes);
		for (i = 0; i < s->nconnect; i++) {
			rpc_endpoints_place(i, s->remotes,
					    local ? local->count : 0, offset,
					    &r, &l);
			load[r]++;
		}
		rpc_endpoints_free(local);
	}
	res->min = UINT_MAX;
	res->max = 0;
	for (r = 0; r < s->remotes; r++) {
		res->min = min(res->min, load[r]);
		res->max = max(res->max, load[r]);
	}
	res->mean = (double)s->clients * s->nconnect / s->remotes;
}

static bool consecutive(const struct scenario *s)
{
	return s->layout == CONSECUTIVE || s->layout == CONSECUTIVE6;
}

/* What the offset guarantees for consecutive addresses */
static void check_spread(const struct scenario *s, const struct result *res)
{
	char first[2 * INET6_ADDRSTRLEN + 2];

	if (!consecutive(s) || s->clients > SPREAD_HOSTS)
		return;
	local_text(first, sizeof(first), s, 0);
	check(res->max < res->mean + SPREAD_BOUND &&
	      res->min > res->mean - SPREAD_BOUND,
	      "%u clients (%s, the first %s) nconnect=%u over %u endpoints: %u to %u transports per endpoint, mean %.2f: not within %.0f",
	      s->clients, layout_names[s->layout], first, s->nconnect,
	      s->remotes, res->min, res->max, res->mean, SPREAD_BOUND);
}

static const struct scenario main_case = { 1000,  8,  64, CONSECUTIVE, 0 };

static const struct scenario table[] = {
	{ 1000,  8,  64, CONSECUTIVE, 0 },
	{ 1000,  8,  64, RACKS, 0 },
	{ 1000,  8,  64, CONSECUTIVE6, 0 },
	{ 1000,  8,  64, RANDOM, 0 },
	{ 1000,  8,  64, NODENAME, 0 },
	{  100,  4,  16, CONSECUTIVE, 0 },
	{  100,  4,  16, RANDOM, 0 },
	{  100,  4,  16, NODENAME, 0 },
	{ 1000,  4,  64, CONSECUTIVE, 0 },
	{ 1000,  4,  64, RANDOM, 0 },
	{ 1000,  4,  64, NODENAME, 0 },
	{ 1000, 16,  64, CONSECUTIVE, 0 },
	{ 1000, 16,  64, RANDOM, 0 },
	{ 1000, 16,  64, NODENAME, 0 },
	{ 1000,  8,  48, CONSECUTIVE, 0 },
	{ 1000,  8,  48, NODENAME, 0 },
	{ 1000, 24,  16, CONSECUTIVE, 0 },
	{ 1000, 24,  16, NODENAME, 0 },
};

/* Runs of consecutive addresses that start elsewhere */
static const struct scenario starts[] = {
	{ 1000,  8, 64, CONSECUTIVE, 0x0a0100c8 },	/* 10.1.0.200 */
	{ 1000,  8, 64, CONSECUTIVE, 0xac10fc19 },	/* 172.16.252.25 */
	{  700,  8, 64, CONSECUTIVE, 0xc0a80001 },	/* 192.168.0.1 */
	{  254,  4, 32, CONSECUTIVE, 0xc0a80101 },	/* one /24 */
	{   37,  3,  7, CONSECUTIVE, 0x0a000005 },
	{ 1000, 12, 256, CONSECUTIVE, 0x0afffe00 },
	{ 1000, 64, 48, CONSECUTIVE, 0x0a400000 },
};

static void run_table(void)
{
	struct result res, old;
	unsigned int k;

	if (!quiet)
		printf("placement: %7s %8s %7s  %-32s %7s %5s %5s %8s %8s %8s\n",
		       "clients", "nconnect", "remotes", "local endpoints",
		       "mean", "min", "max", "max/mean", "min/mean",
		       "jhash");
	for (k = 0; k < ARRAY_SIZE(table); k++) {
		const struct scenario *s = &table[k];

		simulate(s, mount_offset, &res);
		simulate(s, jhash_offset, &old);
		check_spread(s, &res);
		if (!quiet)
			printf("placement: %7u %8u %7u  %-32s %7.2f %5u %5u %8.3f %8.3f %8.3f\n",
			       s->clients, s->nconnect, s->remotes,
			       layout_names[s->layout], res.mean, res.min,
			       res.max, res.max / res.mean,
			       res.min / res.mean, old.max / old.mean);
	}
	for (k = 0; k < ARRAY_SIZE(starts); k++) {
		simulate(&starts[k], mount_offset, &res);
		check_spread(&starts[k], &res);
	}
}

/* The case, in one line */
static void run_main_case(void)
{
	struct result res, old;

	simulate(&main_case, mount_offset, &res);
	simulate(&main_case, jhash_offset, &old);
	if (!quiet)
		printf("placement: %u clients nconnect=%u over %u endpoints (%s): max/mean %.3f (was %.3f with the jhash offset)\n",
		       main_case.clients, main_case.nconnect,
		       main_case.remotes, layout_names[main_case.layout],
		       res.max / res.mean, old.max / old.mean);
	check(res.max / res.mean <= GOAL_RATIO,
	      "%u clients nconnect=%u over %u endpoints (%s): max/mean %.3f > %.2f",
	      main_case.clients, main_case.nconnect, main_case.remotes,
	      layout_names[main_case.layout], res.max / res.mean, GOAL_RATIO);
}

static int u32_cmp(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/*
 * The bound for runs that start anywhere.  Client k of a run from key b
 * has the point frac((b + k) * PHI_32 / 2^32) of the circle,
 * and an endpoint's transports are the clients whose point falls in one
 * arc (of length N / R when N < R, of length (N mod R) / R beyond
 * floor(N / R) each otherwise).  The start b only rotates the points, so
 * the worst arc over every start is the extreme discrepancy of the points
 * of keys 0 to M - 1: with the points x_0 <= ... <= x_{M-1} in [0, 1),
 * M * D = 1 + max(i - M x_i) - min(i - M x_i).
 */
static void check_discrepancy(void)
{
	static u32 pts[SPREAD_HOSTS];
	double worst = 0, d, v, hi, lo;
	unsigned int m, i, worst_m = 0;

	for (m = 1; m <= SPREAD_HOSTS; m++) {
		pts[m - 1] = (u32)(m - 1) * PHI_32;
		qsort(pts, m, sizeof(pts[0]), u32_cmp);
		hi = -INFINITY;
		lo = INFINITY;
		for (i = 0; i < m; i++) {
			v = i - m * (pts[i] / 4294967296.0);
			hi = fmax(hi, v);
			lo = fmin(lo, v);
		}
		d = 1 + hi - lo;
		if (d > worst) {
			worst = d;
			worst_m = m;
		}
	}
	if (!quiet)
		printf("placement: any run of up to %u consecutive keys, from any start: every arc holds its share within %.3f (worst at %u keys)\n",
		       SPREAD_HOSTS, worst, worst_m);
	check(worst < SPREAD_BOUND,
	      "runs of up to %u consecutive keys: an arc off its share by %.3f",
	      SPREAD_HOSTS, worst);
}

static struct rpc_endpoint_set *parse_finish(const char *text)
{
	struct rpc_endpoint_set *set = NULL;
	struct rpc_endpoint_error err;

	if (rpc_endpoints_parse(text, 0, &set, &err) ||
	    rpc_endpoints_finish(set, &err)) {
		check(false, "%s: %s '%s'", text, err.reason, err.item);
		rpc_endpoints_free(set);
		return NULL;
	}
	return set;
}

/* What rpc_endpoints_offset() promises, case by case */
static void check_offset(void)
{
	struct rpc_endpoint_set *v4, *v6, *two;
	unsigned int r, o, want;

	v4 = parse_finish("10.1.3.7");
	v6 = parse_finish("fd00::a01:307");
	/* the first endpoint is the lowest address, not the first given */
	two = parse_finish("10.2.0.1~10.1.3.7");
	if (!v4 || !v6 || !two)
		goto out;
	for (r = 0; r <= RPC_ENDPOINTS_MAX; r++) {
		o = rpc_endpoints_offset("cn0001", v4, r);
		want = (u32)(((u64)(u32)(0x0a010307u * PHI_32) * r) >>
			     32);
		check(o == want, "10.1.3.7, R=%u: offset %u, want %u", r, o,
		      want);
		check(r ? o < r : o == 0, "R=%u: offset %u", r, o);
		check(rpc_endpoints_offset("other", v4, r) == o,
		      "R=%u: the node name counts with local endpoints", r);
		check(rpc_endpoints_offset("cn0001", v6, r) == o,
		      "R=%u: fd00::a01:307 and 10.1.3.7 differ", r);
		check(rpc_endpoints_offset("cn0001", two, r) == o,
		      "R=%u: 10.2.0.1~10.1.3.7 is not keyed on 10.1.3.7", r);
		o = rpc_endpoints_offset("cn0001", NULL, r);
		check(r ? o < r : o == 0, "R=%u: node name offset %u", r, o);
	}
out:
	rpc_endpoints_free(v4);
	rpc_endpoints_free(v6);
	rpc_endpoints_free(two);
}

int main(int argc, char **argv)
{
	quiet = argc > 1 && !strcmp(argv[1], "-q");
	check_offset();
	check_discrepancy();
	run_table();
	run_main_case();
	check(shim_live_allocs == 0, "%ld allocations live", shim_live_allocs);
	printf("unit: placement: %u checks, %u failures\n", checks, failures);
	return failures ? 1 : 0;
}
