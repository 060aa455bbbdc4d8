/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Endpoint sets for multipath RPC clients.
 *
 * An endpoint set is a list of network addresses of one family, written by
 * the user as items joined by '~': an address, an inclusive range
 * "FIRST-LAST", or (for local endpoints) an interface name.  The words
 * follow RFC 8587 ("endpoint"); the NFS mount options that carry them are
 * remoteports= and localports=.
 */
#ifndef _LINUX_SUNRPC_ENDPOINTS_H
#define _LINUX_SUNRPC_ENDPOINTS_H

#include <linux/types.h>
#include <linux/socket.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/if.h>

/* Endpoints in one set, after range expansion */
#define RPC_ENDPOINTS_MAX		256
/* Longest item the parser accepts (an IPv6 range fits) */
#define RPC_ENDPOINT_ITEM_MAX		96
/*
 * Room for any text of rpc_endpoints_format(), NUL included: at most 45
 * characters and one separator per endpoint
 */
#define RPC_ENDPOINTS_FORMAT_MAX	(RPC_ENDPOINTS_MAX * 48)

#define RPC_ENDPOINT_SEP		'~'
#define RPC_ENDPOINT_RANGE		'-'

/* rpc_endpoints_parse() flags */
#define RPC_ENDPOINTS_IFNAMES		0x1	/* items may name interfaces */

struct rpc_endpoint {
	union {
		struct sockaddr		sa;
		struct sockaddr_in	sin;
		struct sockaddr_in6	sin6;
	};
	/* Set while the item is an interface name not yet resolved */
	char			ifname[IFNAMSIZ];
};

struct rpc_endpoint_set {
	unsigned int		count;
	sa_family_t		family;
	struct rpc_endpoint	ep[] __counted_by(count);
};

/* Why a set was refused, and the item that was refused */
struct rpc_endpoint_error {
	const char		*reason;
	char			item[RPC_ENDPOINT_ITEM_MAX + 4];
};

int rpc_endpoints_parse(const char *str, unsigned int flags,
			struct rpc_endpoint_set **setp,
			struct rpc_endpoint_error *err);
int rpc_endpoints_finish(struct rpc_endpoint_set *set,
			 struct rpc_endpoint_error *err);
bool rpc_endpoints_resolved(const struct rpc_endpoint_set *set);
struct rpc_endpoint_set *rpc_endpoints_dup(const struct rpc_endpoint_set *set,
					   gfp_t gfp);
void rpc_endpoints_free(struct rpc_endpoint_set *set);
bool rpc_endpoints_equal(const struct rpc_endpoint_set *a,
			 const struct rpc_endpoint_set *b);
int rpc_endpoints_format(const struct rpc_endpoint_set *set, char *buf,
			 size_t len);
void rpc_endpoints_place(unsigned int i, unsigned int nr_remote,
			 unsigned int nr_local, unsigned int offset,
			 unsigned int *remote, unsigned int *local);
unsigned int rpc_endpoints_offset(const char *node,
				  const struct rpc_endpoint_set *local,
				  unsigned int nr_remote);

#endif /* _LINUX_SUNRPC_ENDPOINTS_H */
