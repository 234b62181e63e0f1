/* SPDX-License-Identifier: Apache-2.0 */
/* cc.mount=<tag>:<path> on the guest kernel command line (guest-image/init). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc/cleanup.h"
#include "cctest.h"
#include "cmdline.h"

START_TEST(test_cmdline_get_all_in_order)
{
	char **v = NULL;

	ck_assert_int_eq(cmdline_get_all("a=1 b=2 a=3 \"a=4 5\" ab=6 a", "a", 8, &v), 4);
	ck_assert_str_eq(v[0], "1");
	ck_assert_str_eq(v[1], "3");
	ck_assert_str_eq(v[2], "4 5");
	ck_assert_str_eq(v[3], "");
	ck_assert_ptr_null(v[4]);
	for (size_t i = 0; v[i]; i++)
		free(v[i]);
	free(v);

	v = (char **) 0x1;
	ck_assert_int_eq(cmdline_get_all("b=1", "a", 8, &v), 0);
	ck_assert_ptr_eq(v, (char **) 0x1);
	ASSERT_ERRNO(cmdline_get_all("a=1 a=2 a=3", "a", 2, &v), E2BIG);
	ASSERT_ERRNO(cmdline_get_all("a=\"1", "a", 2, &v), EINVAL);
	ASSERT_ERRNO(cmdline_get_all("a=1", "a=", 2, &v), EINVAL);
	ASSERT_ERRNO(cmdline_get_all("a=1", "a", 2, NULL), EINVAL);
}
END_TEST

START_TEST(test_cmdline_mount_parse_valid)
{
	struct cmdline_mount m;

	ASSERT_OK(cmdline_mount_parse("cc-stage2:/opt/stage2", &m));
	ck_assert_str_eq(m.tag, "cc-stage2");
	ck_assert_str_eq(m.path, "/opt/stage2");
	cmdline_mount_done(&m);
	ck_assert_ptr_null(m.tag);

	ASSERT_OK(cmdline_mount_parse("r:/rkt", &m));
	ck_assert_str_eq(m.path, "/rkt");
	cmdline_mount_done(&m);
	ASSERT_OK(cmdline_mount_parse("a.b_c:/x/.y/y..z/a+b@c-d", &m));
	ck_assert_str_eq(m.path, "/x/.y/y..z/a+b@c-d");
	cmdline_mount_done(&m);
}
END_TEST

START_TEST(test_cmdline_mount_parse_rejects)
{
	static const char *const bad[] = {
		"",
		"tag",
		":/x",
		"tag:",
		"tag:/",
		"tag:x",
		"tag:/x/",
		"tag://x",
		"tag:/x//y",
		"tag:/x/./y",
		"tag:/x/../y",
		"tag:/..",
		"tag:/.",
		"tag:/x:y",
		"tag:/x,y",
		"tag:/x y",
		"tag:/x\ty",
		"tag:/x\\y",
		"ta,g:/x",
		"ta/g:/x",
		"../x:/y",
		"tag:/caf\xc3\xa9",
	};
	char buf[CMDLINE_MOUNT_PATH_MAX + 64];
	struct cmdline_mount m = {};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(cmdline_mount_parse(bad[i], &m) == -EINVAL, "accepted '%s'", bad[i]);
	ck_assert_ptr_null(m.tag);

	strcpy(buf, "t:/");
	memset(buf + 3, 'p', CMDLINE_MOUNT_PATH_MAX - 1);
	buf[2 + CMDLINE_MOUNT_PATH_MAX] = '\0';
	ASSERT_OK(cmdline_mount_parse(buf, &m));
	ck_assert_uint_eq(strlen(m.path), CMDLINE_MOUNT_PATH_MAX);
	cmdline_mount_done(&m);
	buf[2 + CMDLINE_MOUNT_PATH_MAX] = 'p';
	buf[3 + CMDLINE_MOUNT_PATH_MAX] = '\0';
	ASSERT_ERRNO(cmdline_mount_parse(buf, &m), EINVAL);

	memset(buf, 'a', CMDLINE_POD_TAG_MAX + 1);
	strcpy(buf + CMDLINE_POD_TAG_MAX + 1, ":/x");
	ASSERT_ERRNO(cmdline_mount_parse(buf, &m), EINVAL);
	ASSERT_ERRNO(cmdline_mount_parse(NULL, &m), EINVAL);
}
END_TEST

START_TEST(test_cmdline_options_mounts)
{
	struct cmdline_options o;

	ASSERT_OK(cmdline_options_parse("root=/dev/pmem0 cc.pod=cc-layer "
					"cc.mount=cc-stage2:/opt/stage2 quiet cc.mount=cc-rkt:/rkt",
					&o));
	ck_assert_str_eq(o.pod_tag, "cc-layer");
	ck_assert_uint_eq(o.n_mounts, 2);
	ck_assert_str_eq(o.mounts[0].tag, "cc-stage2");
	ck_assert_str_eq(o.mounts[0].path, "/opt/stage2");
	ck_assert_str_eq(o.mounts[1].tag, "cc-rkt");
	ck_assert_str_eq(o.mounts[1].path, "/rkt");
	cmdline_options_done(&o);
	ck_assert_ptr_null(o.mounts);
	ck_assert_uint_eq(o.n_mounts, 0);

	ASSERT_OK(cmdline_options_parse("root=/dev/pmem0", &o));
	ck_assert_ptr_null(o.mounts);
	ck_assert_uint_eq(o.n_mounts, 0);
	cmdline_options_done(&o);
}
END_TEST

START_TEST(test_cmdline_options_mounts_rejects)
{
	char line[CMDLINE_MOUNTS_MAX * 24 + 32];
	struct cmdline_options o = {};
	size_t n = 0;

	ASSERT_ERRNO(cmdline_options_parse("cc.mount=a:/x cc.mount=b:/x", &o), EINVAL);
	ASSERT_ERRNO(cmdline_options_parse("cc.mount=a:/x cc.mount", &o), EINVAL);
	ASSERT_ERRNO(cmdline_options_parse("cc.mount=a:/x cc.mount=b:/y/../z", &o), EINVAL);
	ASSERT_ERRNO(cmdline_options_parse("cc.mount=\"a:/x y\"", &o), EINVAL);
	ck_assert_ptr_null(o.mounts);

	line[0] = '\0';
	for (size_t i = 0; i < CMDLINE_MOUNTS_MAX; i++)
		n += (size_t) sprintf(line + n, "cc.mount=t%zu:/m%zu ", i, i);
	ASSERT_OK(cmdline_options_parse(line, &o));
	ck_assert_uint_eq(o.n_mounts, CMDLINE_MOUNTS_MAX);
	cmdline_options_done(&o);
	sprintf(line + n, "cc.mount=x:/y");
	ASSERT_ERRNO(cmdline_options_parse(line, &o), E2BIG);
}
END_TEST

static Suite *mount_suite(void)
{
	Suite *s = suite_create("guest-cmdline-mount");
	TCase *tc = tcase_create("mount");

	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, test_cmdline_get_all_in_order);
	tcase_add_test(tc, test_cmdline_mount_parse_valid);
	tcase_add_test(tc, test_cmdline_mount_parse_rejects);
	tcase_add_test(tc, test_cmdline_options_mounts);
	tcase_add_test(tc, test_cmdline_options_mounts_rejects);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(mount_suite());
}
