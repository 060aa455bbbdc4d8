/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host shim for <linux/jiffies.h>: the tests set jiffies themselves
 * (shim_jiffies, defined by each test that includes this).
 */
#ifndef SHIM_LINUX_JIFFIES_H
#define SHIM_LINUX_JIFFIES_H
#include "../shim.h"

#define HZ			1000
extern unsigned long shim_jiffies;
#define jiffies			READ_ONCE(shim_jiffies)
#define time_after(a, b)	((long)((b) - (a)) < 0)
#endif
