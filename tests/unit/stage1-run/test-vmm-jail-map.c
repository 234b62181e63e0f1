/* SPDX-License-Identifier: Apache-2.0 */
/* The jailed VMM's uid and gid maps (vmm-jail.h): the host volumes' owners beyond 0..65535. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cctest.h"
#include "vmm-jail.h"

#define BASE "0 0 65536\n65536 2146435072 1\n"

START_TEST(test_no_volumes)
{
	struct vmm_jail j = {0};
	char buf[2048];

	ck_assert_int_eq(vmm_jail_map_build(&j, false, buf, sizeof(buf)), (int) strlen(BASE));
	ck_assert_str_eq(buf, BASE);
}
END_TEST

/* Owners inside 0..65535 add nothing; one beyond, once, in the uid or the gid map. */
START_TEST(test_high_owners)
{
	const struct volume_root v[] = {{1, 1, 1000, 100},
					{1, 2, 100000, 100001},
					{1, 3, 100000, 5},
					{1, 4, 0, 4294967295u}};
	struct vmm_jail j = {.hostvols = v, .n_hostvols = 4};
	char buf[2048];

	ck_assert_int_gt(vmm_jail_map_build(&j, false, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, BASE "100000 100000 1\n");
	ck_assert_int_gt(vmm_jail_map_build(&j, true, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, BASE "100001 100001 1\n4294967295 4294967295 1\n");
}
END_TEST

/* Idmapped exports: the namespace's 0-65535 and the owners beyond at the VMM's host range,
 * host root itself not mapped. */
START_TEST(test_idmapped)
{
	const struct volume_root v[] = {
		{1, 1, 1000, 100}, {1, 2, 100000, 100001}, {1, 3, 200000, 5}, {1, 4, 0, 100001}};
	struct vmm_jail j = {.hostvols = v, .n_hostvols = 4, .idmapped = true};
	char buf[2048];

	ck_assert_int_gt(vmm_jail_map_build(&j, false, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "0 2146500608 65536\n65536 2146435072 1\n"
			      "100000 2146566144 1\n200000 2146566145 1\n");
	ck_assert_int_gt(vmm_jail_map_build(&j, true, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "0 2146500608 65536\n65536 2146435072 1\n100001 2146566144 1\n");
	ck_assert_uint_eq(VMM_JAIL_HOST_BASE, 2146500608u);
	ck_assert_uint_eq(VMM_JAIL_HOST_EXTRA, 2146566144u);
}
END_TEST

/* The VMM's own ids cannot be given to a volume's owner; too many owners; a small buffer. */
START_TEST(test_refused)
{
	struct volume_root v[VMM_JAIL_EXTRA_IDS_MAX + 1];
	struct vmm_jail j = {.hostvols = v, .n_hostvols = 1};
	char buf[2048];

	v[0] = (struct volume_root){1, 1, 65536, 0};
	ck_assert_int_eq(vmm_jail_map_build(&j, false, buf, sizeof(buf)), -ERANGE);
	ck_assert_int_ge(vmm_jail_map_build(&j, true, buf, sizeof(buf)), 0);
	v[0] = (struct volume_root){1, 1, 0, 2146435072u};
	ck_assert_int_eq(vmm_jail_map_build(&j, true, buf, sizeof(buf)), -ERANGE);
	for (unsigned i = 0; i <= VMM_JAIL_EXTRA_IDS_MAX; i++)
		v[i] = (struct volume_root){1, i, 70000 + i, 0};
	j.n_hostvols = VMM_JAIL_EXTRA_IDS_MAX;
	ck_assert_int_gt(vmm_jail_map_build(&j, false, buf, sizeof(buf)), 0);
	j.n_hostvols = VMM_JAIL_EXTRA_IDS_MAX + 1;
	ck_assert_int_eq(vmm_jail_map_build(&j, false, buf, sizeof(buf)), -E2BIG);
	j.n_hostvols = 1;
	ck_assert_int_eq(vmm_jail_map_build(&j, false, buf, 40), -E2BIG);
	ck_assert_int_eq(vmm_jail_map_build(&j, false, buf, 10), -E2BIG);
}
END_TEST

static Suite *jail_map_suite(void)
{
	Suite *s = suite_create("stage1-vmm-jail-map");
	TCase *tc = tcase_create("map");

	tcase_add_test(tc, test_no_volumes);
	tcase_add_test(tc, test_high_owners);
	tcase_add_test(tc, test_idmapped);
	tcase_add_test(tc, test_refused);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(jail_map_suite());
}
