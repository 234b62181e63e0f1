/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kvm tier: cc-vmm --balloon with the balloon-check guest (tests/guests/balloon-check.c),
 * under the default sandbox (seccomp kill: the discard's madvise() must be allowed):
 * - the device offers PAGE_REPORTING and DEFLATE_ON_OOM, takes three queues, shows num_pages
 *   0 and the actual the driver wrote;
 * - 64 KiB the guest reports read back as zeroes, so the host really discarded them; so does
 *   an inflated page;
 * - so do the guest's own pages inside its kernel segments, which it may free too: a data
 *   page mapped from the file reads as the file again, a bss page as zeroes;
 * - a report outside guest RAM comes back with length 0 and the device keeps working;
 * - without --balloon there is no balloon device.
 */
#include <check.h>
#include <string.h>

#include "cctest.h"
#include "vmm-run.h"

#define TIMEOUT_MS 30000

static struct vmm_result res;

START_TEST(test_balloon_gives_pages_back)
{
	char *argv[] = {"--kernel", (char *) vmm_guest("balloon-check"), "--mem", "64", "--balloon",
			NULL};

	vmm_run(argv, TIMEOUT_MS, &res);
	ck_assert_msg(res.status == 0, "exit %d: %s", res.status, res.err);
	ck_assert_str_eq(res.err, "");
	ck_assert_msg(strstr(res.out, "done\n"), "guest did not finish: %s", res.out);
	/* device bits only (the transport adds INDIRECT_DESC and EVENT_IDX) */
	ck_assert_int_eq(vmm_kv(res.out, "feat") & 0xffffff, (1 << 5) | (1 << 2));
	ck_assert_int_eq(vmm_kv(res.out, "setup"), 0);
	ck_assert_int_eq(vmm_kv(res.out, "target"), 0);
	ck_assert_int_eq(vmm_kv(res.out, "actual"), 5);
	ck_assert_int_eq(vmm_kv(res.out, "rep_len"), 0);
	ck_assert_int_eq(vmm_kv(res.out, "rep_left"), 0);
	ck_assert_int_eq(vmm_kv(res.out, "kdata"), 0x33);
	ck_assert_int_eq(vmm_kv(res.out, "kbss"), 0);
	ck_assert_int_eq(vmm_kv(res.out, "bad_len"), 0);
	ck_assert_int_eq(vmm_kv(res.out, "inf_left"), 0);
	ck_assert_int_eq(vmm_kv(res.out, "def_ok"), 1);
}
END_TEST

START_TEST(test_no_balloon_without_option)
{
	char *argv[] = {"--kernel", (char *) vmm_guest("balloon-check"), "--mem", "64", NULL};

	vmm_run(argv, TIMEOUT_MS, &res);
	ck_assert_msg(res.status == 0, "exit %d: %s", res.status, res.err);
	ck_assert_msg(strstr(res.out, "no balloon\ndone\n"), "unexpected output: %s", res.out);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vmm-balloon");
	TCase *tc = tcase_create("balloon");

	vmm_require_kvm();
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_balloon_gives_pages_back);
	tcase_add_test(tc, test_no_balloon_without_option);
	suite_add_tcase(s, tc);
	return cctest_run_suite(s);
}
