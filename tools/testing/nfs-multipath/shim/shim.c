// SPDX-License-Identifier: GPL-2.0
/*
 * Host implementations of the kernel functions endpoints.c uses.  Written
 * for the tests, with the kernel's calling conventions and semantics.
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>

#include "shim.h"

int shim_fail_alloc;
long shim_live_allocs;

void *kmalloc(size_t size, gfp_t gfp)
{
	void *p;

	(void)gfp;
	if (shim_fail_alloc > 0 && --shim_fail_alloc == 0)
		return NULL;
	p = malloc(size ? size : 1);
	if (!p)
		abort();
	shim_live_allocs++;
	return p;
}

void *kzalloc(size_t size, gfp_t gfp)
{
	void *p = kmalloc(size, gfp);

	if (p)
		memset(p, 0, size);
	return p;
}

void *kmemdup(const void *src, size_t size, gfp_t gfp)
{
	void *p = kmalloc(size, gfp);

	if (p)
		memcpy(p, src, size);
	return p;
}

void kfree(const void *p)
{
	if (!p)
		return;
	shim_live_allocs--;
	free((void *)p);
}

void sort(void *base, size_t num, size_t size,
	  int (*cmp)(const void *, const void *),
	  void (*swap)(void *, void *, int))
{
	(void)swap;
	qsort(base, num, size, cmp);
}

unsigned long gcd(unsigned long a, unsigned long b)
{
	while (b) {
		unsigned long t = a % b;

		a = b;
		b = t;
	}
	return a;
}

ssize_t strscpy(char *dst, const char *src, size_t size)
{
	size_t len;

	if (!size)
		return -E2BIG;
	len = strnlen(src, size);
	if (len == size) {
		memcpy(dst, src, size - 1);
		dst[size - 1] = '\0';
		return -E2BIG;
	}
	memcpy(dst, src, len + 1);
	return len;
}

/*
 * The kernel parsers stop at the first character that is the delimiter,
 * a NUL, past srclen, or (when delim is -1) any character that cannot be
 * part of an address.  Only the span before that point is converted.
 */
static size_t shim_pton_span(const char *src, int srclen, int delim,
			     const char *chars, bool *unknown)
{
	size_t len = srclen < 0 ? strlen(src) : (size_t)srclen;
	size_t n = 0;

	*unknown = false;
	while (n < len && src[n] && src[n] != delim) {
		if (!strchr(chars, src[n])) {
			*unknown = delim != -1;
			break;
		}
		n++;
	}
	return n;
}

int in4_pton(const char *src, int srclen, u8 *dst, int delim,
	     const char **end)
{
	unsigned int parts = 0, val = 0, digits = 0;
	u8 buf[4];
	bool unknown;
	size_t n, i;

	/* ':' ends an IPv4 address, as in the kernel */
	n = shim_pton_span(src, srclen, delim, "0123456789.", &unknown);
	if (end)
		*end = src + n;
	if (unknown && src[n] != ':')
		return 0;
	for (i = 0; i <= n; i++) {
		if (i < n && src[i] != '.') {
			val = val * 10 + (src[i] - '0');
			digits++;
			if (val > 255)
				return 0;
			continue;
		}
		if (!digits || parts == 4)
			return 0;
		buf[parts++] = val;
		val = 0;
		digits = 0;
	}
	if (parts != 4)
		return 0;
	memcpy(dst, buf, sizeof(buf));
	return 1;
}

int in6_pton(const char *src, int srclen, u8 *dst, int delim,
	     const char **end)
{
	char text[INET6_ADDRSTRLEN + 1];
	u8 buf[16];
	bool unknown;
	size_t n;

	n = shim_pton_span(src, srclen, delim,
			   "0123456789abcdefABCDEF:.", &unknown);
	if (end)
		*end = src + n;
	if (unknown || !n || n >= sizeof(text))
		return 0;
	memcpy(text, src, n);
	text[n] = '\0';
	if (inet_pton(AF_INET6, text, buf) != 1)
		return 0;
	memcpy(dst, buf, sizeof(buf));
	return 1;
}

struct shim_out {
	char *buf;
	size_t size;
	size_t len;	/* written, without the NUL */
};

