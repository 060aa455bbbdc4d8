// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for net/sunrpc/endpoints.c, built against shim/.
 *
 * Every input is parsed with and without RPC_ENDPOINTS_IFNAMES.  Refusals
 * must be clean; accepted sets must be well formed, print, parse back to
 * an equal set and print the same again.  Interface names are resolved to
 * made-up addresses and the set finished, to exercise the caller's path.
 */
#include <stdio.h>

#include "shim/shim.h"
#include <linux/sunrpc/endpoints.h>

#define FUZZ_ASSERT(cond)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "assertion failed: %s (line %d)\n", \
				#cond, __LINE__);			\
			abort();					\
		}							\
	} while (0)

static char text[RPC_ENDPOINTS_FORMAT_MAX];
static char text2[RPC_ENDPOINTS_FORMAT_MAX];

static const u8 *ep_addr(const struct rpc_endpoint *ep)
{
	if (ep->sa.sa_family == AF_INET6)
		return ep->sin6.sin6_addr.s6_addr;
	return (const u8 *)&ep->sin.sin_addr;
}

static size_t ep_len(const struct rpc_endpoint *ep)
{
	return ep->sa.sa_family == AF_INET6 ? 16 : 4;
}

static void check_refusal(int ret, const struct rpc_endpoint_set *set,
			  const struct rpc_endpoint_error *err)
{
	FUZZ_ASSERT(ret == -EINVAL || ret == -ENOMEM);
	FUZZ_ASSERT(set == NULL);
	FUZZ_ASSERT(err->reason != NULL && err->reason[0] != '\0');
	FUZZ_ASSERT(memchr(err->item, '\0', sizeof(err->item)) != NULL);
}

/* A finished set: one family, sorted, no duplicates, no ports */
static void check_finished(const struct rpc_endpoint_set *set)
{
	unsigned int i;

	FUZZ_ASSERT(set->count >= 1 && set->count <= RPC_ENDPOINTS_MAX);
	FUZZ_ASSERT(set->family == AF_INET || set->family == AF_INET6);
	for (i = 0; i < set->count; i++) {
		FUZZ_ASSERT(set->ep[i].sa.sa_family == set->family);
		FUZZ_ASSERT(set->ep[i].ifname[0] == '\0');
		if (i)
			FUZZ_ASSERT(memcmp(ep_addr(&set->ep[i - 1]),
					   ep_addr(&set->ep[i]),
					   ep_len(&set->ep[i])) < 0);
	}
}

/* Print, parse back, compare, print again */
static void round_trip(const struct rpc_endpoint_set *set, unsigned int flags)
{
	struct rpc_endpoint_set *again = NULL, *copy;
	struct rpc_endpoint_error err;
	int len, len2, ret;

	len = rpc_endpoints_format(set, text, sizeof(text));
	FUZZ_ASSERT(len > 0 && (size_t)len == strlen(text));
	FUZZ_ASSERT(rpc_endpoints_format(set, text2, len) == -ENOSPC);
	ret = rpc_endpoints_parse(text, flags, &again, &err);
	if (ret)
		fprintf(stderr, "reparse \"%s\": %s \"%s\"\n", text,
			err.reason, err.item);
	FUZZ_ASSERT(ret == 0);
	FUZZ_ASSERT(rpc_endpoints_equal(set, again));
	FUZZ_ASSERT(rpc_endpoints_equal(again, set));
	len2 = rpc_endpoints_format(again, text2, sizeof(text2));
	FUZZ_ASSERT(len2 == len && !strcmp(text, text2));
	copy = rpc_endpoints_dup(set, GFP_KERNEL);
	FUZZ_ASSERT(copy && rpc_endpoints_equal(copy, set));
	rpc_endpoints_free(copy);
	rpc_endpoints_free(again);
}

/* Resolve every name to a made-up address, as the kernel glue would */
static void resolve_and_finish(struct rpc_endpoint_set *set)
{
	sa_family_t family = set->family == AF_INET6 ? AF_INET6 : AF_INET;
	struct rpc_endpoint_error err;
	struct rpc_endpoint *ep;
	unsigned int i;
	int ret;

	for (i = 0; i < set->count; i++) {
		ep = &set->ep[i];
		if (!ep->ifname[0])
			continue;
		memset(ep, 0, sizeof(*ep));
		ep->sa.sa_family = family;
		if (family == AF_INET) {
			ep->sin.sin_addr.s_addr = htonl(0x0a000000 | (i * 7));
		} else {
			/* never link-local, which the kernel skips */
			ep->sin6.sin6_addr.s6_addr[0] = 0xfd;
			ep->sin6.sin6_addr.s6_addr[15] = i * 7;
			ep->sin6.sin6_addr.s6_addr[14] = (i * 7) >> 8;
		}
	}
	FUZZ_ASSERT(rpc_endpoints_resolved(set));
	ret = rpc_endpoints_finish(set, &err);
	if (ret) {
		FUZZ_ASSERT(ret == -EINVAL);
		FUZZ_ASSERT(!strcmp(err.reason, "duplicate endpoint"));
		return;
	}
	check_finished(set);
	round_trip(set, 0);
}

static void one(const char *str, unsigned int flags,
		struct rpc_endpoint_set **out)
{
	struct rpc_endpoint_error err;
	struct rpc_endpoint_set *set = (void *)1;
	int ret;

	*out = NULL;
	ret = rpc_endpoints_parse(str, flags, &set, &err);
	if (ret) {
		check_refusal(ret, set, &err);
		return;
	}
	FUZZ_ASSERT(set != NULL && err.reason == NULL);
	FUZZ_ASSERT(set->count >= 1 && set->count <= RPC_ENDPOINTS_MAX);
	if (rpc_endpoints_resolved(set))
		check_finished(set);
	else
		FUZZ_ASSERT(flags & RPC_ENDPOINTS_IFNAMES);
	round_trip(set, flags);
	*out = set;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rpc_endpoint_set *plain, *names;
	char *str;

	str = malloc(size + 1);
	if (!str)
		return 0;
	memcpy(str, data, size);
	str[size] = '\0';

	one(str, 0, &plain);
	one(str, RPC_ENDPOINTS_IFNAMES, &names);
	/* names only widen what is accepted; addresses mean the same */
	if (plain)
		FUZZ_ASSERT(names && rpc_endpoints_equal(plain, names));
	if (names && rpc_endpoints_resolved(names))
		FUZZ_ASSERT(plain != NULL);
	if (names && !rpc_endpoints_resolved(names))
		resolve_and_finish(names);

	rpc_endpoints_free(plain);
	rpc_endpoints_free(names);
	free(str);
	FUZZ_ASSERT(shim_live_allocs == 0);
	return 0;
}
