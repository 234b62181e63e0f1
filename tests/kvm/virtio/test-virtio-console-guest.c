/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kvm tier: the virtio-console guest (tests/guests/virtio-console.c) finds the device from
 * the kernel command line, drives it as a minimal driver and sends one chain; its bytes must
 * come out of cc-vmm's console (stdout or a file), in order, exactly once.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "cctest.h"
#include "vmm-run.h"

#define TIMEOUT_MS 30000
#define MESSAGE	   "hello from the virtio console\n"

static struct vmm_result res;

/* out: where the guest's serial "key=hex" lines went; console: where hvc output went. */
static void assert_guest_ok(const char *out, const char *console)
{
	const char *first;

	ck_assert_msg(res.status == 0, "cc-vmm exited %d, stderr: %s", res.status, res.err);
	ck_assert_msg(strstr(out, "done\n"), "guest did not finish: %s", out);
	ck_assert_int_eq(vmm_kv(out, "vcon_base"), 0xd0000000);
	ck_assert_int_eq(vmm_kv(out, "vcon_setup"), 0);
	ck_assert_int_eq(vmm_kv(out, "vcon_used"), 1);
	ck_assert_int_eq(vmm_kv(out, "vcon_id"), 0);
	ck_assert_int_eq(vmm_kv(out, "vcon_isr") & 1, 1);
	ck_assert_int_eq(vmm_kv(out, "vcon_reset_status"), 0);
	first = strstr(console, MESSAGE);
	ck_assert_msg(first, "console output lacks the message: %s", console);
	ck_assert_msg(!strstr(first + 1, MESSAGE), "message written twice: %s", console);
}

START_TEST(test_virtio_console_guest_to_stdout)
{
	char *argv[] = {"--kernel", (char *) vmm_guest("virtio-console"), NULL};

	vmm_run(argv, TIMEOUT_MS, &res);
	assert_guest_ok(res.out, res.out);
}
END_TEST

START_TEST(test_virtio_console_guest_to_file)
{
	_cleanup_free_ char *dir = cctest_mkdtemp(), *path = NULL, *text = NULL;
	char *argv[] = {"--kernel", (char *) vmm_guest("virtio-console"), "--console", NULL, NULL};

	ck_assert_int_ge(asprintf(&path, "%s/console.log", dir), 0);
	argv[3] = path;
	vmm_run(argv, TIMEOUT_MS, &res);
	ASSERT_OK(read_full_file(path, 1 << 20, &text, NULL));
	/* Serial and virtio both go to the console file; stdout stays empty. */
	ck_assert_msg(res.out[0] == '\0', "stdout: %s", res.out);
	assert_guest_ok(text, text);
	cctest_rm_rf(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("virtio-console-guest");
	TCase *tc = tcase_create("guest");

	vmm_require_kvm();
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_virtio_console_guest_to_stdout);
	tcase_add_test(tc, test_virtio_console_guest_to_file);
	suite_add_tcase(s, tc);
	return cctest_run_suite(s);
}
