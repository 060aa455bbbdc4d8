// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of net/sunrpc/endpoints.c, built against shim/.
 *
 * Prints one line per failure and a summary line
 * "unit: endpoints: N passed, N failed"; exits non-zero on any failure.
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "shim/shim.h"
#include <linux/sunrpc/endpoints.h>

static unsigned int passed, failed;
static const char *case_name;
static bool case_ok;

static void begin(const char *name)
{
	case_name = name;
	case_ok = true;
}

static void end(void)
{
	if (case_ok)
		passed++;
	else
		failed++;
}

static void expect(bool cond, const char *fmt, ...)
{
	va_list ap;

	if (cond)
		return;
	if (case_ok)
		fprintf(stderr, "FAIL %s\n", case_name);
	case_ok = false;
	fprintf(stderr, "  ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
}

static const char *str_or_null(const char *s)
{
	return s ? s : "(null)";
}

/* Parse, check success and the canonical text (NULL: not checked) */
static void accept_ex(const char *str, unsigned int flags,
		      const char *canon, int count, bool resolved)
{
	struct rpc_endpoint_error err;
	struct rpc_endpoint_set *set = (void *)1, *again = NULL;
	char buf[RPC_ENDPOINTS_FORMAT_MAX];
	int ret, len;

	begin(str);
	ret = rpc_endpoints_parse(str, flags, &set, &err);
	expect(ret == 0, "parse \"%s\": %d (%s: \"%s\")", str, ret,
	       str_or_null(err.reason), err.item);
	if (ret) {
		expect(set == NULL, "set not NULL on failure");
		end();
		return;
	}
	expect(err.reason == NULL && err.item[0] == '\0',
	       "error not cleared on success");
	if (count >= 0)
		expect(set->count == (unsigned int)count,
		       "count %u, expected %d", set->count, count);
	expect(rpc_endpoints_resolved(set) == resolved, "resolved %d",
	       rpc_endpoints_resolved(set));
	len = rpc_endpoints_format(set, buf, sizeof(buf));
	expect(len >= 0 && (size_t)len == strlen(buf), "format %d", len);
	if (canon)
		expect(!strcmp(buf, canon), "format \"%s\", expected \"%s\"",
		       buf, canon);
	ret = rpc_endpoints_parse(buf, flags, &again, &err);
	expect(ret == 0, "reparse \"%s\": %d (%s)", buf, ret,
	       str_or_null(err.reason));
	expect(rpc_endpoints_equal(set, again), "reparse not equal");
	rpc_endpoints_free(again);
	rpc_endpoints_free(set);
	end();
}

static void accept_ok(const char *str, const char *canon, int count)
{
	accept_ex(str, 0, canon, count, true);
}

static void reject_ex(const char *str, unsigned int flags, int errno_want,
		      const char *reason, const char *item)
{
	struct rpc_endpoint_error err;
	struct rpc_endpoint_set *set = (void *)1;
	int ret;

	begin(str ? str : "(null)");
	memset(&err, 0x5a, sizeof(err));
	ret = rpc_endpoints_parse(str, flags, &set, &err);
	expect(ret == errno_want, "parse \"%s\": %d, expected %d",
	       str_or_null(str), ret, errno_want);
	expect(set == NULL, "set not NULL on failure");
	expect(err.reason && !strcmp(err.reason, reason),
	       "reason \"%s\", expected \"%s\"", str_or_null(err.reason),
	       reason);
	expect(memchr(err.item, '\0', sizeof(err.item)) != NULL,
	       "item not terminated");
	if (item)
		expect(!strcmp(err.item, item), "item \"%.*s\", expected \"%s\"",
		       (int)sizeof(err.item), err.item, item);
	if (!ret)
		rpc_endpoints_free(set);
	end();
}

static void reject_ok(const char *str, const char *reason, const char *item)
{
	reject_ex(str, 0, -EINVAL, reason, item);
}

static void test_accept(void)
{
	/* single addresses */
	accept_ok("10.0.0.1", "10.0.0.1", 1);
	accept_ok("0.0.0.0", "0.0.0.0", 1);
	accept_ok("255.255.255.255", "255.255.255.255", 1);
	accept_ok("192.168.100.200", "192.168.100.200", 1);
	accept_ok("::1", "::1", 1);
	accept_ok("::", "::", 1);
	accept_ok("2001:DB8::1", "2001:db8::1", 1);
	accept_ok("2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8::1", 1);
	accept_ok("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1", 1);
	accept_ok("2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1", 1);
	accept_ok("1:0:0:2:0:0:0:3", "1:0:0:2::3", 1);
	accept_ok("1:2:3:4:5:6:7::", "1:2:3:4:5:6:7:0", 1);
	accept_ok("::2:3:4:5:6:7:8", "0:2:3:4:5:6:7:8", 1);
	accept_ok("1::", "1::", 1);
	accept_ok("::ffff:10.0.0.1", "::ffff:10.0.0.1", 1);
	accept_ok("::ffff:a00:1", "::ffff:10.0.0.1", 1);
	accept_ok("1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:102:304", 1);
	accept_ok("::1.2.3.4", "::102:304", 1);
	accept_ok("2001:db8::5efe:10.0.0.1", "2001:db8::5efe:10.0.0.1", 1);
	accept_ok("FFFF:FFFF:FFFF:FFFF:FFFF:FFFF:FFFF:FFFF",
	       "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 1);

	/* sorting and folding */
	accept_ok("10.0.0.3~10.0.0.1~10.0.0.2", "10.0.0.1-10.0.0.3", 3);
	accept_ok("10.0.0.1~10.0.0.2", "10.0.0.1-10.0.0.2", 2);
	accept_ok("10.0.0.1~10.0.0.3", "10.0.0.1~10.0.0.3", 2);
	accept_ok("10.0.0.3~10.0.0.1", "10.0.0.1~10.0.0.3", 2);
	accept_ok("10.0.0.1-10.0.0.1", "10.0.0.1", 1);
	accept_ok("10.0.0.5-10.0.0.7~10.0.0.1-10.0.0.3",
	       "10.0.0.1-10.0.0.3~10.0.0.5-10.0.0.7", 6);
	accept_ok("10.0.0.4-10.0.0.5~10.0.0.6", "10.0.0.4-10.0.0.6", 3);
	accept_ok("10.0.0.6~10.0.0.4-10.0.0.5~10.0.0.9", "10.0.0.4-10.0.0.6~10.0.0.9",
	       4);
	accept_ok("10.0.0.255-10.0.1.2", "10.0.0.255-10.0.1.2", 4);
	accept_ok("10.0.255.255~10.1.0.0", "10.0.255.255-10.1.0.0", 2);
	accept_ok("255.255.255.254-255.255.255.255",
	       "255.255.255.254-255.255.255.255", 2);
	accept_ok("0.0.0.0~255.255.255.255", "0.0.0.0~255.255.255.255", 2);
	accept_ok("192.168.1.10~10.0.0.1", "10.0.0.1~192.168.1.10", 2);
	accept_ok("10.0.0.10~10.0.0.9~10.0.0.100", "10.0.0.9-10.0.0.10~10.0.0.100",
	       3);
	accept_ok("0.0.0.0-0.0.0.255", "0.0.0.0-0.0.0.255", 256);
	accept_ok("10.1.2.128-10.1.3.127", "10.1.2.128-10.1.3.127", 256);
	accept_ok("2001:db8::2~2001:db8::1", "2001:db8::1-2001:db8::2", 2);
	accept_ok("2001:db8::1~2001:db8::3", "2001:db8::1~2001:db8::3", 2);
	accept_ok("2001:db8::fffe-2001:db8::1:1", "2001:db8::fffe-2001:db8::1:1", 4);
	accept_ok("2001:db8::1:0~2001:db8::ffff", "2001:db8::ffff-2001:db8::1:0", 2);
	accept_ok("2001:db8::ffff:ffff:ffff:ffff-2001:db8:0:1::",
	       "2001:db8::ffff:ffff:ffff:ffff-2001:db8:0:1::", 2);
	accept_ok("ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe-ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
	       "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe-ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
	       2);
	accept_ok("::-::ff", "::-::ff", 256);
	accept_ok("::ffff:10.0.0.255-::ffff:10.0.1.0",
	       "::ffff:10.0.0.255-::ffff:10.0.1.0", 2);
	accept_ok("2001:db8::a~2001:db8::8~2001:db8::9~2001:db8::1",
	       "2001:db8::1~2001:db8::8-2001:db8::a", 4);

	/* interface names */
	accept_ex("eth0", RPC_ENDPOINTS_IFNAMES, "eth0", 1, false);
	accept_ex("eth0~ib0.8001~en-p1_s0", RPC_ENDPOINTS_IFNAMES,
		  "eth0~ib0.8001~en-p1_s0", 3, false);
	accept_ex("eth0~10.0.0.1~10.0.0.2", RPC_ENDPOINTS_IFNAMES,
		  "eth0~10.0.0.1-10.0.0.2", 3, false);
	accept_ex("10.0.0.2~10.0.0.1", RPC_ENDPOINTS_IFNAMES,
		  "10.0.0.1-10.0.0.2", 2, true);
	accept_ex("abcdefghijklmno", RPC_ENDPOINTS_IFNAMES, "abcdefghijklmno",
		  1, false);
	accept_ex("eth0-eth1", RPC_ENDPOINTS_IFNAMES, "eth0-eth1", 1, false);
	accept_ex("10.0.0.1-eth0", RPC_ENDPOINTS_IFNAMES, "10.0.0.1-eth0", 1,
		  false);
	accept_ex("1e100", RPC_ENDPOINTS_IFNAMES, "1e100", 1, false);
	accept_ex("a~b~c", RPC_ENDPOINTS_IFNAMES, "a~b~c", 3, false);
	accept_ex("...x", RPC_ENDPOINTS_IFNAMES, "...x", 1, false);
	accept_ex("2001:db8::1~lo", RPC_ENDPOINTS_IFNAMES, "2001:db8::1~lo", 2, false);
}

static char long_item[RPC_ENDPOINT_ITEM_MAX + 2];
static char long_item_shown[RPC_ENDPOINT_ITEM_MAX + 4];

static void test_reject(void)
{
	const unsigned int ifn = RPC_ENDPOINTS_IFNAMES;

	/* empty items and separators */
	reject_ok("", "empty string", "");
	reject_ex(NULL, 0, -EINVAL, "empty string", "");
	reject_ok("~10.0.0.1", "empty item", "~10.0.0.1");
	reject_ok("10.0.0.1~~10.0.0.2", "empty item", "10.0.0.1~~10.0.0.2");
	reject_ok("~", "empty item", "~");
	reject_ok("~~", "empty item", "~~");
	reject_ok("10.0.0.1~", "trailing separator", "10.0.0.1~");
	reject_ok("10.0.0.1~10.0.0.2~", "trailing separator",
	       "10.0.0.1~10.0.0.2~");
	reject_ex("eth0~", ifn, -EINVAL, "trailing separator", "eth0~");

	/* duplicates */
	reject_ok("10.0.0.1~10.0.0.1", "duplicate endpoint", "10.0.0.1");
	reject_ok("10.0.0.1-10.0.0.5~10.0.0.3", "duplicate endpoint", "10.0.0.3");
	reject_ok("10.0.0.3~10.0.0.1-10.0.0.5", "duplicate endpoint",
	       "10.0.0.1-10.0.0.5");
	reject_ok("10.0.0.1-10.0.0.5~10.0.0.5-10.0.0.9", "duplicate endpoint",
	       "10.0.0.5-10.0.0.9");
	reject_ok("10.0.0.2-10.0.0.3~10.0.0.1-10.0.0.9", "duplicate endpoint",
	       "10.0.0.1-10.0.0.9");
	reject_ok("::1~0:0:0:0:0:0:0:1", "duplicate endpoint", "0:0:0:0:0:0:0:1");
	reject_ok("::ffff:10.0.0.1~::ffff:a00:1", "duplicate endpoint",
	       "::ffff:a00:1");
	reject_ok("2001:db8::1-2001:db8::ff~2001:db8::80", "duplicate endpoint", "2001:db8::80");
	reject_ex("eth0~eth0", ifn, -EINVAL, "duplicate endpoint", "eth0");

	/* ranges */
	reject_ok("10.0.0.5-10.0.0.1", "reversed range", "10.0.0.5-10.0.0.1");
	reject_ok("10.0.1.0-10.0.0.255", "reversed range", "10.0.1.0-10.0.0.255");
	reject_ok("2001:db8::2-2001:db8::1", "reversed range", "2001:db8::2-2001:db8::1");
	reject_ok("2001:db8::1:0-2001:db8::ffff", "reversed range",
	       "2001:db8::1:0-2001:db8::ffff");
	reject_ok("10.0.0.1-", "not an address", "10.0.0.1-");
	reject_ok("-10.0.0.1", "not an address", "-10.0.0.1");
	reject_ex("10.0.0.1-", ifn, -EINVAL, "not an address", "10.0.0.1-");
	reject_ex("-::1", ifn, -EINVAL, "not an address", "-::1");
	reject_ok("10.0.0.1-10.0.0.2-10.0.0.3", "not an address",
	       "10.0.0.1-10.0.0.2-10.0.0.3");
	reject_ok("::1-::2-::3", "not an address", "::1-::2-::3");
	reject_ok("10.0.0.1-10.0.0.300", "not an address", "10.0.0.1-10.0.0.300");
	reject_ok("1-2", "not an address", "1-2");

	/* families */
	reject_ok("10.0.0.1~::1", "mixed address families", "::1");
	reject_ok("::1~10.0.0.1", "mixed address families", "10.0.0.1");
	reject_ok("10.0.0.1-::1", "mixed address families", "10.0.0.1-::1");
	reject_ok("::ffff:10.0.0.1~10.0.0.2", "mixed address families",
	       "10.0.0.2");
	reject_ex("10.0.0.1~eth0~::1", ifn, -EINVAL, "mixed address families",
		  "::1");

	/* characters */
	reject_ok("10.0.0.1 ", "invalid character", "10.0.0.1 ");
	reject_ok(" 10.0.0.1", "invalid character", " 10.0.0.1");
	reject_ok("10.0.0.1,10.0.0.2", "invalid character", "10.0.0.1,10.0.0.2");
	reject_ok("10.0.0.1\t", "invalid character", "10.0.0.1\t");
	reject_ok("10.0.0.1\n", "invalid character", "10.0.0.1\n");
	reject_ok("10.0.0.1~10.0.0.2 ~10.0.0.3", "invalid character",
	       "10.0.0.2 ");
	reject_ok("[::1]", "invalid character", "[::1]");
	reject_ok("10.0.0.0/24", "invalid character", "10.0.0.0/24");
	reject_ok("\xc3\xa9th0", "invalid character", "\xc3\xa9th0");
	reject_ex("eth0!", ifn, -EINVAL, "invalid character", "eth0!");
	reject_ex("eth 0", ifn, -EINVAL, "invalid character", "eth 0");
	reject_ex("eth0/1", ifn, -EINVAL, "invalid character", "eth0/1");
	reject_ok("fe80::1%eth0", "scope ids are not supported", "fe80::1%eth0");
	reject_ex("fe80::1%2", ifn, -EINVAL, "scope ids are not supported",
		  "fe80::1%2");
	reject_ok("fe80::1", "link-local addresses need a scope", "fe80::1");
	reject_ok("febf::1", "link-local addresses need a scope", "febf::1");
	reject_ok("2001:db8::1~fe80::1-fe80::2",
		  "link-local addresses need a scope", "fe80::1-fe80::2");
	reject_ex("fe80::1~eth0", ifn, -EINVAL,
		  "link-local addresses need a scope", "fe80::1");
	accept_ok("fec0::1", "fec0::1", 1);

	/* malformed IPv4 */
	reject_ok("10.0.0.256", "not an address", "10.0.0.256");
	reject_ok("10.0.0", "not an address", "10.0.0");
	reject_ok("10.0.0.1.5", "not an address", "10.0.0.1.5");
	reject_ok("10..0.1", "not an address", "10..0.1");
	reject_ok(".10.0.0.1", "not an address", ".10.0.0.1");
	reject_ok("10.0.0.1.", "not an address", "10.0.0.1.");
	reject_ok("010.0.0.1", "not an address", "010.0.0.1");
	reject_ok("1.2.3.04", "not an address", "1.2.3.04");
	reject_ok("1.2.3.0004", "not an address", "1.2.3.0004");
	reject_ok("0x0a.0.0.1", "not an address", "0x0a.0.0.1");
	reject_ok("167772161", "not an address", "167772161");
	reject_ok("10.0.0.1:2049", "not an address", "10.0.0.1:2049");
	reject_ok("1.2.3.4a", "not an address", "1.2.3.4a");

	/* malformed IPv6 */
	reject_ok("1::2::3", "not an address", "1::2::3");
	reject_ok(":::1", "not an address", ":::1");
	reject_ok("1:::", "not an address", "1:::");
	reject_ok(":1::", "not an address", ":1::");
	reject_ok("1:", "not an address", "1:");
	reject_ok(":1", "not an address", ":1");
	reject_ok(":", "not an address", ":");
	reject_ok("1:2:3:4:5:6:7:8:9", "not an address", "1:2:3:4:5:6:7:8:9");
	reject_ok("::1:2:3:4:5:6:7:8", "not an address", "::1:2:3:4:5:6:7:8");
	reject_ok("1:2:3:4:5:6:7:8::", "not an address", "1:2:3:4:5:6:7:8::");
	reject_ok("1:2:3:4::5:6:7:8", "not an address", "1:2:3:4::5:6:7:8");
	reject_ok("1:2:3:4:5:6:7", "not an address", "1:2:3:4:5:6:7");
	reject_ok("12345::1", "not an address", "12345::1");
	reject_ok("00001::", "not an address", "00001::");
	reject_ok("::g", "not an address", "::g");
	reject_ok("::ffff:1.2.3", "not an address", "::ffff:1.2.3");
	reject_ok("::ffff:1.2.3.4.5", "not an address", "::ffff:1.2.3.4.5");
	reject_ok("::ffff:1.2.3.256", "not an address", "::ffff:1.2.3.256");
	reject_ok("::ffff:01.2.3.4", "not an address", "::ffff:01.2.3.4");
	reject_ok("1.2.3.4::", "not an address", "1.2.3.4::");
	reject_ok("::1.2.3.4:1", "not an address", "::1.2.3.4:1");
	reject_ok("1:2:3:4:5:6:7:1.2.3.4", "not an address",
	       "1:2:3:4:5:6:7:1.2.3.4");

	/* names */
	reject_ok("eth0", "not an address", "eth0");
	reject_ok("10.0.0.1~eth0", "not an address", "eth0");
	reject_ex("abcdefghijklmnop", ifn, -EINVAL, "invalid interface name",
		  "abcdefghijklmnop");
	reject_ex(".", ifn, -EINVAL, "not an address", ".");
	reject_ex("..", ifn, -EINVAL, "not an address", "..");
	reject_ex("1.2", ifn, -EINVAL, "not an address", "1.2");
	reject_ex("10.0.0.1-10.0.0.300", ifn, -EINVAL, "not an address",
		  "10.0.0.1-10.0.0.300");
	reject_ex("eth0:1", ifn, -EINVAL, "not an address", "eth0:1");

	/* sizes */
	reject_ok("10.0.0.0-10.0.1.0", "range too large", "10.0.0.0-10.0.1.0");
	reject_ok("0.0.0.0-255.255.255.255", "range too large",
	       "0.0.0.0-255.255.255.255");
	reject_ok("::-::100", "range too large", "::-::100");
	reject_ok("::-ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "range too large",
	       "::-ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff");
	reject_ok("2001:db8::ff00-2001:db8::1:0", "range too large",
	       "2001:db8::ff00-2001:db8::1:0");
	reject_ok("10.0.0.0-10.0.0.255~10.0.1.0", "too many endpoints",
	       "10.0.1.0");
	reject_ok("10.0.1.0~10.0.0.0-10.0.0.255", "too many endpoints",
	       "10.0.0.0-10.0.0.255");
	reject_ok("2001::-2001::7f~2001::1:0-2001::1:7f~2001::2:0", "too many endpoints",
	       "2001::2:0");
	reject_ex("10.0.0.0-10.0.0.254~eth0~eth1", ifn, -EINVAL,
		  "too many endpoints", "eth1");

	memset(long_item, 'a', RPC_ENDPOINT_ITEM_MAX + 1);
	memcpy(long_item_shown, long_item, RPC_ENDPOINT_ITEM_MAX);
	strcpy(long_item_shown + RPC_ENDPOINT_ITEM_MAX, "...");
	reject_ok(long_item, "item too long", long_item_shown);
	reject_ex(long_item, ifn, -EINVAL, "item too long", long_item_shown);

	/* flags */
	reject_ex("10.0.0.1", 0x2, -EINVAL, "unknown flags", "");
}

/* A long item that is exactly RPC_ENDPOINT_ITEM_MAX characters is fine */
static void test_item_max(void)
{
	char item[RPC_ENDPOINT_ITEM_MAX + 1];
	struct rpc_endpoint_error err;
	struct rpc_endpoint_set *set;
	int ret;

	begin("item of RPC_ENDPOINT_ITEM_MAX characters");
	/* "0000:...:0001-0000:...:0002" is 79; pad the first with zeros */
	snprintf(item, sizeof(item), "%s-%s",
		 "0000:0000:0000:0000:0000:0000:0000:0001",
		 "0000:0000:0000:0000:0000:0000:0000:0002");
	expect(strlen(item) == 79, "length %zu", strlen(item));
	ret = rpc_endpoints_parse(item, 0, &set, &err);
	expect(!ret && set->count == 2, "parse: %d", ret);
	rpc_endpoints_free(set);
	memset(item, 'x', RPC_ENDPOINT_ITEM_MAX);
	item[RPC_ENDPOINT_ITEM_MAX] = '\0';
	ret = rpc_endpoints_parse(item, 0, &set, &err);
	expect(ret == -EINVAL && !strcmp(err.reason, "not an address"),
	       "96 chars: %d %s", ret, str_or_null(err.reason));
	expect(!strcmp(err.item, item), "96 chars shown in full");
	end();
}

/* ---- limits ---- */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static char big[RPC_ENDPOINTS_FORMAT_MAX * 2];

static void test_limits(void)
{
	struct rpc_endpoint_error err;
	struct rpc_endpoint_set *set;
	char *p;
	double t;
	int ret, i, len;
	char out[RPC_ENDPOINTS_FORMAT_MAX];

	/* 256 separate IPv4 items */
	begin("256 separate items");
	p = big;
	for (i = 0; i < 256; i++)
		p += sprintf(p, "%s10.%d.0.1", i ? "~" : "", 255 - i);
	ret = rpc_endpoints_parse(big, 0, &set, &err);
	expect(ret == 0 && set && set->count == 256, "parse %d", ret);
	if (!ret) {
		len = rpc_endpoints_format(set, out, sizeof(out));
		expect(len > 0 && !strncmp(out, "10.0.0.1~10.1.0.1~", 18),
		       "format %d %.20s", len, out);
		rpc_endpoints_free(set);
	}
	strcat(big, "~10.0.0.2");
	ret = rpc_endpoints_parse(big, 0, &set, &err);
	expect(ret == -EINVAL && !strcmp(err.reason, "too many endpoints") &&
	       !strcmp(err.item, "10.0.0.2"), "257: %d %s %s", ret,
	       str_or_null(err.reason), err.item);
	end();

	/* the longest canonical text fits RPC_ENDPOINTS_FORMAT_MAX */
	begin("RPC_ENDPOINTS_FORMAT_MAX");
	p = big;
	for (i = 0; i < 256; i++)
		p += sprintf(p, "%sffff:ffff:ffff:ff%02x:200:5efe:255.255.255.%d",
			     i ? "~" : "", i, 255 - (i & 1));
	ret = rpc_endpoints_parse(big, 0, &set, &err);
	expect(ret == 0, "parse %d %s %s", ret, str_or_null(err.reason),
	       err.item);
	if (!ret) {
		len = rpc_endpoints_format(set, out, sizeof(out));
		expect(len == 256 * 45 - 1, "format %d", len);
		expect(len > 0 && (size_t)len < sizeof(out), "fits");
		rpc_endpoints_free(set);
	}
	end();

	/* huge IPv6 ranges are refused at once, not expanded */
	begin("huge IPv6 ranges refused fast");
	t = now();
	for (i = 0; i < 1000; i++) {
		ret = rpc_endpoints_parse("::-ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
					  0, &set, &err);
		expect(ret == -EINVAL && set == NULL, "ret %d", ret);
		ret = rpc_endpoints_parse("::1~2::-2::ffff:ffff:ffff:ffff:ffff:ffff",
					  0, &set, &err);
		expect(ret == -EINVAL && !strcmp(err.reason, "range too large"),
		       "ret %d", ret);
	}
	t = now() - t;
	expect(t < 2.0, "2000 refusals took %.3f s", t);
	expect(shim_live_allocs == 0, "%ld allocations live", shim_live_allocs);
	end();

	/* 256 items of 255 IPv6 ranges of 1 address and one more: too many */
	begin("many IPv6 ranges");
	p = big;
	for (i = 0; i < 256; i++)
		p += sprintf(p, "%s2001:db8::%x:0-2001:db8::%x:0", i ? "~" : "",
			     i, i);
	ret = rpc_endpoints_parse(big, 0, &set, &err);
	expect(ret == 0 && set->count == 256, "parse %d", ret);
	rpc_endpoints_free(set);
	end();
}

/* ---- format, equal, dup, finish ---- */

static struct rpc_endpoint_set *parse_ok(const char *str, unsigned int flags)
{
	struct rpc_endpoint_error err;
	struct rpc_endpoint_set *set = NULL;
	int ret;

	ret = rpc_endpoints_parse(str, flags, &set, &err);
	expect(ret == 0, "parse \"%s\": %d %s %s", str, ret,
	       str_or_null(err.reason), err.item);
	return set;
}

static void test_format(void)
{
	struct rpc_endpoint_set *set;
	char buf[64];
	const char *want = "10.0.0.1-10.0.0.3~10.0.0.9";
	size_t n = strlen(want);
	int ret;

	begin("format buffer sizes");
	set = parse_ok("10.0.0.9~10.0.0.2~10.0.0.1~10.0.0.3", 0);
	if (set) {
		ret = rpc_endpoints_format(set, buf, n + 1);
		expect(ret == (int)n && !strcmp(buf, want), "exact: %d %s",
		       ret, buf);
		ret = rpc_endpoints_format(set, buf, n);
		expect(ret == -ENOSPC, "one short: %d", ret);
		expect(strlen(buf) < n, "terminated");
		ret = rpc_endpoints_format(set, buf, 1);
		expect(ret == -ENOSPC && buf[0] == '\0', "1: %d", ret);
		ret = rpc_endpoints_format(set, buf, 0);
		expect(ret == -ENOSPC, "0: %d", ret);
		ret = rpc_endpoints_format(set, NULL, 10);
		expect(ret == -EINVAL, "NULL buf: %d", ret);
		rpc_endpoints_free(set);
	}
	ret = rpc_endpoints_format(NULL, buf, sizeof(buf));
	expect(ret == -EINVAL, "NULL set: %d", ret);
	end();
}

static void test_equal_dup(void)
{
	struct rpc_endpoint_set *a, *b, *c, *d;

	begin("equal and dup");
	expect(rpc_endpoints_equal(NULL, NULL), "NULL == NULL");
	a = parse_ok("10.0.0.3~10.0.0.1-10.0.0.2", 0);
	b = parse_ok("10.0.0.1~10.0.0.2~10.0.0.3", 0);
	c = parse_ok("10.0.0.1~10.0.0.2~10.0.0.4", 0);
	d = parse_ok("::ffff:10.0.0.1-::ffff:10.0.0.3", 0);
	expect(!rpc_endpoints_equal(a, NULL), "a != NULL");
	expect(!rpc_endpoints_equal(NULL, a), "NULL != a");
	expect(rpc_endpoints_equal(a, a), "a == a");
	expect(rpc_endpoints_equal(a, b), "a == b");
	expect(!rpc_endpoints_equal(a, c), "a != c");
	expect(!rpc_endpoints_equal(a, d), "v4 != mapped v6");
	rpc_endpoints_free(b);
	b = rpc_endpoints_dup(a, GFP_KERNEL);
	expect(b && b != a && rpc_endpoints_equal(a, b), "dup equal");
	if (b) {
		b->ep[1].sin.sin_port = htons(2049);
		expect(rpc_endpoints_equal(a, b), "ports do not count");
		b->ep[1].sin.sin_addr.s_addr ^= htonl(0x100);
		expect(!rpc_endpoints_equal(a, b), "changed dup differs");
	}
	expect(rpc_endpoints_dup(NULL, GFP_KERNEL) == NULL, "dup NULL");
	shim_fail_alloc = 1;
	expect(rpc_endpoints_dup(a, GFP_KERNEL) == NULL, "dup ENOMEM");
	rpc_endpoints_free(a);
	rpc_endpoints_free(b);
	rpc_endpoints_free(c);
	rpc_endpoints_free(d);
	rpc_endpoints_free(NULL);
	expect(shim_live_allocs == 0, "%ld allocations live", shim_live_allocs);
	end();
}

static void test_enomem(void)
{
	struct rpc_endpoint_error err;
	struct rpc_endpoint_set *set = (void *)1;
	int ret;

	begin("parse -ENOMEM");
	shim_fail_alloc = 1;
	ret = rpc_endpoints_parse("10.0.0.1-10.0.0.9", 0, &set, &err);
	expect(ret == -ENOMEM && !set, "ret %d", ret);
	expect(err.reason && !strcmp(err.reason, "out of memory"), "reason");
	expect(shim_live_allocs == 0, "%ld allocations live", shim_live_allocs);
	shim_fail_alloc = 0;
	end();
}

static void set_v4(struct rpc_endpoint *ep, const char *addr)
{
	memset(ep, 0, sizeof(*ep));
	ep->sin.sin_family = AF_INET;
	inet_pton(AF_INET, addr, &ep->sin.sin_addr);
}

static void set_v6(struct rpc_endpoint *ep, const char *addr)
{
	memset(ep, 0, sizeof(*ep));
	ep->sin6.sin6_family = AF_INET6;
	inet_pton(AF_INET6, addr, &ep->sin6.sin6_addr);
}

static void test_finish(void)
{
	struct rpc_endpoint_error err;
	struct rpc_endpoint_set *set;
	char buf[128];
	int ret;

	begin("names resolved by the caller");
	set = parse_ok("eth1~10.0.0.1~eth0", RPC_ENDPOINTS_IFNAMES);
	if (!set) {
		end();
		return;
	}
	expect(set->count == 3 && set->family == AF_INET, "count %u family %u",
	       set->count, set->family);
	expect(!strcmp(set->ep[0].ifname, "eth1") &&
	       set->ep[0].sa.sa_family == AF_UNSPEC, "ep[0] is eth1");
	expect(!strcmp(set->ep[2].ifname, "eth0"), "ep[2] is eth0");
	expect(!rpc_endpoints_resolved(set), "not resolved");
	ret = rpc_endpoints_format(set, buf, sizeof(buf));
	expect(ret > 0 && !strcmp(buf, "eth1~10.0.0.1~eth0"), "format %s", buf);
	ret = rpc_endpoints_finish(set, &err);
	expect(ret == -EINVAL && !strcmp(err.reason, "unresolved interface") &&
	       !strcmp(err.item, "eth1"), "finish unresolved: %d", ret);

	set_v4(&set->ep[0], "10.0.0.1");
	set_v4(&set->ep[2], "10.0.0.7");
	ret = rpc_endpoints_finish(set, &err);
	expect(ret == -EINVAL && !strcmp(err.reason, "duplicate endpoint") &&
	       !strcmp(err.item, "10.0.0.1"), "finish dup: %d %s %s", ret,
	       str_or_null(err.reason), err.item);

	set_v6(&set->ep[0], "2001:db8::1");
	ret = rpc_endpoints_finish(set, &err);
	expect(ret == -EINVAL && !strcmp(err.reason, "mixed address families"),
	       "finish mixed: %d %s", ret, str_or_null(err.reason));

	set_v4(&set->ep[0], "10.0.0.2");
	ret = rpc_endpoints_finish(set, &err);
	expect(ret == 0 && err.reason == NULL, "finish: %d %s", ret,
	       str_or_null(err.reason));
	expect(rpc_endpoints_resolved(set), "resolved");
	ret = rpc_endpoints_format(set, buf, sizeof(buf));
	expect(ret > 0 && !strcmp(buf, "10.0.0.1-10.0.0.2~10.0.0.7"),
	       "format %s", buf);
	rpc_endpoints_free(set);

	set = parse_ok("eth0", RPC_ENDPOINTS_IFNAMES);
	if (set) {
		expect(set->family == AF_UNSPEC, "names only: AF_UNSPEC");
		set_v6(&set->ep[0], "2001:db8::5");
		ret = rpc_endpoints_finish(set, &err);
		expect(ret == 0 && set->family == AF_INET6, "finish v6 %d", ret);
		rpc_endpoints_free(set);
	}
	expect(rpc_endpoints_finish(NULL, &err) == -EINVAL, "finish NULL");
	expect(rpc_endpoints_resolved(NULL), "NULL is resolved");
	end();
}

/* ---- random round trips ---- */

static unsigned long long rng_state = 0x9e3779b97f4a7c15ull;

static unsigned int rnd(unsigned int n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return n ? (unsigned int)(rng_state % n) : 0;
}

struct addr {
	u8 b[16];
};

static int addr_cmp(const void *a, const void *b)
{
	return memcmp(a, b, 16);
}

static void addr_inc(struct addr *a, size_t len)
{
	while (len--)
		if (++a->b[len])
			return;
}

static bool addr_next(const struct addr *a, const struct addr *b, size_t len)
{
	struct addr t = *a;

	addr_inc(&t, len);
	return !memcmp(&t, b, len) && memcmp(a, b, len) < 0;
}

/* Text of an address, in a randomly chosen non-canonical spelling */
static void addr_text(char *out, const struct addr *a, int family)
{
	unsigned int i;
	int n = 0;

	if (family == AF_INET) {
		sprintf(out, "%u.%u.%u.%u", a->b[0], a->b[1], a->b[2], a->b[3]);
		return;
	}
	switch (rnd(3)) {
	case 0:
		inet_ntop(AF_INET6, a->b, out, INET6_ADDRSTRLEN);
		break;
	case 1:
		for (i = 0; i < 8; i++)
			n += sprintf(out + n, "%s%04X", i ? ":" : "",
				     a->b[2 * i] << 8 | a->b[2 * i + 1]);
		break;
	default:
		for (i = 0; i < 6; i++)
			n += sprintf(out + n, "%x:",
				     a->b[2 * i] << 8 | a->b[2 * i + 1]);
		sprintf(out + n, "%u.%u.%u.%u", a->b[12], a->b[13], a->b[14],
			a->b[15]);
		break;
	}
}

static const u8 v6_bases[][16] = {
	{ 0x20, 0x01, 0x0d, 0xb8 },
	{ 0xfd, 0x00 },
	{ 0 },
	{ [10] = 0xff, [11] = 0xff },
	{ [8] = 0x02, [10] = 0x5e, [11] = 0xfe },
	{ 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff,
	  0xff, 0xff },
	{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	  0xff, 0xff, 0xff, 0xff },
};

static struct addr pool[RPC_ENDPOINTS_MAX];
static char text[RPC_ENDPOINTS_FORMAT_MAX * 3];

static void random_round_trip(unsigned int round)
{
	struct rpc_endpoint_set *set = NULL, *again = NULL;
	unsigned int count, want, i, j, k, nchunks;
	struct rpc_endpoint_error err;
	int family = rnd(2) ? AF_INET6 : AF_INET;
	size_t alen = family == AF_INET ? 4 : 16;
	struct { unsigned int from, to; } chunks[RPC_ENDPOINTS_MAX], t;
	char out[RPC_ENDPOINTS_FORMAT_MAX], out2[RPC_ENDPOINTS_FORMAT_MAX];
	char name[64];
	char *p;
	int ret;

	snprintf(name, sizeof(name), "random round trip %u", round);
	begin(name);
	/* draw addresses near a base, so that runs and carries happen */
	want = 1 + rnd(rnd(4) ? 24 : RPC_ENDPOINTS_MAX);
	for (i = 0; i < want; i++) {
		memset(&pool[i], 0, sizeof(pool[i]));
		if (family == AF_INET) {
			pool[i].b[0] = 10;
			pool[i].b[1] = rnd(2) * 255;
			pool[i].b[2] = rnd(3);
			pool[i].b[3] = 250 + rnd(10);
			if (rnd(4) == 0)
				pool[i].b[3] = rnd(256);
		} else {
			memcpy(pool[i].b, v6_bases[rnd(ARRAY_SIZE(v6_bases))], 16);
			pool[i].b[13] = rnd(2) ? 0xff : 0;
			pool[i].b[14] = rnd(2) ? 0xff : 0;
			pool[i].b[15] = 240 + rnd(30);
		}
	}
	qsort(pool, want, sizeof(pool[0]), addr_cmp);
	for (count = 0, i = 0; i < want; i++)
		if (!count || memcmp(&pool[count - 1], &pool[i], 16))
			pool[count++] = pool[i];
	/* cut into chunks of consecutive addresses */
	nchunks = 0;
	for (i = 0; i < count; i = j + 1) {
		j = i;
		while (j + 1 < count && addr_next(&pool[j], &pool[j + 1], alen) &&
		       rnd(4))
			j++;
		chunks[nchunks].from = i;
		chunks[nchunks++].to = j;
	}
	for (i = nchunks; i > 1; i--) {
		k = rnd(i);
		t = chunks[i - 1];
		chunks[i - 1] = chunks[k];
		chunks[k] = t;
	}
	p = text;
	for (i = 0; i < nchunks; i++) {
		if (i)
			*p++ = '~';
		addr_text(p, &pool[chunks[i].from], family);
		p += strlen(p);
		if (chunks[i].to != chunks[i].from) {
			*p++ = '-';
			addr_text(p, &pool[chunks[i].to], family);
			p += strlen(p);
		}
	}
	*p = '\0';

	ret = rpc_endpoints_parse(text, 0, &set, &err);
	expect(ret == 0, "parse \"%s\": %d %s \"%s\"", text, ret,
	       str_or_null(err.reason), err.item);
	if (ret) {
		end();
		return;
	}
	expect(set->count == count && set->family == family,
	       "count %u, expected %u", set->count, count);
	for (i = 0; i < set->count && i < count; i++) {
		const u8 *b = family == AF_INET ?
			(const u8 *)&set->ep[i].sin.sin_addr :
			set->ep[i].sin6.sin6_addr.s6_addr;

		expect(set->ep[i].sa.sa_family == family &&
		       !memcmp(b, pool[i].b, alen), "entry %u differs", i);
		if (family == AF_INET)
			expect(set->ep[i].sin.sin_port == 0, "port");
		else
			expect(set->ep[i].sin6.sin6_port == 0 &&
			       set->ep[i].sin6.sin6_scope_id == 0, "port");
	}
	ret = rpc_endpoints_format(set, out, sizeof(out));
	expect(ret > 0, "format %d", ret);
	ret = rpc_endpoints_parse(out, 0, &again, &err);
	expect(ret == 0, "reparse \"%s\": %d %s", out, ret,
	       str_or_null(err.reason));
	expect(rpc_endpoints_equal(set, again), "reparse differs: %s", out);
	ret = rpc_endpoints_format(again, out2, sizeof(out2));
	expect(ret > 0 && !strcmp(out, out2), "format not stable");
	/* the number of items is the number of runs */
	for (i = 1, j = 1; i < count; i++)
		j += !addr_next(&pool[i - 1], &pool[i], alen);
	for (k = 1, p = out; *p; p++)
		k += *p == '~';
	expect(j == k, "%u items, expected %u runs: %s", k, j, out);
	rpc_endpoints_free(set);
	rpc_endpoints_free(again);
	end();
}

/* ---- placement ---- */

static unsigned int lcm_u(unsigned int a, unsigned int b)
{
	unsigned int x = a, y = b, t;

	while (y) {
		t = x % y;
		x = y;
		y = t;
	}
	return a / x * b;
}

static unsigned int rc[256], lc[20], seen[256][20];

static void check_placement(unsigned int n, unsigned int r, unsigned int l,
			    unsigned int offset)
{
	unsigned int i, rem, loc, lo, hi, distinct, want;

	memset(rc, 0, sizeof(rc));
	memset(lc, 0, sizeof(lc));
	memset(seen, 0, sizeof(seen));
	for (i = 0; i < n; i++) {
		rpc_endpoints_place(i, r, l, offset, &rem, &loc);
		if (rem >= r || loc >= l) {
			expect(false, "N=%u R=%u L=%u off=%u i=%u: (%u,%u)",
			       n, r, l, offset, i, rem, loc);
			return;
		}
		rc[rem]++;
		lc[loc]++;
		seen[rem][loc]++;
	}
	lo = n / r;
	hi = (n + r - 1) / r;
	for (i = 0; i < r; i++) {
		if (rc[i] < lo || rc[i] > hi) {
			expect(false, "N=%u R=%u L=%u off=%u: remote %u has %u",
			       n, r, l, offset, i, rc[i]);
			return;
		}
	}
	lo = n / l;
	hi = (n + l - 1) / l;
	for (i = 0; i < l; i++) {
		if (lc[i] < lo || lc[i] > hi) {
			expect(false, "N=%u R=%u L=%u off=%u: local %u has %u",
			       n, r, l, offset, i, lc[i]);
			return;
		}
	}
	if (n < r) {
		for (i = 0; i < r; i++) {
			bool in = (i + r - offset % r) % r < n;

			if (!!rc[i] != in) {
				expect(false, "N=%u R=%u off=%u: window at %u",
				       n, r, offset, i);
				return;
			}
		}
	}
	for (rem = 0; rem < r; rem++) {
		distinct = 0;
		for (loc = 0; loc < l; loc++)
			distinct += !!seen[rem][loc];
		want = rc[rem] < l ? rc[rem] : l;
		if (distinct != want) {
			expect(false,
			       "N=%u R=%u L=%u off=%u: remote %u uses %u locals, expected %u",
			       n, r, l, offset, rem, distinct, want);
			return;
		}
	}
}

static void test_placement(void)
{
	static const unsigned int big_r[] = { 32, 64, 100, 128, 255, 256 };
	unsigned int r, l, n, k, o, rem, loc, i, j;
	unsigned int offsets[8];
	char name[64];

	for (r = 1; r <= 20 + ARRAY_SIZE(big_r); r++) {
		unsigned int rr = r <= 20 ? r : big_r[r - 21];

		for (l = 1; l <= 20; l++) {
			unsigned int nmax = 64;

			snprintf(name, sizeof(name), "placement R=%u L=%u", rr, l);
			begin(name);
			if (rr <= 20 && lcm_u(rr, l) * 2 > nmax)
				nmax = lcm_u(rr, l) * 2 < 400 ? lcm_u(rr, l) * 2 : 400;
			offsets[0] = 0;
			offsets[1] = 1;
			offsets[2] = 2;
			offsets[3] = 7;
			offsets[4] = rr - 1;
			offsets[5] = rr;
			offsets[6] = 123457;
			offsets[7] = UINT_MAX;
			for (k = 0; k < ARRAY_SIZE(offsets); k++)
				for (n = 1; n <= nmax && case_ok; n++)
					check_placement(n, rr, l, offsets[k]);
			end();
		}
	}

	begin("placement degenerate counts");
	for (i = 0; i < 50; i++) {
		rpc_endpoints_place(i, 0, 0, 5, &rem, &loc);
		expect(rem == 0 && loc == 0, "R=0 L=0: (%u,%u)", rem, loc);
		rpc_endpoints_place(i, 4, 0, 5, &rem, &loc);
		expect(loc == 0 && rem < 4, "L=0: (%u,%u)", rem, loc);
		rpc_endpoints_place(i, 0, 3, 5, &rem, &loc);
		expect(rem == 0 && loc == i % 3, "R=0: (%u,%u)", rem, loc);
	}
	end();

	begin("placement examples");
	/* 4 transports, 2 remotes, 2 locals: every pair once */
	for (i = 0; i < 4; i++) {
		rpc_endpoints_place(i, 2, 2, 0, &rem, &loc);
		seen[rem][loc] = i + 1;
	}
	for (i = 0; i < 2; i++)
		for (j = 0; j < 2; j++)
			expect(seen[i][j], "pair (%u,%u) unused", i, j);
	/* offset rotates the remotes */
	rpc_endpoints_place(0, 5, 1, 3, &rem, &loc);
	expect(rem == 3 && loc == 0, "offset: (%u,%u)", rem, loc);
	/* deterministic, no overflow on huge arguments */
	for (o = 0; o < 4; o++) {
		unsigned int a, b;

		rpc_endpoints_place(UINT_MAX - o, UINT_MAX - 1, UINT_MAX - 2,
				    UINT_MAX, &rem, &loc);
		rpc_endpoints_place(UINT_MAX - o, UINT_MAX - 1, UINT_MAX - 2,
				    UINT_MAX, &a, &b);
		expect(rem == a && loc == b && rem < UINT_MAX - 1 &&
		       loc < UINT_MAX - 2, "huge: (%u,%u)", rem, loc);
	}
	end();
}

int main(int argc, char **argv)
{
	unsigned int i, rounds = 3000;

	if (argc > 1)
		rounds = strtoul(argv[1], NULL, 0);
	test_accept();
	test_reject();
	test_item_max();
	test_limits();
	test_format();
	test_equal_dup();
	test_enomem();
	test_finish();
	for (i = 0; i < rounds; i++)
		random_round_trip(i);
	test_placement();

	begin("no allocation leaked");
	expect(shim_live_allocs == 0, "%ld allocations live", shim_live_allocs);
	end();

	printf("unit: endpoints: %u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
