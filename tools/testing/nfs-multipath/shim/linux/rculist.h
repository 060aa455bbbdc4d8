/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim for <linux/rculist.h>: see ../shim.h */
#include "../shim.h"
