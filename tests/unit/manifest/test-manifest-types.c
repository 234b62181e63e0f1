/* SPDX-License-Identifier: Apache-2.0 */
/* White-box tests of the string rules (manifest/src/validate.h) and quantities. */
#include <errno.h>
#include <stdint.h>

#include "cctest.h"
#include "manifest/quantity.h"
#include "validate.h"

START_TEST(test_ac_identifier_follows_appc_edges_rule)
{
	ck_assert(ac_identifier_is_valid("example.com/app"));
	ck_assert(ac_identifier_is_valid("a"));
	ck_assert(ac_identifier_is_valid("a--b//c~~d__e"));
	ck_assert(!ac_identifier_is_valid(""));
	ck_assert(!ac_identifier_is_valid("-a"));
	ck_assert(!ac_identifier_is_valid("a/"));
	ck_assert(!ac_identifier_is_valid("A"));
	ck_assert(!ac_identifier_is_valid("a b"));
	ck_assert(!ac_identifier_is_valid("a:b"));
}
END_TEST

START_TEST(test_ac_name_is_dns_label_like)
{
	ck_assert(ac_name_is_valid("web-1"));
	ck_assert(ac_name_is_valid("xn--bcher-kva"));
	ck_assert(!ac_name_is_valid("web.1"));
	ck_assert(!ac_name_is_valid("web_1"));
	ck_assert(!ac_name_is_valid("web-"));
	ck_assert(!ac_name_is_valid("Web"));
	ck_assert(!ac_name_is_valid(""));
}
END_TEST

START_TEST(test_image_id_accepts_truncated_sha512)
{
	ck_assert(image_id_is_valid("sha512-a07a2882e2fa"));
	ck_assert(image_id_is_valid("sha512-0"));
	ck_assert(!image_id_is_valid("sha512-"));
	ck_assert(image_id_is_valid("sha512-ABCD"));
	/* appc's own tests and examples */
	ck_assert(image_id_is_valid("sha512-abcdefghi"));
	ck_assert(image_id_is_valid("sha512-..."));
	ck_assert(!image_id_is_valid("sha512-a/b"));
	ck_assert(!image_id_is_valid("sha512-a b"));
	ck_assert(!image_id_is_valid("sha1-abcdef"));
	ck_assert(!image_id_is_valid("-abcdef"));
	ck_assert(!image_id_is_valid("sha256-abcd"));
	ck_assert(!image_id_is_valid("sha512-ab-cd"));
	ck_assert(!image_id_is_valid(
		"sha512-"
		"0000000000000000000000000000000000000000000000000000000000000000"
		"0000000000000000000000000000000000000000000000000000000000000000"
		"0"));
}
END_TEST

START_TEST(test_semver_accepts_rkt_versions)
{
	ck_assert(semver_is_valid("0.8.11"));
	ck_assert(semver_is_valid("1.30.0+git171c416f"));
	ck_assert(semver_is_valid("0.8.11+git"));
	ck_assert(semver_is_valid("1.0.0-rc.1+build.5"));
	ck_assert(semver_is_valid("0.0.0-dev"));
	ck_assert(semver_is_valid("0.0.1"));
	ck_assert(!semver_is_valid("0.0.0"));
	ck_assert(!semver_is_valid("1.2"));
	ck_assert(!semver_is_valid("1.2.3.4"));
	ck_assert(!semver_is_valid("v1.2.3"));
	ck_assert(semver_is_valid("1.2.3+")); /* empty metadata: go-semver accepts it */
	ck_assert(!semver_is_valid("1.2.3-a..b"));
	ck_assert(!semver_is_valid("1..3"));
	ck_assert(!semver_is_valid(""));
	ck_assert(!semver_is_valid("1.2.3-a_b"));
}
END_TEST

START_TEST(test_rfc3339_checks_fields)
{
	ck_assert(rfc3339_is_valid("2014-10-27T19:32:27.67021798Z"));
	ck_assert(rfc3339_is_valid("2016-02-29T23:59:59+14:00"));
	ck_assert(rfc3339_is_valid("2016-02-29T23:59:59,5-07:00"));
	ck_assert(!rfc3339_is_valid("2015-02-29T00:00:00Z"));
	ck_assert(!rfc3339_is_valid("2016-13-01T00:00:00Z"));
	ck_assert(!rfc3339_is_valid("2016-01-01T24:00:00Z"));
	ck_assert(!rfc3339_is_valid("2016-01-01t00:00:00Z"));
	ck_assert(!rfc3339_is_valid("2016-01-01T00:00:00"));
	ck_assert(!rfc3339_is_valid("2016-01-01T00:00:00.Z"));
	ck_assert(!rfc3339_is_valid("2016-01-01T00:00:00+0100"));
	ck_assert(!rfc3339_is_valid("2016-01-01"));
}
END_TEST

START_TEST(test_http_url_needs_scheme_and_host)
{
	ck_assert(http_url_is_valid("https://github.com/appc/spec"));
	ck_assert(http_url_is_valid("HTTP://example.com:8080/a?b#c"));
	ck_assert(http_url_is_valid("http://user@[::1]:80/"));
	ck_assert(http_url_is_valid("http://example.com/%20x"));
	ck_assert(!http_url_is_valid("ftp://example.com/"));
	ck_assert(!http_url_is_valid("http://"));
	ck_assert(!http_url_is_valid("http:///path"));
	ck_assert(!http_url_is_valid("http://exa mple.com/"));
	ck_assert(!http_url_is_valid("http://example.com/%zz"));
	ck_assert(!http_url_is_valid("http://example.com:80a/"));
	ck_assert(!http_url_is_valid("example.com"));
}
END_TEST

