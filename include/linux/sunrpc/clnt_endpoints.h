/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Multipath RPC clients: the transports of one rpc_clnt spread over a set
 * of remote endpoints, each bound to one of a set of local endpoints.
 */
#ifndef _LINUX_SUNRPC_CLNT_ENDPOINTS_H
#define _LINUX_SUNRPC_CLNT_ENDPOINTS_H

#include <linux/sunrpc/endpoints.h>

struct net;
struct rpc_clnt;
struct xprt_create;

/*
 * Where the transports of a client go.  Either set may be NULL: without
 * remote endpoints every transport goes to the client's server address,
 * without local endpoints none is bound.  @offset rotates the remote
 * endpoints, so that many clients spread over a server's addresses.
 * @policy (enum rpc_xprt_policy) says how the transports share requests.
 * SunRPC does not look at @flags.
 */
struct rpc_endpoint_config {
	struct rpc_endpoint_set	*remote;
	struct rpc_endpoint_set	*local;
	unsigned int		offset;
	unsigned int		policy;
	unsigned int		flags;	/* the caller's, about the sets */
};

/* Per-transport addresses that outlive one xprt_create call */
struct rpc_endpoint_addrs {
	struct sockaddr_storage	dst;
	struct sockaddr_storage	src;
};

static inline bool
rpc_endpoint_config_active(const struct rpc_endpoint_config *cfg)
{
	return cfg && (cfg->remote || cfg->local);
}

int rpc_endpoints_resolve_local(struct net *net, struct rpc_endpoint_set *set,
				sa_family_t family,
				struct rpc_endpoint_error *err);
unsigned int rpc_endpoints_client_offset(const struct rpc_endpoint_set *local,
					 unsigned int nr_remote);
void rpc_endpoints_xprt_args(const struct rpc_endpoint_config *cfg,
			     unsigned int i, struct xprt_create *xprtargs,
			     struct rpc_endpoint_addrs *addrs);
void rpc_clnt_set_xprt_policy(struct rpc_clnt *clnt, unsigned int policy);
unsigned int rpc_clnt_xprt_policy(struct rpc_clnt *clnt);

#endif /* _LINUX_SUNRPC_CLNT_ENDPOINTS_H */
