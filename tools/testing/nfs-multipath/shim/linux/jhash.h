/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host shim for <linux/jhash.h>: a stand-in hash with the kernel's
 * interface, not the kernel's jhash.  FNV-1a over the bytes, then the
 * 32-bit finalizer of MurmurHash3 so that every input bit reaches every
 * output bit.  The host tests only need a hash that spreads like one:
 * the placement simulation's figures for hashed offsets (node names, and
 * the offset of before) are those of a good hash, not the kernel's exact
 * values.  See ../shim.h.
 */
#ifndef NFS_MULTIPATH_SHIM_JHASH_H
#define NFS_MULTIPATH_SHIM_JHASH_H

#include "../shim.h"

static inline u32 shim_hash_fmix32(u32 h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bU;
	h ^= h >> 13;
	h *= 0xc2b2ae35U;
	h ^= h >> 16;
	return h;
}

static inline u32 jhash(const void *key, u32 length, u32 initval)
{
	const unsigned char *p = key;
	u32 h = 2166136261U ^ initval;

	while (length--) {
		h ^= *p++;
		h *= 16777619U;
	}
	return shim_hash_fmix32(h);
}

static inline u32 jhash_1word(u32 a, u32 initval)
{
	return shim_hash_fmix32(a ^ shim_hash_fmix32(initval + 0x9e3779b9U));
}

#endif /* NFS_MULTIPATH_SHIM_JHASH_H */
