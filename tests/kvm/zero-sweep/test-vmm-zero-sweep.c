/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kvm tier: cc-vmm --zero-sweep with the zero-check guest (tests/guests/zero-check.c), under
 * the default sandbox, with 2 vCPUs (the second never started by the guest, parked in KVM_RUN
 * until a SIPI: the pause must get it out too):
 * - sweeps every 20 ms while the guest races them: no word it wrote is lost, its data pages
 *   are intact, its cleared pages read as zeroes, its pattern pages as the pattern;
 * - the sweeps really discard pages (the -vv lines: at least the 64 cleared pages);
 * - with --merge-pages the same race, and the 64 pattern pages really merged once the race
 *   leaves them alone (all but the few a sweep met with one word changed), then read back
 *   intact;
 * - without the option there is no sweep; with --hugepages on or auto, a bad interval, or
 *   --merge-pages without --zero-sweep, a usage error.
 */
#include <check.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cctest.h"
#include "vmm-run.h"

#define TIMEOUT_MS 120000

static struct vmm_result res;

static unsigned count_lines(const char *s, const char *prefix)
{
	unsigned n = 0;

	for (const char *p = strstr(s, prefix); p; p = strstr(p + 1, prefix))
		n++;
	return n;
}

/* The largest number after key in the sweep lines. */
static unsigned long long max_after(const char *s, const char *key)
{
	unsigned long long max = 0;

	for (const char *p = strstr(s, key); p; p = strstr(p + 1, key)) {
		unsigned long long v = strtoull(p + strlen(key), NULL, 10);

		if (v > max)
			max = v;
	}
	return max;
}

static void race_guest(bool merge)
{
	char *argv[] = {"--kernel",
			(char *) vmm_guest("zero-check"),
			"--mem",
			"64",
			"--cpus",
			"2",
			"--zero-sweep=20",
			"-vv",
			merge ? "--merge-pages" : NULL,
			NULL};

	vmm_run(argv, TIMEOUT_MS, &res);
	ck_assert_msg(res.status == 0, "exit %d: %s", res.status, vmm_tail(res.err));
	ck_assert_msg(strstr(res.out, "done\n"), "guest did not finish: %s", res.out);
	ck_assert_int_ge(vmm_kv(res.out, "rounds"), 1);
	ck_assert_int_eq(vmm_kv(res.out, "same_race_bad"), 0);
	ck_assert_int_eq(vmm_kv(res.out, "race_bad"), 0);
	ck_assert_int_eq(vmm_kv(res.out, "data_bad"), 0);
	ck_assert_int_eq(vmm_kv(res.out, "zero_bad"), 0);
	ck_assert_int_eq(vmm_kv(res.out, "same_bad"), 0);
	ck_assert_msg(!strstr(res.err, "did not pause"), "a pause timed out: %s",
		      vmm_tail(res.err));
	ck_assert_msg(count_lines(res.err, "zero sweep ") >= 5, "too few sweeps: %s",
		      vmm_tail(res.err));
	ck_assert_msg(max_after(res.err, "KiB discarded (") >= 64 * 4,
		      "the cleared pages stayed: %s", vmm_tail(res.err));
	if (merge)
		ck_assert_msg(max_after(res.err, "pages merged (") >= 48,
			      "the pattern pages were not merged: %s", vmm_tail(res.err));
	else
		ck_assert_msg(!strstr(res.err, "merged"), "merged without the option: %s",
			      vmm_tail(res.err));
}

START_TEST(test_sweep_races_guest)
{
	race_guest(false);
}
END_TEST

START_TEST(test_merge_races_guest)
{
	race_guest(true);
}
END_TEST

START_TEST(test_no_sweep_without_option)
{
	char *argv[] = {"--kernel", (char *) vmm_guest("hello"), "--mem", "64", "-vv", NULL};

	vmm_run(argv, TIMEOUT_MS, &res);
	ck_assert_msg(res.status == 0, "exit %d: %s", res.status, vmm_tail(res.err));
	ck_assert_msg(!strstr(res.err, "zero sweep"), "swept anyway: %s", vmm_tail(res.err));
}
END_TEST

START_TEST(test_usage_errors)
{
	char *huge[] = {"--kernel",	(char *) vmm_guest("hello"),
			"--mem",	"64",
			"--zero-sweep", "--hugepages",
			"on",		NULL};
	char *autohp[] = {"--kernel",	  (char *) vmm_guest("hello"),
			  "--zero-sweep", "--hugepages",
			  "auto",	  NULL};
	char *zero[] = {"--kernel", (char *) vmm_guest("hello"), "--zero-sweep=0", NULL};
	char *junk[] = {"--kernel", (char *) vmm_guest("hello"), "--zero-sweep=5s", NULL};
	char *merge[] = {"--kernel", (char *) vmm_guest("hello"), "--merge-pages", NULL};

	vmm_run(huge, TIMEOUT_MS, &res);
	ck_assert_int_eq(res.status, 2);
	ck_assert_msg(
		strstr(res.err, "--zero-sweep would split huge pages: it needs --hugepages off"),
		"%s", vmm_tail(res.err));
	ck_assert_uint_eq(count_lines(res.err, "\n"), 1);
	vmm_run(autohp, TIMEOUT_MS, &res);
	ck_assert_int_eq(res.status, 2);
	ck_assert_msg(strstr(res.err, "it needs --hugepages off"), "%s", vmm_tail(res.err));
	vmm_run(zero, TIMEOUT_MS, &res);
	ck_assert_int_eq(res.status, 2);
	ck_assert_msg(strstr(res.err, "--zero-sweep: expected 1-600000 ms, got '0'"), "%s",
		      vmm_tail(res.err));
	vmm_run(junk, TIMEOUT_MS, &res);
	ck_assert_int_eq(res.status, 2);
	ck_assert_msg(strstr(res.err, "got '5s'"), "%s", vmm_tail(res.err));
	vmm_run(merge, TIMEOUT_MS, &res);
	ck_assert_int_eq(res.status, 2);
	ck_assert_msg(
		strstr(res.err, "--merge-pages runs in the zero sweep: it needs --zero-sweep"),
		"%s", vmm_tail(res.err));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vmm-zero-sweep");
	TCase *tc = tcase_create("zero-sweep");

	vmm_require_kvm();
	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, test_sweep_races_guest);
	tcase_add_test(tc, test_merge_races_guest);
	tcase_add_test(tc, test_no_sweep_without_option);
	tcase_add_test(tc, test_usage_errors);
	suite_add_tcase(s, tc);
	return cctest_run_suite(s);
}
