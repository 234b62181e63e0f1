/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CNI results and error objects (cni-result.c): every spec version's form from
 * tests/data/net/results, IPv4 + IPv6, DNS, and hostile or malformed input.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "cctest.h"
#include "cni-result.h"

static struct cni_result res;

static int parse_file(const char *name, struct cc_error *e)
{
	_cleanup_free_ char *buf = NULL;
	char p[PATH_MAX];
	size_t len;

	(void) snprintf(p, sizeof(p), "%s/tests/data/net/results/%s", cctest_source_dir(), name);
	ck_assert_int_eq(read_full_file(p, 1 << 20, &buf, &len), 0);
	memset(e, 0, sizeof(*e));
	return cni_result_parse(buf, len, &res, e);
}

static int parse_str(const char *s, struct cc_error *e)
{
	memset(e, 0, sizeof(*e));
	return cni_result_parse(s, strlen(s), &res, e);
}

static void assert_addr(int family, const uint8_t *a, const char *want)
{
	char s[INET6_ADDRSTRLEN];

	ck_assert_ptr_nonnull(inet_ntop(family, a, s, sizeof(s)));
	ck_assert_str_eq(s, want);
}

START_TEST(test_v100)
{
	struct cc_error e;

	ASSERT_OK(parse_file("v100-ptp.json", &e));
	ck_assert_uint_eq(res.n_ifaces, 2);
	ck_assert_str_eq(res.ifaces[0].name, "veth1a2b3c4d");
	ck_assert(!res.ifaces[0].in_sandbox);
	ck_assert(res.ifaces[1].in_sandbox);
	ck_assert(res.ifaces[1].has_mac);
	ck_assert_uint_eq(res.ifaces[1].mac[0], 0xce);
	ck_assert_uint_eq(res.ifaces[1].mac[5], 0x03);
	ck_assert_uint_eq(res.n_ips, 2);
	ck_assert_int_eq(res.ips[0].family, AF_INET);
	assert_addr(AF_INET, res.ips[0].addr, "172.16.28.5");
	ck_assert_uint_eq(res.ips[0].prefixlen, 24);
	ck_assert(res.ips[0].has_gateway);
	assert_addr(AF_INET, res.ips[0].gateway, "172.16.28.1");
	ck_assert_int_eq(res.ips[0].interface, 1);
	ck_assert_int_eq(res.ips[1].family, AF_INET6);
	assert_addr(AF_INET6, res.ips[1].addr, "fd00:28::5");
	ck_assert_uint_eq(res.ips[1].prefixlen, 64);
	ck_assert_uint_eq(res.n_routes, 3);
	ck_assert(!res.routes[0].has_gw);
	ck_assert_uint_eq(res.routes[0].dst_len, 0);
	assert_addr(AF_INET, res.routes[1].dst, "10.1.0.0");
	ck_assert_uint_eq(res.routes[1].dst_len, 16);
	ck_assert_int_eq(res.routes[2].family, AF_INET6);
	assert_addr(AF_INET6, res.routes[2].gw, "fd00:28::1");
	ck_assert_uint_eq(res.dns.n_nameservers, 2);
	ck_assert_str_eq(res.dns.nameservers[1], "fd00:28::1");
	ck_assert_str_eq(res.dns.domain, "pod.local");
	ck_assert_uint_eq(res.dns.n_search, 2);
	ck_assert_str_eq(res.dns.search[1], "local");
	ck_assert_uint_eq(res.dns.n_options, 1);
	ck_assert_str_eq(res.dns.options[0], "ndots:2");
	ck_assert_ptr_eq(cni_result_first_ip(&res, AF_INET), &res.ips[0]);
	ck_assert_ptr_eq(cni_result_first_ip(&res, AF_INET6), &res.ips[1]);
}
END_TEST

START_TEST(test_v040_and_legacy)
{
	struct cc_error e;

	ASSERT_OK(parse_file("v040-bridge.json", &e));
	ck_assert_uint_eq(res.n_ifaces, 3);
	ck_assert_uint_eq(res.n_ips, 1);
	ck_assert_int_eq(res.ips[0].interface, 2);
	assert_addr(AF_INET, res.ips[0].addr, "10.99.1.2");
	ck_assert_uint_eq(res.n_routes, 0);
	ck_assert_uint_eq(res.dns.n_nameservers, 0);

	ASSERT_OK(parse_file("v010-legacy.json", &e));
	ck_assert_uint_eq(res.n_ips, 2);
	assert_addr(AF_INET, res.ips[0].addr, "172.17.0.9");
	ck_assert_uint_eq(res.ips[0].prefixlen, 16);
	ck_assert_int_eq(res.ips[0].interface, -1);
	ck_assert(!res.ips[1].has_gateway);
	ck_assert_int_eq(res.ips[1].family, AF_INET6);
	ck_assert_uint_eq(res.n_routes, 1);
	ck_assert_str_eq(res.dns.nameservers[0], "8.8.8.8");

	/* No IPv4 at all. */
	ASSERT_OK(parse_str("{\"ips\":[{\"address\":\"fd00::2/64\"}]}", &e));
	ck_assert_ptr_null(cni_result_first_ip(&res, AF_INET));
	ck_assert_ptr_eq(cni_result_first_ip(&res, AF_INET6), &res.ips[0]);
}
END_TEST

