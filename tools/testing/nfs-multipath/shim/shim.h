/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host shim: just enough of the kernel API for net/sunrpc/endpoints.c to
 * build unmodified as a user-space program (tools/testing/vma style).
 * Every header under linux/ in this directory includes this file.
 */
#ifndef NFS_MULTIPATH_SHIM_H
#define NFS_MULTIPATH_SHIM_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/types.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;
#define U64_MAX			UINT64_MAX
typedef unsigned int gfp_t;

#define GFP_KERNEL		0x1u
#define GFP_ATOMIC		0x2u

/* linux-libc-dev 6.1.192 and later define it in <linux/stddef.h> */
#ifndef __counted_by
#define __counted_by(member)
#endif
#define EXPORT_SYMBOL_GPL(sym)	extern int shim_exported_##sym

#define min_t(type, a, b)	((type)(a) < (type)(b) ? (type)(a) : (type)(b))
#define max_t(type, a, b)	((type)(a) > (type)(b) ? (type)(a) : (type)(b))
#define min(a, b)		((a) < (b) ? (a) : (b))
#define max(a, b)		((a) > (b) ? (a) : (b))
#define READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile __typeof__(x) *)&(x) = (v))
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

/* <linux/math.h>, through <linux/kernel.h> */
static inline u32 reciprocal_scale(u32 val, u32 ep_ro)
{
	return (u32)(((u64)val * ep_ro) >> 32);
}

#define be32_to_cpu(x)		ntohl(x)

#define check_mul_overflow(a, b, d)	__builtin_mul_overflow(a, b, d)
#define check_add_overflow(a, b, d)	__builtin_add_overflow(a, b, d)
#define struct_size(p, member, n) \
	(sizeof(*(p)) + sizeof((p)->member[0]) * (size_t)(n))

/* Allocations; shim_fail_alloc > 0 makes the n-th next one fail */
extern int shim_fail_alloc;
extern long shim_live_allocs;
void *kmalloc(size_t size, gfp_t gfp);
void *kzalloc(size_t size, gfp_t gfp);
void *kmemdup(const void *src, size_t size, gfp_t gfp);
void kfree(const void *p);

void sort(void *base, size_t num, size_t size,
	  int (*cmp)(const void *, const void *),
	  void (*swap)(void *, void *, int));

unsigned long gcd(unsigned long a, unsigned long b);

/* Kernel semantics: 1 on success, 0 on failure, *end where parsing stopped */
int in4_pton(const char *src, int srclen, u8 *dst, int delim,
	     const char **end);
int in6_pton(const char *src, int srclen, u8 *dst, int delim,
	     const char **end);

/*
 * Kernel-style printing: supports %%, %c, %d, %u, %x, %zu, %s, %.*s and
 * the kernel extensions %pI4 and %pI6c; anything else aborts.
 */
int scnprintf(char *buf, size_t size, const char *fmt, ...);
ssize_t strscpy(char *dst, const char *src, size_t size);


/* Lists, reference counts, atomics and bits, single-threaded */
struct list_head {
	struct list_head *next, *prev;
};

#define LIST_HEAD_INIT(name)	{ &(name), &(name) }

static inline void INIT_LIST_HEAD(struct list_head *h)
{
	h->next = h;
	h->prev = h;
}

static inline void list_add_tail(struct list_head *n, struct list_head *h)
{
	n->prev = h->prev;
	n->next = h;
	h->prev->next = n;
	h->prev = n;
}

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#define list_entry(ptr, type, member)	container_of(ptr, type, member)
#define list_for_each_entry(pos, head, member)				\
	for (pos = list_entry((head)->next, __typeof__(*pos), member);	\
	     &pos->member != (head);					\
	     pos = list_entry(pos->member.next, __typeof__(*pos), member))
#define list_for_each_entry_rcu(pos, head, member, ...) \
	list_for_each_entry(pos, head, member)

struct kref {
	unsigned int refcount;
};

static inline unsigned int kref_read(const struct kref *kref)
{
	return kref->refcount;
}

typedef struct {
	long counter;
} atomic_long_t;

static inline long atomic_long_read(const atomic_long_t *v)
{
	return v->counter;
}

static inline void atomic_long_inc(atomic_long_t *v)
{
	v->counter++;
}

/* glibc's <sys/cdefs.h> defines __always_inline already */
#ifndef __always_inline
#define __always_inline		inline __attribute__((__always_inline__))
#endif

static inline bool test_bit(long nr, const unsigned long *addr)
{
	return (*addr >> nr) & 1UL;
}

#endif /* NFS_MULTIPATH_SHIM_H */
