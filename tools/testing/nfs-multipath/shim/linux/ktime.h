/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim for <linux/ktime.h>: a time in ns, as the kernel's */
#ifndef SHIM_LINUX_KTIME_H
#define SHIM_LINUX_KTIME_H
#include "../shim.h"

typedef s64 ktime_t;

#define ktime_add(a, b)		((a) + (b))
#define ktime_sub(a, b)		((a) - (b))
#define ktime_to_ns(t)		((s64)(t))
#define ns_to_ktime(ns)		((ktime_t)(ns))

static inline bool ktime_after(ktime_t a, ktime_t b)
{
	return a > b;
}
#endif
