// SPDX-License-Identifier: GPL-2.0
/*
 * Multipath RPC clients: tie endpoint sets to the network stack.
 *
 * The transports of one rpc_clnt are placed over remote and local
 * endpoints by rpc_endpoints_place().  This file resolves local endpoints
 * in a network namespace and aims each new transport at its pair;
 * path_monitor.c watches the paths, endpoints_stats.c shows them.
 */

#include <linux/inetdevice.h>
#include <linux/netdevice.h>
#include <linux/utsname.h>
#include <net/addrconf.h>
#include <net/if_inet6.h>
#include <net/ipv6_stubs.h>

#include <linux/sunrpc/addr.h>
#include <linux/sunrpc/clnt.h>
#include <linux/sunrpc/xprt.h>
#include <linux/sunrpc/xprtmultipath.h>
#include <linux/sunrpc/clnt_endpoints.h>

#include "sunrpc.h"

static size_t rpc_endpoint_addrlen(sa_family_t family)
{
	return family == AF_INET6 ? sizeof(struct sockaddr_in6) :
				    sizeof(struct sockaddr_in);
}

static int rpc_endpoint_fail(struct rpc_endpoint_error *err,
			     const char *reason, const struct rpc_endpoint *ep)
{
	err->reason = reason;
	if (ep->ifname[0])
		strscpy(err->item, ep->ifname, sizeof(err->item));
	else
		snprintf(err->item, sizeof(err->item), "%pISc", &ep->sa);
	return -EINVAL;
}

/* The primary IPv4 address of @dev */
static int rpc_endpoint_from_dev4(struct net_device *dev,
				  struct rpc_endpoint *ep)
{
	const struct in_ifaddr *ifa;
	struct in_device *in_dev;
	int ret = -EADDRNOTAVAIL;

	rcu_read_lock();
	in_dev = __in_dev_get_rcu(dev);
	if (in_dev) {
		in_dev_for_each_ifa_rcu(ifa, in_dev) {
			if (ifa->ifa_flags & IFA_F_SECONDARY)
				continue;
			ep->sin.sin_family = AF_INET;
			ep->sin.sin_addr.s_addr = ifa->ifa_local;
			ret = 0;
			break;
		}
	}
	rcu_read_unlock();
	return ret;
}

#if IS_ENABLED(CONFIG_IPV6)
/* An address a transport may bind to: one that passed DAD and is not
 * deprecated, nor link-local (that one needs a scope)
 */
static bool rpc_endpoint_ifa6_usable(const struct inet6_ifaddr *ifp)
{
	if (ifp->flags & (IFA_F_TENTATIVE | IFA_F_DADFAILED |
			  IFA_F_OPTIMISTIC | IFA_F_DEPRECATED))
		return false;
	return !(ipv6_addr_type(&ifp->addr) & IPV6_ADDR_LINKLOCAL);
}

/* The first usable global IPv6 address of @dev */
static int rpc_endpoint_from_dev6(struct net_device *dev,
				  struct rpc_endpoint *ep)
{
	const struct inet6_ifaddr *ifp;
	struct inet6_dev *idev;
	int ret = -EADDRNOTAVAIL;

	rcu_read_lock();
	idev = __in6_dev_get(dev);
	if (idev) {
		read_lock_bh(&idev->lock);
		list_for_each_entry(ifp, &idev->addr_list, if_list) {
			if (!rpc_endpoint_ifa6_usable(ifp))
				continue;
			ep->sin6.sin6_family = AF_INET6;
			ep->sin6.sin6_addr = ifp->addr;
			ret = 0;
			break;
		}
		read_unlock_bh(&idev->lock);
	}
	rcu_read_unlock();
	return ret;
}

/* Through the stub, which works without IPv6 loaded: sunrpc.ko does not
 * need ipv6.ko
 */
static bool rpc_endpoint_is_local6(struct net *net,
				   const struct rpc_endpoint *ep)
{
	struct net_device *dev;
	bool found;

	rcu_read_lock();
	dev = ipv6_stub->ipv6_dev_find(net, &ep->sin6.sin6_addr, NULL);
	found = !IS_ERR_OR_NULL(dev);
	rcu_read_unlock();
	return found;
}
#else
static int rpc_endpoint_from_dev6(struct net_device *dev,
				  struct rpc_endpoint *ep)
{
	return -EADDRNOTAVAIL;
}

static bool rpc_endpoint_is_local6(struct net *net,
				   const struct rpc_endpoint *ep)
{
	return false;
}
#endif

static int rpc_endpoint_from_ifname(struct net *net, sa_family_t family,
				    struct rpc_endpoint *ep,
				    struct rpc_endpoint_error *err)
{
	struct net_device *dev;
	int ret;

	dev = dev_get_by_name(net, ep->ifname);
	if (!dev)
		return rpc_endpoint_fail(err, "unknown interface", ep);
	if (family == AF_INET6)
		ret = rpc_endpoint_from_dev6(dev, ep);
	else
		ret = rpc_endpoint_from_dev4(dev, ep);
	dev_put(dev);
	if (ret)
		return rpc_endpoint_fail(err, "interface has no address", ep);
	ep->ifname[0] = '\0';
	return 0;
}

static bool rpc_endpoint_is_local(struct net *net,
				  const struct rpc_endpoint *ep)
{
	bool found;

	if (ep->sa.sa_family == AF_INET6)
		return rpc_endpoint_is_local6(net, ep);
	rcu_read_lock();
	found = __ip_dev_find(net, ep->sin.sin_addr.s_addr, false);
	rcu_read_unlock();
	return found;
}

