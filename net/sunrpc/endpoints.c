// SPDX-License-Identifier: GPL-2.0
/*
 * Endpoint sets for multipath RPC clients
 *
 * Parses the endpoint lists of the remoteports= and localports= mount
 * options into sets of addresses, prints a set back in its canonical
 * folded form, and places the transports of a multipath client on the
 * endpoints of two sets.
 *
 * This file is pure: it opens no socket and looks at no network
 * namespace.  Interface names are left to the caller to resolve, and the
 * node name to the caller to read.
 */

#include <linux/errno.h>
#include <linux/export.h>
#include <linux/gcd.h>
#include <linux/hash.h>
#include <linux/inet.h>
#include <linux/jhash.h>
#include <linux/kernel.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/sunrpc/endpoints.h>

/* Bytes in the largest address, an IPv6 one */
#define RPC_ENDPOINT_ADDR_MAX		16
/* Room for one address as text ("%pI6c" prints up to 45 characters) */
#define RPC_ENDPOINT_TEXT_MAX		48

/* One item of a list: an address, a range or an interface name */
struct rpc_endpoint_item {
	const char		*text;
	size_t			len;
	sa_family_t		family;		/* AF_UNSPEC for a name */
	unsigned int		count;		/* endpoints it expands to */
	u8			first[RPC_ENDPOINT_ADDR_MAX];
	u8			last[RPC_ENDPOINT_ADDR_MAX];
};

static void rpc_endpoints_clear_error(struct rpc_endpoint_error *err)
{
	if (!err)
		return;
	err->reason = NULL;
	err->item[0] = '\0';
}

/* Record why a list was refused.  @text need not be NUL-terminated; when
 * it is longer than RPC_ENDPOINT_ITEM_MAX it is cut and marked "...".
 * Returns @ret so that callers can fail in one statement.
 */
static int rpc_endpoints_fail(struct rpc_endpoint_error *err, int ret,
			      const char *reason, const char *text, size_t len)
{
	static const char more[] = "...";
	const size_t max = sizeof(err->item) - sizeof(more);

	if (!err)
		return ret;
	err->reason = reason;
	if (len > max) {
		memcpy(err->item, text, max);
		memcpy(err->item + max, more, sizeof(more));
		return ret;
	}
	memcpy(err->item, text, len);
	err->item[len] = '\0';
	return ret;
}