START_TEST(test_malformed)
{
	static const char *const bad[] = {
		"",
		"null",
		"[]",
		"{\"ips\": 5}",
		"{\"ips\": [{\"address\": \"10.0.0.1\"}]}", /* no prefix */
		"{\"ips\": [{\"address\": \"10.0.0.1/33\"}]}",
		"{\"ips\": [{\"address\": \"10.0.0.1/-1\"}]}",
		"{\"ips\": [{\"address\": \"10.0.0.1/24x\"}]}",
		"{\"ips\": [{\"address\": \"300.0.0.1/24\"}]}",
		"{\"ips\": [{\"address\": \"10.0.0.1/24\", \"gateway\": \"fd00::1\"}]}",
		"{\"ips\": [{\"address\": \"10.0.0.1/24\", \"interface\": 0}]}", /* no ifaces */
		"{\"ips\": [{\"address\": \"10.0.0.1/24\", \"interface\": \"0\"}]}",
		"{\"interfaces\": [{\"name\": \"averyveryverylongname\"}]}",
		"{\"interfaces\": [{\"name\": \"eth0\", \"mac\": \"zz:00:00:00:00:00\"}]}",
		"{\"interfaces\": [{\"name\": \"eth0\", \"mac\": \"00:00:00:00:00:00:00\"}]}",
		"{\"routes\": [{\"gw\": \"10.0.0.1\"}]}",
		"{\"routes\": [{\"dst\": \"0.0.0.0/0\", \"gw\": \"::1\"}]}",
		"{\"dns\": {\"nameservers\": [\"not-an-ip\"]}}",
		"{\"dns\": {\"search\": [\"a b\"]}}",
		"{\"dns\": {\"domain\": \"x\\ny\"}}",
		"{\"dns\": []}",
		"{\"ip4\": {\"gateway\": \"10.0.0.1\"}}",
		"{\"ip4\": 7}",
		"{} {}",
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct cc_error e;
		int r = parse_str(bad[i], &e);

		ck_assert_msg(r == -EBADMSG, "case %zu (%s): %d", i, bad[i], r);
		ck_assert_msg(e.msg[0], "case %zu: no message", i);
	}
}
END_TEST

START_TEST(test_limits)
{
	char buf[8192] = "{\"ips\":[";
	struct cc_error e;

	for (int i = 0; i <= CNI_IPS_MAX; i++) {
		char one[64];

		(void) snprintf(one, sizeof(one), "%s{\"address\":\"10.0.0.%d/24\"}", i ? "," : "",
				i + 1);
		strcat(buf, one);
	}
	strcat(buf, "]}");
	ck_assert_int_eq(parse_str(buf, &e), -E2BIG);
	/* Deep nesting is refused by the tokenizer, not a stack overflow. */
	{
		static char deep[70000];
		size_t n = 0;

		deep[n++] = '{';
		deep[n++] = '"';
		deep[n++] = 'a';
		deep[n++] = '"';
		deep[n++] = ':';
		for (int i = 0; i < 30000; i++)
			deep[n++] = '[';
		ck_assert_int_eq(cni_result_parse(deep, n, &res, &e), -EBADMSG);
	}
}
END_TEST

START_TEST(test_error_object)
{
	_cleanup_free_ char *buf = NULL;
	char p[PATH_MAX], msg[256];
	size_t len;

	(void) snprintf(p, sizeof(p), "%s/tests/data/net/results/error.json", cctest_source_dir());
	ck_assert_int_eq(read_full_file(p, 1 << 20, &buf, &len), 0);
	ASSERT_OK(cni_error_describe(buf, len, msg, sizeof(msg)));
	ck_assert_str_eq(msg, "failed to allocate for range 0; no IP addresses available in "
			      "range set: 10.99.9.1-10.99.9.2 (code 11)");
	ASSERT_OK(cni_error_describe("{\"code\":4,\"msg\":\"x\"}", 20, msg, sizeof(msg)));
	ck_assert_str_eq(msg, "x (code 4)");
	ck_assert_int_eq(cni_error_describe("panic: oops\n", 12, msg, sizeof(msg)), -EBADMSG);
	ck_assert_str_eq(msg, "unexpected output \"panic: oops\"");
	ck_assert_int_eq(cni_error_describe("", 0, msg, sizeof(msg)), -EBADMSG);
	ck_assert_str_eq(msg, "no error message");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cni-result");
	TCase *tc = tcase_create("result");

	tcase_add_test(tc, test_v100);
	tcase_add_test(tc, test_v040_and_legacy);
	tcase_add_test(tc, test_malformed);
	tcase_add_test(tc, test_limits);
	tcase_add_test(tc, test_error_object);
	suite_add_tcase(s, tc);
	return cctest_run_suite(s);
}
