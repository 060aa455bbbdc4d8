/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim for <linux/kref.h>: see ../shim.h */
#include "../shim.h"
