/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim for <linux/nodemask.h>: the test defines nr_node_ids */
#ifndef SHIM_NODEMASK_H
#define SHIM_NODEMASK_H
extern unsigned int nr_node_ids;
#endif