static void shim_put(struct shim_out *out, const char *s, size_t n)
{
	size_t room;

	if (!out->size)
		return;
	room = out->size - 1 - out->len;
	if (n > room)
		n = room;
	memcpy(out->buf + out->len, s, n);
	out->len += n;
	out->buf[out->len] = '\0';
}

static void shim_puts(struct shim_out *out, const char *s)
{
	shim_put(out, s, strlen(s));
}

static void shim_ip4(char *text, size_t size, const u8 *a)
{
	snprintf(text, size, "%u.%u.%u.%u", a[0], a[1], a[2], a[3]);
}

/*
 * "%pI6c" as the kernel prints it: RFC 5952 (lower case, no leading
 * zeros, the first longest run of two or more zero groups as "::"), and a
 * dotted quad tail for IPv4-mapped and ISATAP addresses.
 */
static void shim_ip6c(char *text, size_t size, const u8 *a)
{
	unsigned int w[8], i, words, best = 0, run, at = 8;
	bool v4;
	int n = 0;

	for (i = 0; i < 8; i++)
		w[i] = a[2 * i] << 8 | a[2 * i + 1];
	v4 = (!w[0] && !w[1] && !w[2] && !w[3] && !w[4] && w[5] == 0xffff) ||
	     ((w[4] | 0x0200) == 0x0200 && w[5] == 0x5efe);
	words = v4 ? 6 : 8;
	for (i = 0; i < words; i++) {
		for (run = 0; i + run < words && !w[i + run]; run++)
			;
		if (run > best) {
			best = run;
			at = i;
		}
	}
	if (best < 2)
		at = 8;
	for (i = 0; i < words; i++) {
		if (i == at) {
			n += snprintf(text + n, size - n, "::");
			i += best - 1;
			continue;
		}
		if (i && i != at + best)
			n += snprintf(text + n, size - n, ":");
		n += snprintf(text + n, size - n, "%x", w[i]);
	}
	if (v4) {
		if (at + best != words)
			n += snprintf(text + n, size - n, ":");
		shim_ip4(text + n, size - n, a + 12);
	}
}

static void shim_vformat(struct shim_out *out, const char *fmt, va_list ap)
{
	char text[64];
	const char *s;
	int prec;

	for (; *fmt; fmt++) {
		if (*fmt != '%') {
			shim_put(out, fmt, 1);
			continue;
		}
		fmt++;
		if (!strncmp(fmt, "pI4", 3)) {
			shim_ip4(text, sizeof(text), va_arg(ap, const u8 *));
			shim_puts(out, text);
			fmt += 2;
		} else if (!strncmp(fmt, "pI6c", 4)) {
			shim_ip6c(text, sizeof(text), va_arg(ap, const u8 *));
			shim_puts(out, text);
			fmt += 3;
		} else if (!strncmp(fmt, ".*s", 3)) {
			prec = va_arg(ap, int);
			s = va_arg(ap, const char *);
			shim_put(out, s, strnlen(s, prec < 0 ? 0 : prec));
			fmt += 2;
		} else if (!strncmp(fmt, "zu", 2)) {
			snprintf(text, sizeof(text), "%zu", va_arg(ap, size_t));
			shim_puts(out, text);
			fmt += 1;
		} else if (*fmt == 's') {
			shim_puts(out, va_arg(ap, const char *));
		} else if (*fmt == 'd') {
			snprintf(text, sizeof(text), "%d", va_arg(ap, int));
			shim_puts(out, text);
		} else if (*fmt == 'u') {
			snprintf(text, sizeof(text), "%u",
				 va_arg(ap, unsigned int));
			shim_puts(out, text);
		} else if (*fmt == 'x') {
			snprintf(text, sizeof(text), "%x",
				 va_arg(ap, unsigned int));
			shim_puts(out, text);
		} else if (*fmt == 'c') {
			text[0] = (char)va_arg(ap, int);
			shim_put(out, text, 1);
		} else if (*fmt == '%') {
			shim_put(out, "%", 1);
		} else {
			fprintf(stderr, "shim: unsupported format %%%s\n", fmt);
			abort();
		}
	}
}

int scnprintf(char *buf, size_t size, const char *fmt, ...)
{
	struct shim_out out = { .buf = buf, .size = size };
	va_list ap;

	if (size)
		buf[0] = '\0';
	va_start(ap, fmt);
	shim_vformat(&out, fmt, ap);
	va_end(ap);
	return out.len;
}
