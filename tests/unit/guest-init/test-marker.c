/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "cctest.h"
#include "marker.h"

START_TEST(test_marker_parse_names)
{
	uint8_t c = 0;

	ASSERT_OK(marker_parse("init-start", &c));
	ck_assert_uint_eq(c, 0x01);
	ASSERT_OK(marker_parse("systemd-exec", &c));
	ck_assert_uint_eq(c, 0x02);
	ASSERT_OK(marker_parse("app-started", &c));
	ck_assert_uint_eq(c, 0x03);
	ck_assert_str_eq(marker_to_name(0x03), "app-started");
	ck_assert_ptr_null(marker_to_name(0x42));
}
END_TEST

START_TEST(test_marker_parse_numbers)
{
	uint8_t c = 0;

	ASSERT_OK(marker_parse("3", &c));
	ck_assert_uint_eq(c, 3);
	ASSERT_OK(marker_parse("0x10", &c));
	ck_assert_uint_eq(c, 0x10);
	ASSERT_OK(marker_parse("255", &c));
	ck_assert_uint_eq(c, 255);
	ASSERT_OK(marker_parse("0XfF", &c));
	ck_assert_uint_eq(c, 255);
}
END_TEST

START_TEST(test_marker_parse_rejects_junk)
{
	static const char *const bad[] = {
		"",
		"0",
		"256",
		"0x100",
		"-1",
		" 1",
		"1 ",
		"+1",
		"1x",
		"0x",
		"app",
		"APP-STARTED",
		"99999999999999999999999",
	};
	uint8_t c = 7;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(marker_parse(bad[i], &c) == -EINVAL, "accepted '%s'", bad[i]);
	ck_assert_uint_eq(c, 7);
	ASSERT_ERRNO(marker_parse(NULL, &c), EINVAL);
}
END_TEST

START_TEST(test_marker_uptime_parse)
{
	char buf[16];

	ASSERT_OK(marker_uptime_parse("12.34 56.78\n", buf, sizeof(buf)));
	ck_assert_str_eq(buf, "12.34");
	ASSERT_OK(marker_uptime_parse("0.05", buf, sizeof(buf)));
	ck_assert_str_eq(buf, "0.05");
	ASSERT_ERRNO(marker_uptime_parse("", buf, sizeof(buf)), EINVAL);
	ASSERT_ERRNO(marker_uptime_parse("12 34", buf, sizeof(buf)), EINVAL);
	ASSERT_ERRNO(marker_uptime_parse(".5 1.0", buf, sizeof(buf)), EINVAL);
	ASSERT_ERRNO(marker_uptime_parse("1. 1.0", buf, sizeof(buf)), EINVAL);
	ASSERT_ERRNO(marker_uptime_parse("1.5x 1.0", buf, sizeof(buf)), EINVAL);
	ASSERT_ERRNO(marker_uptime_parse("-1.5 1.0", buf, sizeof(buf)), EINVAL);
	ASSERT_ERRNO(marker_uptime_parse("123456.789", buf, 6), ENOBUFS);
}
END_TEST

START_TEST(test_marker_format_line)
{
	char buf[MARKER_LINE_MAX];
	int n;

	n = marker_format_line(MARKER_APP_STARTED, "1.25", buf, sizeof(buf));
	ck_assert_int_eq(n, (int) strlen("cc-marker: app-started uptime=1.25\n"));
	ck_assert_str_eq(buf, "cc-marker: app-started uptime=1.25\n");
	ASSERT_OK(marker_format_line(0x42, "0.01", buf, sizeof(buf)));
	ck_assert_str_eq(buf, "cc-marker: 0x42 uptime=0.01\n");
	ASSERT_ERRNO(marker_format_line(MARKER_INIT_START, "1.25", buf, 10), ENOBUFS);
}
END_TEST

static Suite *marker_suite(void)
{
	Suite *s = suite_create("guest-marker");
	TCase *tc = tcase_create("marker");

	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, test_marker_parse_names);
	tcase_add_test(tc, test_marker_parse_numbers);
	tcase_add_test(tc, test_marker_parse_rejects_junk);
	tcase_add_test(tc, test_marker_uptime_parse);
	tcase_add_test(tc, test_marker_format_line);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(marker_suite());
}