/**
 * rpc_endpoints_resolve_local - make a set of local endpoints usable
 * @net: network namespace of the mount
 * @set: parsed set, which may hold interface names
 * @family: address family of the remote side
 * @err: on failure, the reason and the item refused
 *
 * Replaces each interface name with that interface's primary address of
 * @family, checks that every address is configured on this host, and
 * finishes the set (sorted, no duplicates, one family).
 *
 * Return: 0 on success, or a negative errno with @err filled in.
 */
int rpc_endpoints_resolve_local(struct net *net, struct rpc_endpoint_set *set,
				sa_family_t family,
				struct rpc_endpoint_error *err)
{
	struct rpc_endpoint *ep;
	unsigned int i;
	int ret;

	for (i = 0; i < set->count; i++) {
		ep = &set->ep[i];
		if (ep->ifname[0]) {
			ret = rpc_endpoint_from_ifname(net, family, ep, err);
			if (ret)
				return ret;
		} else if (!rpc_endpoint_is_local(net, ep)) {
			return rpc_endpoint_fail(err,
						 "address not configured on this host",
						 ep);
		}
	}
	return rpc_endpoints_finish(set, err);
}
EXPORT_SYMBOL_GPL(rpc_endpoints_resolve_local);

/**
 * rpc_endpoints_client_offset - where this client starts in the remotes
 * @local: local endpoints of the mount, resolved; may be NULL
 * @nr_remote: number of remote endpoints
 *
 * rpc_endpoints_offset() of this host's node name and @local: the first
 * local endpoint's address, or without one the node name, chooses the
 * offset, so that many clients with fewer transports than remote
 * endpoints spread over all of them without talking to each other, and
 * one client keeps its choice across mounts.
 *
 * Return: the offset, below @nr_remote (0 when @nr_remote is 0).
 */
unsigned int rpc_endpoints_client_offset(const struct rpc_endpoint_set *local,
					 unsigned int nr_remote)
{
	return rpc_endpoints_offset(utsname()->nodename, local, nr_remote);
}
EXPORT_SYMBOL_GPL(rpc_endpoints_client_offset);

static void rpc_endpoint_copy_addr(struct sockaddr_storage *dst,
				   const struct rpc_endpoint *ep,
				   unsigned short port)
{
	memset(dst, 0, sizeof(*dst));
	memcpy(dst, &ep->sa, rpc_endpoint_addrlen(ep->sa.sa_family));
	rpc_set_port((struct sockaddr *)dst, port);
}

/**
 * rpc_endpoints_xprt_args - aim one transport of a multipath client
 * @cfg: endpoint configuration of the client
 * @i: index of the transport, from 0
 * @xprtargs: transport creation arguments, aimed at the server
 * @addrs: storage for the addresses, live until the transport exists
 *
 * Points @xprtargs at the remote endpoint that placement gives transport
 * @i, on the server's port, and binds it to its local endpoint.  Either
 * part is skipped when @cfg has no such set.  The transport is created as
 * a path of a multipath client (XPRT_CREATE_MULTIPATH).
 */
void rpc_endpoints_xprt_args(const struct rpc_endpoint_config *cfg,
			     unsigned int i, struct xprt_create *xprtargs,
			     struct rpc_endpoint_addrs *addrs)
{
	unsigned int nr_remote = cfg->remote ? cfg->remote->count : 0;
	unsigned int nr_local = cfg->local ? cfg->local->count : 0;
	unsigned int remote, local;

	rpc_endpoints_place(i, nr_remote, nr_local, cfg->offset,
			    &remote, &local);
	xprtargs->flags |= XPRT_CREATE_MULTIPATH;
	if (cfg->remote) {
		rpc_endpoint_copy_addr(&addrs->dst, &cfg->remote->ep[remote],
				       rpc_get_port(xprtargs->dstaddr));
		xprtargs->dstaddr = (struct sockaddr *)&addrs->dst;
		xprtargs->addrlen = rpc_endpoint_addrlen(cfg->remote->family);
	}
	if (cfg->local) {
		rpc_endpoint_copy_addr(&addrs->src, &cfg->local->ep[local], 0);
		xprtargs->srcaddr = (struct sockaddr *)&addrs->src;
	}
}

/**
 * rpc_clnt_set_xprt_policy - choose how a client's transports share requests
 * @clnt: the client
 * @policy: an enum rpc_xprt_policy
 */
void rpc_clnt_set_xprt_policy(struct rpc_clnt *clnt, unsigned int policy)
{
	struct rpc_xprt_switch *xps = rpc_clnt_xprt_switch_get(clnt);

	if (!xps)
		return;
	rpc_xprt_switch_set_policy(xps, policy);
	xprt_switch_put(xps);
}
EXPORT_SYMBOL_GPL(rpc_clnt_set_xprt_policy);

/**
 * rpc_clnt_xprt_policy - how a client's transports share requests now
 * @clnt: the client
 *
 * Return: an enum rpc_xprt_policy; it may have changed through sysfs.
 */
unsigned int rpc_clnt_xprt_policy(struct rpc_clnt *clnt)
{
	struct rpc_xprt_switch *xps = rpc_clnt_xprt_switch_get(clnt);
	unsigned int policy;

	if (!xps)
		return RPC_XPRT_POLICY_ROUND_ROBIN;
	policy = rpc_xprt_switch_policy(xps);
	xprt_switch_put(xps);
	return policy;
}
EXPORT_SYMBOL_GPL(rpc_clnt_xprt_policy);
