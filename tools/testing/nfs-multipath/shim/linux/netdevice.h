/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host shim for <linux/netdevice.h>: a device's NUMA node and the devices
 * below it (a VLAN's or a bond's), a chain of them here.
 */
#ifndef SHIM_NETDEVICE_H
#define SHIM_NETDEVICE_H
#include "../shim.h"

struct device {
	int	numa_node;
};

struct net_device {
	struct device		dev;
	struct net_device	*lower;
};

struct netdev_nested_priv {
	unsigned char	flags;
	void		*data;
};

static inline int dev_to_node(struct device *dev)
{
	return dev->numa_node;
}

static inline int
netdev_walk_all_lower_dev_rcu(struct net_device *dev,
			      int (*fn)(struct net_device *lower,
					struct netdev_nested_priv *priv),
			      struct netdev_nested_priv *priv)
{
	struct net_device *l;
	int ret;

	for (l = dev->lower; l; l = l->lower) {
		ret = fn(l, priv);
		if (ret)
			return ret;
	}
	return 0;
}
#endif