START_TEST(test_small_rules)
{
	uint32_t mode;

	ck_assert(env_name_is_valid("PATH"));
	ck_assert(env_name_is_valid("_a.b-c9"));
	ck_assert(!env_name_is_valid("9A"));
	ck_assert(!env_name_is_valid(""));
	ck_assert(!env_name_is_valid("A B"));
	ck_assert(errno_name_is_valid("ENOTSUP"));
	ck_assert(errno_name_is_valid("E2BIG"));
	ck_assert(!errno_name_is_valid("EPERm"));
	ck_assert(!errno_name_is_valid("PERM"));
	ck_assert(octal_mode_parse("0755", &mode));
	ck_assert_uint_eq(mode, 0755);
	ck_assert(octal_mode_parse("1777", &mode));
	ck_assert(!octal_mode_parse("0758", &mode));
	ck_assert(!octal_mode_parse("", &mode));
	ck_assert(!octal_mode_parse("17777", &mode));
	ck_assert(ip_address_is_valid("10.0.0.1"));
	ck_assert(ip_address_is_valid("fe80::1"));
	ck_assert(!ip_address_is_valid("10.0.0"));
	ck_assert(os_arch_is_valid("linux", "aarch64"));
	ck_assert(os_arch_is_valid("linux", NULL));
	ck_assert(!os_arch_is_valid("linux", "x86_64"));
	ck_assert(!os_arch_is_valid("windows", NULL));
}
END_TEST

START_TEST(test_quantity_grammar_matches_appc)
{
	static const char *const good[] = {"0",	  "1",	   "500m", "1.5", ".5",	 "1.",
					   "1Ki", "123Mi", "1G",   "2E",  "1e3", "1E-3",
					   "+1",  "-1",	   "1n",   "1u",  "1k",	 "7Ei"};
	static const char *const bad[] = {"",	"12XB", "1ki", "1K", "1e",   "1.5e3Mi", "1.2.3",
					  " 1", "1 ",	"k",   "+",  "0x10", "1m3",	"1Gi2"};

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ck_assert_msg(quantity_is_valid(good[i]), "%s", good[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(!quantity_is_valid(bad[i]), "%s", bad[i]);
}
END_TEST

START_TEST(test_quantity_converts_to_bytes_and_millis)
{
	uint64_t v;

	ASSERT_OK(quantity_to_bytes("1Ki", &v));
	ck_assert_uint_eq(v, 1024);
	ASSERT_OK(quantity_to_bytes("1.5Gi", &v));
	ck_assert_uint_eq(v, 1610612736ull);
	ASSERT_OK(quantity_to_bytes("1G", &v));
	ck_assert_uint_eq(v, 1000000000ull);
	ASSERT_OK(quantity_to_bytes("500m", &v));
	ck_assert_uint_eq(v, 1); /* rounded up */
	ASSERT_OK(quantity_to_bytes("0", &v));
	ck_assert_uint_eq(v, 0);
	ASSERT_OK(quantity_to_bytes("1e3", &v));
	ck_assert_uint_eq(v, 1000);
	ASSERT_OK(quantity_to_bytes("15Ei", &v));
	ck_assert_uint_eq(v, 15ull << 60);
	ASSERT_OK(quantity_to_bytes("0.000000000000000000000000000000000000000000001", &v));
	ck_assert_uint_eq(v, 1);
	ASSERT_ERRNO(quantity_to_bytes("16Ei", &v), ERANGE);
	ASSERT_ERRNO(quantity_to_bytes("1e100", &v), ERANGE);
	ASSERT_ERRNO(quantity_to_bytes("99999999999999999999999999999999999999999999", &v), ERANGE);
	ASSERT_ERRNO(quantity_to_bytes("-1", &v), EINVAL);
	ASSERT_ERRNO(quantity_to_bytes("12XB", &v), EINVAL);
	ASSERT_OK(quantity_to_bytes("-0", &v));
	ck_assert_uint_eq(v, 0);

	ASSERT_OK(quantity_to_millis("250m", &v));
	ck_assert_uint_eq(v, 250);
	ASSERT_OK(quantity_to_millis("1", &v));
	ck_assert_uint_eq(v, 1000);
	ASSERT_OK(quantity_to_millis("0.5", &v));
	ck_assert_uint_eq(v, 500);
	ASSERT_OK(quantity_to_millis("1.0001", &v));
	ck_assert_uint_eq(v, 1001);
	ASSERT_OK(quantity_to_millis("2k", &v));
	ck_assert_uint_eq(v, 2000000);
	ASSERT_OK(quantity_to_millis("1e-3", &v));
	ck_assert_uint_eq(v, 1);
	ASSERT_OK(quantity_to_millis("1e-1000000000000000000", &v));
	ck_assert_uint_eq(v, 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("manifest-types");
	TCase *tc = tcase_create("rules");

	tcase_add_test(tc, test_ac_identifier_follows_appc_edges_rule);
	tcase_add_test(tc, test_ac_name_is_dns_label_like);
	tcase_add_test(tc, test_image_id_accepts_truncated_sha512);
	tcase_add_test(tc, test_semver_accepts_rkt_versions);
	tcase_add_test(tc, test_rfc3339_checks_fields);
	tcase_add_test(tc, test_http_url_needs_scheme_and_host);
	tcase_add_test(tc, test_small_rules);
	suite_add_tcase(s, tc);

	tc = tcase_create("quantity");
	tcase_add_test(tc, test_quantity_grammar_matches_appc);
	tcase_add_test(tc, test_quantity_converts_to_bytes_and_millis);
	suite_add_tcase(s, tc);
	return cctest_run_suite(s);
}