static bool rpc_endpoint_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool rpc_endpoint_is_xdigit(char c)
{
	return rpc_endpoint_is_digit(c) || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

/* Characters of interface names; ASCII only, whatever the locale */
static bool rpc_endpoint_is_namechar(char c)
{
	return rpc_endpoint_is_digit(c) || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z') || c == '_' || c == '.' || c == '-';
}

static size_t rpc_endpoint_addr_len(sa_family_t family)
{
	if (family == AF_INET6)
		return sizeof(struct in6_addr);
	return sizeof(struct in_addr);
}

/* The address bytes of an endpoint, in network order */
static const u8 *rpc_endpoint_addr(const struct rpc_endpoint *ep)
{
	if (ep->sa.sa_family == AF_INET6)
		return ep->sin6.sin6_addr.s6_addr;
	return (const u8 *)&ep->sin.sin_addr.s_addr;
}

static void rpc_endpoint_set_addr(struct rpc_endpoint *ep,
				  sa_family_t family, const u8 *addr)
{
	memset(ep, 0, sizeof(*ep));
	if (family == AF_INET6) {
		ep->sin6.sin6_family = AF_INET6;
		memcpy(&ep->sin6.sin6_addr, addr, sizeof(struct in6_addr));
	} else {
		ep->sin.sin_family = AF_INET;
		memcpy(&ep->sin.sin_addr, addr, sizeof(struct in_addr));
	}
}

/* Add one to a big-endian address; false when it wraps around to zero */
static bool rpc_endpoint_addr_inc(u8 *addr, size_t len)
{
	while (len--) {
		if (++addr[len])
			return true;
	}
	return false;
}

/* The number of addresses in the inclusive range [@first, @last], where
 * @first <= @last, or RPC_ENDPOINTS_MAX + 1 when there are more.  The
 * difference is taken byte by byte, so a 128-bit range cannot overflow.
 */
static unsigned int rpc_endpoint_range_size(const u8 *first, const u8 *last,
					    size_t len)
{
	u8 diff[RPC_ENDPOINT_ADDR_MAX];
	unsigned int size;
	int borrow = 0;
	size_t i;

	for (i = len; i-- > 0;) {
		int d = last[i] - first[i] - borrow;

		borrow = d < 0;
		diff[i] = borrow ? d + 256 : d;
	}
	for (i = 0; i + 2 < len; i++) {
		if (diff[i])
			return RPC_ENDPOINTS_MAX + 1;
	}
	size = (diff[len - 2] << 8 | diff[len - 1]) + 1;
	return min_t(unsigned int, size, RPC_ENDPOINTS_MAX + 1);
}

static size_t rpc_endpoint_span(const char *s, size_t len,
				bool (*accept)(char c))
{
	size_t n = 0;

	while (n < len && accept(s[n]))
		n++;
	return n;
}

/* Dotted quad: four decimal parts of one to three digits, without leading
 * zeros (mount.nfs and inet_aton() would read "010" as octal).  Values
 * above 255 are left to in4_pton().
 */
static bool rpc_endpoint_v4_syntax(const char *s, size_t len)
{
	unsigned int parts = 0;
	size_t i = 0, n;

	for (;;) {
		n = rpc_endpoint_span(s + i, len - i, rpc_endpoint_is_digit);
		if (n == 0 || n > 3 || (n > 1 && s[i] == '0'))
			return false;
		parts++;
		i += n;
		if (i == len)
			return parts == 4;
		if (s[i] != '.' || parts == 4)
			return false;
		i++;
	}
}

/* RFC 4291 text form: eight groups of one to four hex digits, at most one
 * "::" standing for one or more zero groups, and an optional dotted quad
 * in place of the last two groups.  Checked before in6_pton() so that
 * only the standard forms are accepted.
 */
static bool rpc_endpoint_v6_syntax(const char *s, size_t len)
{
	unsigned int groups = 0;
	bool gap = false;
	size_t i = 0, n;

	if (len >= 2 && s[0] == ':' && s[1] == ':') {
		gap = true;
		i = 2;
	}
	while (i < len) {
		n = rpc_endpoint_span(s + i, len - i, rpc_endpoint_is_xdigit);
		if (i + n < len && s[i + n] == '.') {
			if (!rpc_endpoint_v4_syntax(s + i, len - i))
				return false;
			groups += 2;
			break;
		}
		if (n == 0 || n > 4)
			return false;
		groups++;
		i += n;
		if (i == len)
			break;
		/* a ':' must be followed by a group or be part of "::" */
		if (s[i] != ':' || i + 1 == len)
			return false;
		i++;
		if (s[i] == ':') {
			if (gap)
				return false;
			gap = true;
			i++;
		}
	}
	return gap ? groups <= 7 : groups == 8;
}

/* fe80::/10: such an address means nothing without a scope */
static bool rpc_endpoint_link_local(sa_family_t family, const u8 *addr)
{
	return family == AF_INET6 && addr[0] == 0xfe &&
	       (addr[1] & 0xc0) == 0x80;
}

static int rpc_endpoint_parse_addr(const char *s, size_t len,
				   sa_family_t *family, u8 *addr)
{
	const char *end = NULL;

	if (memchr(s, ':', len)) {
		if (!rpc_endpoint_v6_syntax(s, len) ||
		    !in6_pton(s, len, addr, -1, &end) || end != s + len)
			return -EINVAL;
		*family = AF_INET6;
		return 0;
	}
	if (!rpc_endpoint_v4_syntax(s, len) ||
	    !in4_pton(s, len, addr, -1, &end) || end != s + len)
		return -EINVAL;
	*family = AF_INET;
	return 0;
}

/* An item that looks like an address is never an interface name */
static bool rpc_endpoint_addr_like(const char *s, size_t len)
{
	size_t i;

	if (!len)
		return false;
	if (memchr(s, ':', len))
		return true;
	for (i = 0; i < len; i++) {
		if (!rpc_endpoint_is_digit(s[i]) && s[i] != '.')
			return false;
	}
	return true;
}

static int rpc_endpoint_check_chars(const struct rpc_endpoint_item *item,
				    struct rpc_endpoint_error *err)
{
	size_t i;

	for (i = 0; i < item->len; i++) {
		char c = item->text[i];

		if (c == '%')
			return rpc_endpoints_fail(err, -EINVAL,
						  "scope ids are not supported",
						  item->text, item->len);
		if (!rpc_endpoint_is_namechar(c) && c != ':')
			return rpc_endpoints_fail(err, -EINVAL,
						  "invalid character",
						  item->text, item->len);
	}
	return 0;
}

static int rpc_endpoint_parse_range(struct rpc_endpoint_item *item,
				    const char *dash,
				    struct rpc_endpoint_error *err)
{
	const char *s = item->text, *end = s + item->len;
	sa_family_t family;
	size_t alen;

	if (rpc_endpoint_parse_addr(s, dash - s, &item->family, item->first) ||
	    rpc_endpoint_parse_addr(dash + 1, end - dash - 1, &family,
				    item->last))
		return rpc_endpoints_fail(err, -EINVAL, "not an address",
					  s, item->len);
	if (family != item->family)
		return rpc_endpoints_fail(err, -EINVAL,
					  "mixed address families",
					  s, item->len);
	if (rpc_endpoint_link_local(family, item->first) ||
	    rpc_endpoint_link_local(family, item->last))
		return rpc_endpoints_fail(err, -EINVAL,
					  "link-local addresses need a scope",
					  s, item->len);
	alen = rpc_endpoint_addr_len(family);
	if (memcmp(item->first, item->last, alen) > 0)
		return rpc_endpoints_fail(err, -EINVAL, "reversed range",
					  s, item->len);
	item->count = rpc_endpoint_range_size(item->first, item->last, alen);
	if (item->count > RPC_ENDPOINTS_MAX)
		return rpc_endpoints_fail(err, -EINVAL, "range too large",
					  s, item->len);
	return 0;
}

static int rpc_endpoint_parse_ifname(struct rpc_endpoint_item *item,
				     struct rpc_endpoint_error *err)
{
	const char *s = item->text;
	size_t len = item->len;

	if (len >= IFNAMSIZ || (len == 1 && s[0] == '.') ||
	    (len == 2 && s[0] == '.' && s[1] == '.'))
		return rpc_endpoints_fail(err, -EINVAL,
					  "invalid interface name", s, len);
	item->family = AF_UNSPEC;
	item->count = 1;
	return 0;
}

/* Is the item a range?  Yes when both sides of its first '-' look like
 * addresses, or one does and the other is empty (a range with a missing
 * bound, refused later, rather than a strange interface name).
 */
static bool rpc_endpoint_range_like(const char *s, const char *dash,
				    const char *end)
{
	bool left = rpc_endpoint_addr_like(s, dash - s);
	bool right = rpc_endpoint_addr_like(dash + 1, end - dash - 1);

	return (left && (right || dash + 1 == end)) || (right && dash == s);
}

/* A range is parsed as one; otherwise an item that looks like an address
 * must be one, and anything else can only be an interface name.
 */
static int rpc_endpoint_parse_item(struct rpc_endpoint_item *item,
				   unsigned int flags,
				   struct rpc_endpoint_error *err)
{
	const char *s = item->text, *end = s + item->len;
	const char *dash;
	int ret;

	ret = rpc_endpoint_check_chars(item, err);
	if (ret)
		return ret;
	dash = memchr(s, RPC_ENDPOINT_RANGE, item->len);
	if (dash && rpc_endpoint_range_like(s, dash, end))
		return rpc_endpoint_parse_range(item, dash, err);
	if (rpc_endpoint_addr_like(s, item->len)) {
		if (rpc_endpoint_parse_addr(s, item->len, &item->family,
					    item->first))
			return rpc_endpoints_fail(err, -EINVAL,
						  "not an address",
						  s, item->len);
		if (rpc_endpoint_link_local(item->family, item->first))
			return rpc_endpoints_fail(err, -EINVAL,
						  "link-local addresses need a scope",
						  s, item->len);
		memcpy(item->last, item->first, sizeof(item->last));
		item->count = 1;
		return 0;
	}
	if (flags & RPC_ENDPOINTS_IFNAMES)
		return rpc_endpoint_parse_ifname(item, err);
	return rpc_endpoints_fail(err, -EINVAL, "not an address",
				  s, item->len);
}

/* Cut the item that starts at @pos out of @str and parse it */
static int rpc_endpoint_next_item(const char *str, const char *pos,
				  unsigned int flags,
				  struct rpc_endpoint_item *item,
				  struct rpc_endpoint_error *err)
{
	const char *end = strchrnul(pos, RPC_ENDPOINT_SEP);
	const char *reason;

	memset(item, 0, sizeof(*item));
	item->text = pos;
	item->len = end - pos;
	if (!item->len) {
		/* No item to show: show the whole list */
		reason = *end ? "empty item" : "trailing separator";
		return rpc_endpoints_fail(err, -EINVAL, reason,
					  str, strlen(str));
	}
	if (item->len > RPC_ENDPOINT_ITEM_MAX)
		return rpc_endpoints_fail(err, -EINVAL, "item too long",
					  pos, item->len);
	return rpc_endpoint_parse_item(item, flags, err);
}

static bool rpc_endpoint_item_last(const struct rpc_endpoint_item *item)
{
	return item->text[item->len] == '\0';
}

/* First pass: check the syntax of every item, the address families and
 * the size of the set, without expanding anything.  Returns the number of
 * endpoints or a negative errno.
 */
static int rpc_endpoints_count(const char *str, unsigned int flags,
			       struct rpc_endpoint_error *err)
{
	struct rpc_endpoint_item item;
	sa_family_t family = AF_UNSPEC;
	const char *pos = str;
	unsigned int count = 0;
	int ret;

	for (;;) {
		ret = rpc_endpoint_next_item(str, pos, flags, &item, err);
		if (ret)
			return ret;
		if (item.family != AF_UNSPEC) {
			if (family != AF_UNSPEC && family != item.family)
				return rpc_endpoints_fail(err, -EINVAL,
							  "mixed address families",
							  item.text, item.len);
			family = item.family;
		}
		if (item.count > RPC_ENDPOINTS_MAX - count)
			return rpc_endpoints_fail(err, -EINVAL,
						  "too many endpoints",
						  item.text, item.len);
		count += item.count;
		if (rpc_endpoint_item_last(&item))
			return count;
		pos = item.text + item.len + 1;
	}
}

/* Does one of the first @n endpoints of @set fall in @item? */
static bool rpc_endpoints_overlap(const struct rpc_endpoint_set *set,
				  unsigned int n,
				  const struct rpc_endpoint_item *item)
{
	size_t alen = rpc_endpoint_addr_len(item->family);
	const struct rpc_endpoint *ep;
	unsigned int i;

	for (i = 0; i < n; i++) {
		ep = &set->ep[i];
		if (item->family == AF_UNSPEC) {
			if (ep->sa.sa_family == AF_UNSPEC &&
			    strlen(ep->ifname) == item->len &&
			    !memcmp(ep->ifname, item->text, item->len))
				return true;
			continue;
		}
		if (ep->sa.sa_family == item->family &&
		    memcmp(rpc_endpoint_addr(ep), item->first, alen) >= 0 &&
		    memcmp(rpc_endpoint_addr(ep), item->last, alen) <= 0)
			return true;
	}
	return false;
}

/* Expand @item into @set after its first @n endpoints */
static void rpc_endpoints_expand(struct rpc_endpoint_set *set, unsigned int n,
				 const struct rpc_endpoint_item *item)
{
	size_t alen = rpc_endpoint_addr_len(item->family);
	u8 addr[RPC_ENDPOINT_ADDR_MAX];
	struct rpc_endpoint *ep;
	unsigned int i;

	if (item->family == AF_UNSPEC) {
		ep = &set->ep[n];
		memset(ep, 0, sizeof(*ep));
		ep->sa.sa_family = AF_UNSPEC;
		memcpy(ep->ifname, item->text, item->len);
		return;
	}
	memcpy(addr, item->first, alen);
	for (i = 0; i < item->count; i++) {
		rpc_endpoint_set_addr(&set->ep[n + i], item->family, addr);
		rpc_endpoint_addr_inc(addr, alen);
	}
	set->family = item->family;
}

/* Second pass: fill a set sized by rpc_endpoints_count() */
static int rpc_endpoints_fill(const char *str, unsigned int flags,
			      struct rpc_endpoint_set *set,
			      struct rpc_endpoint_error *err)
{
	struct rpc_endpoint_item item;
	const char *pos = str;
	unsigned int n = 0;
	int ret;

	for (;;) {
		ret = rpc_endpoint_next_item(str, pos, flags, &item, err);
		if (ret)
			return ret;
		if (item.count > set->count - n)
			return rpc_endpoints_fail(err, -EINVAL,
						  "too many endpoints",
						  item.text, item.len);
		if (rpc_endpoints_overlap(set, n, &item))
			return rpc_endpoints_fail(err, -EINVAL,
						  "duplicate endpoint",
						  item.text, item.len);
		rpc_endpoints_expand(set, n, &item);
		n += item.count;
		if (rpc_endpoint_item_last(&item))
			return 0;
		pos = item.text + item.len + 1;
	}
}

/**
 * rpc_endpoints_parse - Parse an endpoint list into a set
 * @str: NUL-terminated list of items joined by '~'
 * @flags: %RPC_ENDPOINTS_IFNAMES when items may name interfaces
 * @setp: OUT: the new set, or NULL on failure
 * @err: OUT: on failure, the reason and the refused item; may be NULL
 *
 * An item is an IPv4 or IPv6 address, an inclusive range "FIRST-LAST" of
 * one family, or with %RPC_ENDPOINTS_IFNAMES an interface name made of
 * the characters [A-Za-z0-9_.-], shorter than IFNAMSIZ and not "." or "..".
 * An item that looks like an address (it contains ':', or only digits and
 * dots) is never taken for a name, nor is a '-' with such a half on one
 * side and such a half or nothing on the other.
 * Addresses are written in full: no ports, no "%scope", no leading zeros
 * in a dotted quad.  The set holds at most %RPC_ENDPOINTS_MAX endpoints
 * after the ranges are expanded; larger lists are refused, not truncated,
 * before anything is expanded.  Duplicates are refused, overlapping ranges
 * included.
 *
 * Interface names are stored unresolved (family AF_UNSPEC, the name in
 * ifname) for the caller to resolve before it calls rpc_endpoints_finish().
 * A set without names is finished here: sorted, its family in set->family.
 *
 * Context: Process context.  Allocates with GFP_KERNEL.
 * Return: 0 on success, -EINVAL when the list is refused, -ENOMEM when
 * memory is short.  On failure *@setp is NULL and @err is filled in.
 */
int rpc_endpoints_parse(const char *str, unsigned int flags,
			struct rpc_endpoint_set **setp,
			struct rpc_endpoint_error *err)
{
	struct rpc_endpoint_set *set;
	int count, ret;

	*setp = NULL;
	rpc_endpoints_clear_error(err);
	if (flags & ~RPC_ENDPOINTS_IFNAMES)
		return rpc_endpoints_fail(err, -EINVAL, "unknown flags", "", 0);
	if (!str || !*str)
		return rpc_endpoints_fail(err, -EINVAL, "empty string", "", 0);
	count = rpc_endpoints_count(str, flags, err);
	if (count < 0)
		return count;

	set = kzalloc(struct_size(set, ep, count), GFP_KERNEL);
	if (!set)
		return rpc_endpoints_fail(err, -ENOMEM, "out of memory", "", 0);
	set->count = count;
	set->family = AF_UNSPEC;
	ret = rpc_endpoints_fill(str, flags, set, err);
	if (!ret && rpc_endpoints_resolved(set))
		ret = rpc_endpoints_finish(set, err);
	if (ret) {
		kfree(set);
		return ret;
	}
	*setp = set;
	return 0;
}
EXPORT_SYMBOL_GPL(rpc_endpoints_parse);

/* Print one endpoint: its address, or its name while unresolved */
static int rpc_endpoint_print(const struct rpc_endpoint *ep, char *buf,
			      size_t size)
{
	switch (ep->sa.sa_family) {
	case AF_INET:
		return scnprintf(buf, size, "%pI4", &ep->sin.sin_addr);
	case AF_INET6:
		return scnprintf(buf, size, "%pI6c", &ep->sin6.sin6_addr);
	}
	return scnprintf(buf, size, "%.*s",
			 (int)strnlen(ep->ifname, sizeof(ep->ifname)),
			 ep->ifname);
}

static int rpc_endpoint_cmp(const void *a, const void *b)
{
	const struct rpc_endpoint *x = a, *y = b;

	if (x->sa.sa_family != y->sa.sa_family)
		return x->sa.sa_family < y->sa.sa_family ? -1 : 1;
	return memcmp(rpc_endpoint_addr(x), rpc_endpoint_addr(y),
		      rpc_endpoint_addr_len(x->sa.sa_family));
}

static bool rpc_endpoint_is_addr(const struct rpc_endpoint *ep)
{
	return ep->sa.sa_family == AF_INET || ep->sa.sa_family == AF_INET6;
}

static int rpc_endpoints_fail_ep(struct rpc_endpoint_error *err,
				 const char *reason,
				 const struct rpc_endpoint *ep)
{
	if (err) {
		err->reason = reason;
		rpc_endpoint_print(ep, err->item, sizeof(err->item));
	}
	return -EINVAL;
}

/**
 * rpc_endpoints_finish - Check and sort a set once its names are resolved
 * @set: set from rpc_endpoints_parse(), with every interface name
 *	 replaced by an address (and its @ifname cleared)
 * @err: OUT: on failure, the reason and the refused endpoint; may be NULL
 *
 * Checks that every endpoint is an address of one family, records that
 * family in @set->family, sorts the endpoints by their address bytes in
 * network order, and refuses duplicates (an interface may resolve to an
 * address that is already in the set).  Ports and other sockaddr fields
 * are left as they are and play no part in the order.
 *
 * Context: Any context.
 * Return: 0 on success, or -EINVAL with @err filled in ("unresolved
 * interface", "mixed address families", "duplicate endpoint", ...).
 */
int rpc_endpoints_finish(struct rpc_endpoint_set *set,
			 struct rpc_endpoint_error *err)
{
	struct rpc_endpoint *ep;
	unsigned int i;

	rpc_endpoints_clear_error(err);
	if (!set || !set->count)
		return rpc_endpoints_fail(err, -EINVAL, "no endpoints", "", 0);
	if (set->count > RPC_ENDPOINTS_MAX)
		return rpc_endpoints_fail(err, -EINVAL, "too many endpoints",
					  "", 0);
	for (i = 0; i < set->count; i++) {
		ep = &set->ep[i];
		if (ep->ifname[0])
			return rpc_endpoints_fail(err, -EINVAL,
						  "unresolved interface",
						  ep->ifname,
						  strnlen(ep->ifname,
							  sizeof(ep->ifname)));
		if (!rpc_endpoint_is_addr(ep))
			return rpc_endpoints_fail(err, -EINVAL,
						  "not an address", "", 0);
	}
	for (i = 1; i < set->count; i++) {
		ep = &set->ep[i];
		if (ep->sa.sa_family != set->ep[0].sa.sa_family)
			return rpc_endpoints_fail_ep(err,
						     "mixed address families",
						     ep);
	}
	set->family = set->ep[0].sa.sa_family;
	sort(set->ep, set->count, sizeof(set->ep[0]), rpc_endpoint_cmp, NULL);
	for (i = 1; i < set->count; i++) {
		ep = &set->ep[i];
		if (!rpc_endpoint_cmp(ep - 1, ep))
			return rpc_endpoints_fail_ep(err, "duplicate endpoint",
						     ep);
	}
	return 0;
}

/**
 * rpc_endpoints_resolved - Are all the interface names of a set resolved?
 * @set: set to check; may be NULL
 *
 * Context: Any context.
 * Return: true when no endpoint of @set is an unresolved interface name
 * (also for a NULL @set, which has none), false otherwise.
 */
bool rpc_endpoints_resolved(const struct rpc_endpoint_set *set)
{
	unsigned int i;

	if (!set)
		return true;
	for (i = 0; i < set->count; i++) {
		if (set->ep[i].ifname[0])
			return false;
	}
	return true;
}

/**
 * rpc_endpoints_dup - Copy a set
 * @set: set to copy; may be NULL
 * @gfp: allocation flags
 *
 * Context: As allowed by @gfp.
 * Return: a new set equal to @set, to be released by rpc_endpoints_free(),
 * or NULL when @set is NULL or memory is short.
 */
struct rpc_endpoint_set *rpc_endpoints_dup(const struct rpc_endpoint_set *set,
					   gfp_t gfp)
{
	if (!set)
		return NULL;
	return kmemdup(set, struct_size(set, ep, set->count), gfp);
}
EXPORT_SYMBOL_GPL(rpc_endpoints_dup);

/**
 * rpc_endpoints_free - Release a set
 * @set: set from rpc_endpoints_parse() or rpc_endpoints_dup(); may be NULL
 *
 * Context: Any context.
 */
void rpc_endpoints_free(struct rpc_endpoint_set *set)
{
	kfree(set);
}
EXPORT_SYMBOL_GPL(rpc_endpoints_free);

static bool rpc_endpoint_same(const struct rpc_endpoint *x,
			      const struct rpc_endpoint *y)
{
	if (x->sa.sa_family != y->sa.sa_family)
		return false;
	if (!rpc_endpoint_is_addr(x))
		return !strncmp(x->ifname, y->ifname, sizeof(x->ifname));
	return !rpc_endpoint_cmp(x, y);
}

/**
 * rpc_endpoints_equal - Do two sets hold the same endpoints?
 * @a: first set; may be NULL
 * @b: second set; may be NULL
 *
 * Compares the family, the number of endpoints and their addresses in
 * order, so finished (sorted) sets compare as sets.  Ports do not count.
 * Unresolved interface names compare by name.
 *
 * Context: Any context.
 * Return: true when @a and @b are equal or both NULL, false otherwise.
 */
bool rpc_endpoints_equal(const struct rpc_endpoint_set *a,
			 const struct rpc_endpoint_set *b)
{
	unsigned int i;

	if (!a || !b)
		return a == b;
	if (a->family != b->family || a->count != b->count)
		return false;
	for (i = 0; i < a->count; i++) {
		if (!rpc_endpoint_same(&a->ep[i], &b->ep[i]))
			return false;
	}
	return true;
}
EXPORT_SYMBOL_GPL(rpc_endpoints_equal);

/* Is @y the address right after @x? */
static bool rpc_endpoint_follows(const struct rpc_endpoint *x,
				 const struct rpc_endpoint *y)
{
	u8 next[RPC_ENDPOINT_ADDR_MAX];
	size_t alen;

	if (!rpc_endpoint_is_addr(x) || x->sa.sa_family != y->sa.sa_family)
		return false;
	alen = rpc_endpoint_addr_len(x->sa.sa_family);
	memcpy(next, rpc_endpoint_addr(x), alen);
	return rpc_endpoint_addr_inc(next, alen) &&
	       !memcmp(next, rpc_endpoint_addr(y), alen);
}

/**
 * rpc_endpoints_format - Print a set in its canonical folded form
 * @set: set to print, normally finished by rpc_endpoints_finish()
 * @buf: where to print
 * @len: size of @buf; %RPC_ENDPOINTS_FORMAT_MAX is always enough
 *
 * Prints the endpoints in their order, joined by '~', folding two or more
 * consecutive addresses into one "FIRST-LAST" range.  IPv4 addresses are
 * dotted quads and IPv6 ones are in the RFC 5952 form of "%pI6c".  The
 * text parses back into an equal set.  Unresolved interface names are
 * printed as they are.
 *
 * Context: Any context.
 * Return: the length of the text (without the NUL), -EINVAL for a NULL
 * or empty @set or an endpoint that is neither an address nor a name, or
 * -ENOSPC when @buf is too small (@buf then holds the items that fit).
 */
int rpc_endpoints_format(const struct rpc_endpoint_set *set, char *buf,
			 size_t len)
{
	char item[2 * RPC_ENDPOINT_TEXT_MAX + 2];
	unsigned int i, j;
	size_t pos = 0, n;

	if (!set || !buf || !set->count)
		return -EINVAL;
	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	for (i = 0; i < set->count; i = j + 1) {
		if (!rpc_endpoint_is_addr(&set->ep[i]) && !set->ep[i].ifname[0])
			return -EINVAL;
		for (j = i; j + 1 < set->count; j++) {
			if (!rpc_endpoint_follows(&set->ep[j], &set->ep[j + 1]))
				break;
		}
		n = 0;
		if (i)
			item[n++] = RPC_ENDPOINT_SEP;
		n += rpc_endpoint_print(&set->ep[i], item + n,
					RPC_ENDPOINT_TEXT_MAX);
		if (j > i) {
			item[n++] = RPC_ENDPOINT_RANGE;
			n += rpc_endpoint_print(&set->ep[j], item + n,
						RPC_ENDPOINT_TEXT_MAX);
		}
		if (n >= len - pos)
			return -ENOSPC;
		memcpy(buf + pos, item, n);
		pos += n;
		buf[pos] = '\0';
	}
	return pos;
}
EXPORT_SYMBOL_GPL(rpc_endpoints_format);

/* (@a + @b) % @m for @a, @b < @m, without overflow */
static unsigned int rpc_endpoints_mod_add(unsigned int a, unsigned int b,
					  unsigned int m)
{
	return a < m - b ? a + b : a - (m - b);
}

/**
 * rpc_endpoints_place - Choose the endpoints of one transport
 * @i: index of the transport, from 0
 * @nr_remote: number of remote endpoints (R)
 * @nr_local: number of local endpoints (L); 0 when there are none
 * @offset: rotation of the remote endpoints, e.g. a per-mount value
 * @remote: OUT: index of the remote endpoint, below R
 * @local: OUT: index of the local endpoint, below L
 *
 * Transport @i of N goes to local endpoint i mod L and to remote endpoint
 * (offset + i + floor(i / lcm(R, L))) mod R.  Within a period of lcm(R, L)
 * transports every (remote, local) pair of one residue class of
 * gcd(R, L) is used once; the extra step at each new period moves every
 * remote to the next residue class, so after gcd(R, L) periods each
 * remote has met every local.  Hence, for any N:
 *
 * - each remote endpoint carries floor(N/R) or ceil(N/R) transports and
 *   each local endpoint floor(N/L) or ceil(N/L);
 * - when N < R the remotes used are the cyclic window of N endpoints that
 *   starts at offset mod R;
 * - the transports of a remote endpoint use as many distinct local
 *   endpoints as they can: min(its transports, L).
 *
 * The computation is O(1) and depends on nothing but its arguments.  A
 * count of 0 is taken as 1 and yields index 0.
 *
 * Context: Any context.
 */
void rpc_endpoints_place(unsigned int i, unsigned int nr_remote,
			 unsigned int nr_local, unsigned int offset,
			 unsigned int *remote, unsigned int *local)
{
	unsigned int r = nr_remote ? nr_remote : 1;
	unsigned int l = nr_local ? nr_local : 1;
	unsigned int period, turn = 0;

	if (!check_mul_overflow(r / (unsigned int)gcd(r, l), l, &period))
		turn = i / period;
	*remote = rpc_endpoints_mod_add(offset % r, i % r, r);
	*remote = rpc_endpoints_mod_add(*remote, turn % r, r);
	*local = i % l;
}
EXPORT_SYMBOL_GPL(rpc_endpoints_place);

/**
 * rpc_endpoints_offset - A client's default offset in the remote endpoints
 * @node: the node name of the client, NUL-terminated
 * @local: local endpoints of the mount, finished (sorted); may be NULL
 * @nr_remote: number of remote endpoints (R)
 *
 * Each client chooses its offset alone, from what sets it apart from the
 * other clients, so that their windows of N < R remote endpoints (see
 * rpc_endpoints_place()) cover the remote endpoints evenly.
 *
 * With local endpoints, the key is the address of the first one as a
 * number in host order (the low 32 bits of an IPv6 address), and the
 * offset is floor(R * frac(key * GOLDEN_RATIO_32 / 2^32)): Fibonacci
 * hashing.  For consecutive keys that is the golden-ratio sequence, each
 * point of which falls in one of the largest gaps left by the earlier
 * ones (the three-distance theorem).  For any run of M <= 1000
 * consecutive keys, wherever it starts, every arc of the ring holds
 * its share of the M offsets within less than 4, so every remote
 * endpoint carries the mean number of transports, M * N / R, within less
 * than 4.  Keys without such structure spread as a hash spreads them.
 *
 * Without local endpoints, the key is a hash of @node, and the offsets
 * spread as a hash spreads them.
 *
 * Context: Any context.
 * Return: the offset, below @nr_remote, or 0 when @nr_remote is 0.
 */
unsigned int rpc_endpoints_offset(const char *node,
				  const struct rpc_endpoint_set *local,
				  unsigned int nr_remote)
{
	const struct rpc_endpoint *ep;
	u32 key;

	if (!local || !local->count)
		return reciprocal_scale(jhash(node, strlen(node), 0),
					nr_remote);
	ep = &local->ep[0];
	if (ep->sa.sa_family == AF_INET6)
		key = be32_to_cpu(ep->sin6.sin6_addr.s6_addr32[3]);
	else
		key = be32_to_cpu(ep->sin.sin_addr.s_addr);
	return reciprocal_scale(key * GOLDEN_RATIO_32, nr_remote);
}
