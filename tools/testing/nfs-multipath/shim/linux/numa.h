/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim for <linux/numa.h> */
#ifndef SHIM_NUMA_H
#define SHIM_NUMA_H
#define NUMA_NO_NODE	(-1)
#endif
