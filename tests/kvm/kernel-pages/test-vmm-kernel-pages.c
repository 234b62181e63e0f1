/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kvm tier: cc-vmm --share-kernel-pages with the kpage-check guest (tests/guests/kpage-check.c),
 * under the default sandbox:
 * - the first VM fills the slot of the one text page it patched and maps it; the guest reads
 *   its bytes unchanged, and a later write takes a private copy again;
 * - a second VM with the same kernel maps that slot without filling it;
 * - the file is one per kernel file, mode 0600, four regions of the kernel file's size;
 * - without the option nothing is shared; a directory that does not exist is a one-line error;
 * - a guest that writes another boot marker before init-start (past its init) shares nothing:
 *   the file is closed unshared, and its slot stays empty;
 * - while another process holds the file's lock, the VM waits for it a bounded time (under
 *   the sandbox), then runs on unshared.
 */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cctest.h"
#include "vmm-run.h"

#define TIMEOUT_MS 120000

static struct vmm_result res;
static char *dir;

static void setup(void)
{
	dir = cctest_mkdtemp();
	ck_assert_int_eq(chmod(dir, 0700), 0);
}

static void teardown(void)
{
	cctest_rm_rf(dir);
	free(dir);
}

static void run_guest(bool share, const char *cmdline)
{
	char *argv[] = {"--kernel",  (char *) vmm_guest("kpage-check"),
			"--mem",     "64",
			"--cmdline", (char *) cmdline,
			"-vv",	     share ? "--share-kernel-pages" : NULL,
			dir,	     NULL};

	vmm_run(argv, TIMEOUT_MS, &res);
	ck_assert_msg(res.status == 0, "exit %d: %s", res.status, res.err);
	ck_assert_msg(strstr(res.out, "done\n"), "guest did not finish: %s", res.out);
	ck_assert_int_eq(vmm_kv(res.out, "shared_bad"), 0);
	ck_assert_int_eq(vmm_kv(res.out, "cow_bad"), 0);
}

START_TEST(test_shared_between_vms)
{
	char path[1024];
	struct dirent *de;
	struct stat ks, st;
	unsigned n = 0;
	DIR *d;

	run_guest(true, "x");
	ck_assert_msg(strstr(res.err,
			     "kernel pages: 1 private, 1 now shared (1 filled their slot), "
			     "0 with bytes of their own, 0 freed padding"),
		      "%s", res.err);
	run_guest(true, "x");
	ck_assert_msg(
		strstr(res.err, "kernel pages: 1 private, 1 now shared (0 filled their slot)"),
		"%s", res.err);

	ck_assert_int_eq(stat(vmm_guest("kpage-check"), &ks), 0);
	d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		n++;
		ck_assert_msg(strncmp(de->d_name, "vmlinux-", 8) == 0, "%s", de->d_name);
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		ck_assert_int_eq(stat(path, &st), 0);
		ck_assert_int_eq(st.st_mode & 07777, 0600);
		ck_assert_int_eq(st.st_size, 4 * ((ks.st_size + 4095) / 4096 * 4096));
	}
	closedir(d);
	ck_assert_uint_eq(n, 1);
}
END_TEST

START_TEST(test_off_without_option)
{
	run_guest(false, "x");
	ck_assert_msg(!strstr(res.err, "kernel pages"), "shared anyway: %s", res.err);
}
END_TEST

/* systemd-exec before init-start: closed unshared, and a later VM still fills the slot. */
START_TEST(test_late_marker_not_shared)
{
	run_guest(true, "late");
	ck_assert_msg(strstr(res.err, "kernel pages: boot marker 2 came before the share, not "
				      "shared"),
		      "%s", res.err);
	ck_assert_msg(!strstr(res.err, "now shared"), "shared anyway: %s", res.err);
	run_guest(true, "x");
	ck_assert_msg(
		strstr(res.err, "kernel pages: 1 private, 1 now shared (1 filled their slot)"),
		"%s", res.err);
}
END_TEST

START_TEST(test_missing_dir)
{
	char missing[1024];
	char *argv[] = {"--kernel", (char *) vmm_guest("kpage-check"), "--share-kernel-pages",
			missing, NULL};

	snprintf(missing, sizeof(missing), "%s/none", dir);
	vmm_run(argv, TIMEOUT_MS, &res);
	ck_assert_int_ne(res.status, 0);
	ck_assert_msg(strstr(res.err, "cannot open the shared kernel pages file"), "%s", res.err);
	ck_assert_msg(strchr(res.err, '\n') == res.err + strlen(res.err) - 1, "not one line: %s",
		      res.err);
}
END_TEST

/* The one file in dir (the first VM made it): its path into path. */
static void shared_file(char *path, size_t size)
{
	struct dirent *de;
	unsigned n = 0;
	DIR *d = opendir(dir);

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)))
		if (de->d_name[0] != '.') {
			snprintf(path, size, "%s/%s", dir, de->d_name);
			n++;
		}
	closedir(d);
	ck_assert_uint_eq(n, 1);
}

/* Another VMM stopped while it holds the lock: this VM gives up after its bounded wait. */
START_TEST(test_lock_held_elsewhere)
{
	char path[1024];
	int fd;

	run_guest(true, "x");
	shared_file(path, sizeof(path));
	fd = open(path, O_RDWR | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(flock(fd, LOCK_EX), 0);
	run_guest(true, "x");
	ck_assert_msg(strstr(res.err, "kernel pages: sharing stopped early: "), "%s", res.err);
	ck_assert_msg(strstr(res.err, " 0 now shared"), "%s", res.err);
	close(fd);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vmm-kernel-pages");
	TCase *tc = tcase_create("share");

	vmm_require_kvm();
	tcase_set_timeout(tc, 300);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_shared_between_vms);
	tcase_add_test(tc, test_off_without_option);
	tcase_add_test(tc, test_late_marker_not_shared);
	tcase_add_test(tc, test_lock_held_elsewhere);
	tcase_add_test(tc, test_missing_dir);
	suite_add_tcase(s, tc);
	return cctest_run_suite(s);
}
