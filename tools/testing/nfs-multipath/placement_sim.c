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
 * mean; "placement: ... max/mean X" is the line to grep.
 *
 * Exits non-zero when a set is refused; the balance is only reported.
 */
#include <arpa/inet.h>
#include <stdio.h>

#include "shim/shim.h"
#include <linux/sunrpc/endpoints.h>

#define MAX_REMOTES	256

enum layout {
	CONSECUTIVE,	/* 10.1.0.1 upward, across /24 boundaries */
	RACKS,		/* 40 hosts per /24: 10.1.R.1 to 10.1.R.40 */
	RANDOM,		/* anywhere in 10.0.0.0/8, fixed seed */
	CONSECUTIVE6,	/* fd00:1::1:0:1 upward */
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
};

struct result {
	unsigned int	min, max;
	double		mean;
};

static unsigned int failures;

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

/* The localports= of client @c (from 0) in @layout, or "" for none */
static void local_text(char *buf, size_t len, enum layout layout,
		       unsigned int c)
{
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
	u32 host;

	switch (layout) {
	case CONSECUTIVE:
		host = 0x0a010001 + c;			/* 10.1.0.1 + c */
		break;
	case RACKS:
		host = 0x0a010001 + (c / 40) * 256 + c % 40;
		break;
	case RANDOM:
		host = 0x0a000000 | (rnd32() & 0x00ffffff);
		break;
	case CONSECUTIVE6:
		snprintf(buf, len, "fd00:1::1:%x:%x~fd00:2::1:%x:%x",
			 (0x10000 + c) >> 16, (0x10000 + c) & 0xffff,
			 (0x10000 + c) >> 16, (0x10000 + c) & 0xffff);
		return;
	default:
		buf[0] = '\0';
		return;
	}
	v4_text(a, sizeof(a), host);
	v4_text(b, sizeof(b), host + 0x00010000);	/* 10.2.x.y */
	snprintf(buf, len, "%s~%s", a, b);
}

static struct rpc_endpoint_set *local_set(enum layout layout, unsigned int c)
{
	struct rpc_endpoint_set *set = NULL;
	struct rpc_endpoint_error err;
	char text[2 * INET6_ADDRSTRLEN + 2];

	local_text(text, sizeof(text), layout, c);
	if (!text[0])
		return NULL;
	if (rpc_endpoints_parse(text, 0, &set, &err) ||
	    rpc_endpoints_finish(set, &err)) {
		printf("FAIL localports=%s: %s '%s'\n", text, err.reason,
		       err.item);
		failures++;
		rpc_endpoints_free(set);
		return NULL;
	}
	return set;
}

/* The offset of a mount, as fs/nfs/multipath.c's nfs_endpoints_set_offset()
 * derives it from the node name and the local endpoints
 */
static unsigned int mount_offset(const char *node,
				 const struct rpc_endpoint_set *local,
				 unsigned int nr_remote)
{
	unsigned int offset = rpc_endpoints_offset(node, local);

	return offset % nr_remote;
}

static void simulate(const struct scenario *s, struct result *res)
{
	unsigned int load[MAX_REMOTES] = { 0 };
	struct rpc_endpoint_set *local;
	unsigned int c, i, r, l, offset;
	char node[16];

	rng_state = 0x9e3779b97f4a7c15ull;
	for (c = 0; c < s->clients; c++) {
		snprintf(node, sizeof(node), "cn%04u", c + 1);
		local = local_set(s->layout, c);
		offset = mount_offset(node, local, s->remotes);
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

static const struct scenario main_case = { 1000, 8, 64, CONSECUTIVE };

static const struct scenario table[] = {
	{ 1000,  8, 64, CONSECUTIVE },
	{ 1000,  8, 64, RACKS },
	{ 1000,  8, 64, CONSECUTIVE6 },
	{ 1000,  8, 64, RANDOM },
	{ 1000,  8, 64, NODENAME },
	{  100,  4, 16, CONSECUTIVE },
	{  100,  4, 16, RANDOM },
	{  100,  4, 16, NODENAME },
	{ 1000,  4, 64, CONSECUTIVE },
	{ 1000,  4, 64, NODENAME },
	{ 1000, 16, 64, CONSECUTIVE },
	{ 1000, 16, 64, NODENAME },
	{ 1000,  8, 48, CONSECUTIVE },
	{ 1000,  8, 48, NODENAME },
	{ 1000, 24, 16, CONSECUTIVE },
	{ 1000, 24, 16, NODENAME },
};

int main(void)
{
	struct result res;
	unsigned int k;

	printf("placement: %7s %8s %7s  %-32s %7s %5s %5s %8s %8s\n",
	       "clients", "nconnect", "remotes", "local endpoints", "mean",
	       "min", "max", "max/mean", "min/mean");
	for (k = 0; k < ARRAY_SIZE(table); k++) {
		const struct scenario *s = &table[k];

		simulate(s, &res);
		printf("placement: %7u %8u %7u  %-32s %7.2f %5u %5u %8.3f %8.3f\n",
		       s->clients, s->nconnect, s->remotes,
		       layout_names[s->layout], res.mean, res.min, res.max,
		       res.max / res.mean, res.min / res.mean);
	}

	simulate(&main_case, &res);
	printf("placement: %u clients nconnect=%u over %u endpoints (%s): max/mean %.3f\n",
	       main_case.clients, main_case.nconnect, main_case.remotes,
	       layout_names[main_case.layout], res.max / res.mean);

	if (shim_live_allocs) {
		printf("FAIL %ld allocations live\n", shim_live_allocs);
		failures++;
	}
	printf("unit: placement: %u failures\n", failures);
	return failures ? 1 : 0;
}
