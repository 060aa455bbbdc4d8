/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim for <linux/hash.h>: see ../shim.h */
#ifndef NFS_MULTIPATH_SHIM_HASH_H
#define NFS_MULTIPATH_SHIM_HASH_H

#include "../shim.h"

#define GOLDEN_RATIO_32 0x61C88647
#define GOLDEN_RATIO_64 0x61C8864680B583EBull

#endif /* NFS_MULTIPATH_SHIM_HASH_H */
