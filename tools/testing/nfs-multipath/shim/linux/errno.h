/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim for <linux/errno.h>: glibc's <errno.h> includes it too */
#include_next <linux/errno.h>
#include "../shim.h"
