/* SPDX-License-Identifier: Apache-2.0 */
/* The pod exit decision table and the status files (pod-exit.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "cctest.h"
#include "pod-exit.h"
#include "pod-paths.h"

#define EXITED(n)   (((n) &0xff) << 8)
#define SIGNALED(s) (s)

START_TEST(test_parse)
{
	static const struct {
		const char *in;
		int r, v;
	} cases[] = {
		{"0", 0, 0},	      {"7\n", 0, 7},	     {"255", 0, 255},
		{"256", -EBADMSG, 0}, {"", -EBADMSG, 0},     {"\n", -EBADMSG, 0},
		{"07", -EBADMSG, 0},  {"-1", -EBADMSG, 0},   {"7\n\n", -EBADMSG, 0},
		{" 7", -EBADMSG, 0},  {"1000", -EBADMSG, 0}, {"x", -EBADMSG, 0},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int v = -1;

		ck_assert_int_eq(pod_exit_parse(cases[i].in, strlen(cases[i].in), &v), cases[i].r);
		if (cases[i].r == 0)
			ck_assert_int_eq(v, cases[i].v);
	}
}
END_TEST

START_TEST(test_decision_table)
{
	static const struct {
		int vmm_status, pod_exit;
		int code, fill;
		bool report, warning;
		const char *msg;
	} t[] = {
		/* The pod ended normally: its code. */
		{EXITED(0), 0, 0, -1, false, false, NULL},
		{EXITED(0), 7, 7, -1, false, false, NULL},
		/* The pod ended, then the VMM failed or was killed: still the pod's code. */
		{EXITED(6), 3, 3, -1, true, true, "cc-vmm exit 6 after the pod ended"},
		{SIGNALED(SIGKILL), 0, 0, -1, true, true,
		 "cc-vmm killed by signal 9 after the pod ended"},
		/* stop --force / kill -9: 137, statuses filled. */
		{SIGNALED(SIGKILL), -1, 137, 137, false, false, NULL},
		{SIGNALED(SIGTERM), -1, 143, 143, false, false, NULL},
		/* A crash: the same codes, and a line that says so. */
		{SIGNALED(SIGSYS), -1, 128 + SIGSYS, 128 + SIGSYS, true, false,
		 "cc-vmm crashed (SIGSYS: a system call its seccomp filter does not allow)"},
		{SIGNALED(SIGSEGV), -1, 139, 139, true, false, "cc-vmm crashed (SIGSEGV)"},
		{SIGNALED(SIGABRT), -2, 134, 134, true, false,
		 "cc-vmm crashed (SIGABRT: a failed assertion)"},
		/* cc-vmm's clean stop on a (forwarded) SIGTERM or SIGINT. */
		{EXITED(143), -1, 143, 143, false, false, NULL},
		{EXITED(130), -1, 130, 130, false, false, NULL},
		/* No pod status: 1 and a message (unless cc-vmm gave one), statuses left absent. */
		{EXITED(0), -1, 1, -1, true, false,
		 "the VM ended without a pod exit status (cc-vmm exit 0)"},
		/* cc-vmm failed and said why itself: 1, no second line. */
		{EXITED(4), -1, 1, -1, false, false, NULL},
		{EXITED(6), -1, 1, -1, false, false, NULL},
		{EXITED(129), -1, 1, -1, true, false,
		 "the VM ended without a pod exit status (cc-vmm exit 129)"},
		{EXITED(0), -2, 1, -1, true, false,
		 "the VM ended without a pod exit status (cc-vmm exit 0, malformed "
		 "guest/rkt/cc-pod-exit)"},
		{SIGNALED(SIGKILL), -2, 137, 137, false, false, NULL},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct pod_exit pe;

		pod_exit_decide(t[i].vmm_status, t[i].pod_exit, &pe);
		ck_assert_msg(pe.code == t[i].code, "row %zu: code %d", i, pe.code);
		ck_assert_msg(pe.fill_status == t[i].fill, "row %zu: fill %d", i, pe.fill_status);
		ck_assert_msg(pe.report == t[i].report, "row %zu: report", i);
		if (t[i].report) {
			ck_assert_msg(pe.report_is_warning == t[i].warning, "row %zu", i);
			ck_assert_str_eq(pe.msg, t[i].msg);
		}
	}
}
END_TEST

static const char pod_json[] = "{\"acVersion\":\"1.30.0\",\"acKind\":\"PodManifest\",\"apps\":["
			       "{\"name\":\"one\",\"image\":{\"id\":\"sha512-00\"}},"
			       "{\"name\":\"two\",\"image\":{\"id\":\"sha512-00\"}},"
			       "{\"name\":\"three\",\"image\":{\"id\":\"sha512-00\"}}]}";

START_TEST(test_status_fill_and_read)
{
	_cleanup_(pod_manifest_freep) struct pod_manifest *pm = NULL;
	_cleanup_free_ char *tmp = cctest_mkdtemp(), *buf = NULL;
	_cleanup_close_ int pod_fd = -1;
	char p[PATH_MAX];

	ASSERT_OK(pod_manifest_parse(pod_json, strlen(pod_json), &pm, NULL));
	(void) snprintf(p, sizeof(p), "mkdir -p %s/" POD_STATUS_DIR " %s/" POD_GUEST_RKT_DIR, tmp,
			tmp);
	ck_assert_int_eq(system(p), 0);
	pod_fd = open(tmp, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(pod_fd, 0);

	ck_assert_int_eq(pod_exit_read(pod_fd), -1);
	(void) snprintf(p, sizeof(p), "%s/" POD_EXIT_PATH, tmp);
	ASSERT_OK(write_string_file_atomic(p, "42\n", 0644));
	ck_assert_int_eq(pod_exit_read(pod_fd), 42);
	ASSERT_OK(write_string_file_atomic(p, "4x2\n", 0644));
	ck_assert_int_eq(pod_exit_read(pod_fd), -2);

	/* "two" already has the guest's status: kept. */
	(void) snprintf(p, sizeof(p), "%s/" POD_STATUS_DIR "/two", tmp);
	ASSERT_OK(write_string_file_atomic(p, "0", 0644));
	ck_assert_int_eq(pod_status_fill(pod_fd, pm, 137), 2);
	ck_assert_int_eq(pod_status_fill(pod_fd, pm, 137), 0);
	ASSERT_OK(read_full_file(p, 16, &buf, NULL));
	ck_assert_str_eq(buf, "0");
	free(buf);
	buf = NULL;
	(void) snprintf(p, sizeof(p), "%s/" POD_STATUS_DIR "/three", tmp);
	ASSERT_OK(read_full_file(p, 16, &buf, NULL));
	ck_assert_str_eq(buf, "137");
	/* No temporary file is left behind. */
	(void) snprintf(p, sizeof(p), "test $(ls -A %s/" POD_STATUS_DIR " | wc -l) = 3", tmp);
	ck_assert_int_eq(system(p), 0);
	(void) cctest_rm_rf(tmp);
}
END_TEST

/*
 * The hostile side (issue #27): guest/rkt is the guest's read-write 9p share;
 * rkt/status only a compromised VMM (chrooted in stage1/rootfs) reaches. tmp/pod is the pod
 * dir, tmp/host a host directory (a canary) they point at.
 */
static char *atk_tmp;
static int atk_pod_fd = -1;
static char atk_host[PATH_MAX / 2];

static void attack_setup(void)
{
	char p[PATH_MAX];

	atk_tmp = cctest_mkdtemp();
	cctest_mkdir_at(atk_tmp, "pod");
	cctest_mkdir_at(atk_tmp, "host");
	cctest_mkdir_at(atk_tmp, "host/status");
	cctest_write_at(atk_tmp, "host/cc-pod-exit", "0");
	cctest_write_at(atk_tmp, "host/status/canary", "canary");
	(void) snprintf(atk_host, sizeof(atk_host), "%s/host", atk_tmp);
	(void) snprintf(p, sizeof(p),
			"mkdir -p %s/pod/" POD_STATUS_DIR " %s/pod/" POD_GUEST_RKT_DIR, atk_tmp,
			atk_tmp);
	ck_assert_int_eq(system(p), 0);
	(void) snprintf(p, sizeof(p), "%s/pod", atk_tmp);
	atk_pod_fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(atk_pod_fd, 0);
}

static void attack_teardown(void)
{
	atk_pod_fd = safe_close(atk_pod_fd);
	(void) cctest_rm_rf(atk_tmp);
	free(atk_tmp);
}

/* Replace pod/<rel> (a file or a whole directory) with what the guest plants. */
static void replace_with_link(const char *rel, const char *target)
{
	char p[PATH_MAX * 2];

	(void) snprintf(p, sizeof(p), "rm -rf %s/pod/%s && ln -s %s %s/pod/%s", atk_tmp, rel,
			target, atk_tmp, rel);
	ck_assert_int_eq(system(p), 0);
}

static void replace_with_fifo(const char *rel)
{
	char p[PATH_MAX * 2];

	(void) snprintf(p, sizeof(p), "rm -rf %s/pod/%s && mkfifo %s/pod/%s", atk_tmp, rel, atk_tmp,
			rel);
	ck_assert_int_eq(system(p), 0);
}

/* The host directory holds exactly what the setup put there. */
static void assert_host_untouched(void)
{
	char p[PATH_MAX];

	(void) snprintf(p, sizeof(p),
			"test \"$(cd %s && find . | sort | xargs)\" = "
			"\". ./cc-pod-exit ./status ./status/canary\"",
			atk_host);
	ck_assert_msg(system(p) == 0, "the host directory %s changed", atk_host);
	ck_assert_str_eq(cctest_read_at(atk_tmp, "host/status/canary"), "canary");
	ck_assert_str_eq(cctest_read_at(atk_tmp, "host/cc-pod-exit"), "0");
}

START_TEST(test_status_dir_symlink_not_followed)
{
	_cleanup_(pod_manifest_freep) struct pod_manifest *pm = NULL;
	char target[PATH_MAX];

	ASSERT_OK(pod_manifest_parse(pod_json, strlen(pod_json), &pm, NULL));
	(void) snprintf(target, sizeof(target), "%s/status", atk_host);
	replace_with_link(POD_STATUS_DIR, target);
	ASSERT_ERRNO(pod_status_fill(atk_pod_fd, pm, 137), ELOOP);
	assert_host_untouched();
}
END_TEST

START_TEST(test_rkt_dir_symlink_not_followed)
{
	_cleanup_(pod_manifest_freep) struct pod_manifest *pm = NULL;

	/* An inner component: stage1/rootfs/rkt -> host, whose status/ would get the files. */
	ASSERT_OK(pod_manifest_parse(pod_json, strlen(pod_json), &pm, NULL));
	replace_with_link(POD_RKT_DIR, atk_host);
	ASSERT_ERRNO(pod_status_fill(atk_pod_fd, pm, 137), ELOOP);
	/* The guest's own directory as a link: its cc-pod-exit ("0") is not read either, the
	 * pod did not end with 0. */
	replace_with_link(POD_GUEST_RKT_DIR, atk_host);
	ck_assert_int_eq(pod_exit_read(atk_pod_fd), -2);
	assert_host_untouched();
	replace_with_link(POD_STAGE1_ROOTFS, atk_host);
	ASSERT_ERRNO(pod_status_fill(atk_pod_fd, pm, 137), ELOOP);
	assert_host_untouched();
}
END_TEST

START_TEST(test_status_entries_planted_by_the_guest)
{
	_cleanup_(pod_manifest_freep) struct pod_manifest *pm = NULL;
	char target[PATH_MAX];

	ASSERT_OK(pod_manifest_parse(pod_json, strlen(pod_json), &pm, NULL));
	/* "one": a link to a host file, kept as a code already there, never written through.
	 * "two": its old temporary name is a link to a host file. "three": its old temporary
	 * name is a FIFO with no reader (opening it for writing would block). */
	(void) snprintf(target, sizeof(target), "%s/status/canary", atk_host);
	replace_with_link(POD_STATUS_DIR "/one", target);
	replace_with_link(POD_STATUS_DIR "/.two.cc-tmp", target);
	replace_with_fifo(POD_STATUS_DIR "/.three.cc-tmp");
	ck_assert_int_eq(pod_status_fill(atk_pod_fd, pm, 137), 2);
	ck_assert_str_eq(cctest_read_at(atk_tmp, "pod/" POD_STATUS_DIR "/two"), "137");
	ck_assert_str_eq(cctest_read_at(atk_tmp, "pod/" POD_STATUS_DIR "/three"), "137");
	assert_host_untouched();
}
END_TEST

START_TEST(test_pod_exit_fifo_does_not_block)
{
	/* No writer: a blocking open would hang run (and the test, until its timeout). */
	replace_with_fifo(POD_EXIT_PATH);
	ck_assert_int_eq(pod_exit_read(atk_pod_fd), -2);
}
END_TEST

START_TEST(test_pod_exit_symlink_and_huge_file)
{
	char target[PATH_MAX], p[PATH_MAX];

	(void) snprintf(target, sizeof(target), "%s/cc-pod-exit", atk_host);
	replace_with_link(POD_EXIT_PATH, target);
	ck_assert_int_eq(pod_exit_read(atk_pod_fd), -2);
	/* 1 GiB, sparse: refused by its size, not read. */
	(void) snprintf(p, sizeof(p),
			"rm -f %s/pod/" POD_EXIT_PATH " && truncate -s 1G %s/pod/" POD_EXIT_PATH,
			atk_tmp, atk_tmp);
	ck_assert_int_eq(system(p), 0);
	ck_assert_int_eq(pod_exit_read(atk_pod_fd), -2);
	/* A directory in its place. */
	(void) snprintf(p, sizeof(p),
			"rm -f %s/pod/" POD_EXIT_PATH " && mkdir %s/pod/" POD_EXIT_PATH, atk_tmp,
			atk_tmp);
	ck_assert_int_eq(system(p), 0);
	ck_assert_int_eq(pod_exit_read(atk_pod_fd), -2);
	assert_host_untouched();
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("stage1-pod-exit");
	TCase *tc = tcase_create("pod-exit");
	TCase *atk = tcase_create("hostile-guest");

	tcase_add_test(tc, test_parse);
	tcase_add_test(tc, test_decision_table);
	tcase_add_test(tc, test_status_fill_and_read);
	suite_add_tcase(s, tc);
	/* 10 s per test: an open that blocks on a FIFO fails instead of hanging. */
	tcase_set_timeout(atk, 10);
	tcase_add_checked_fixture(atk, attack_setup, attack_teardown);
	tcase_add_test(atk, test_status_dir_symlink_not_followed);
	tcase_add_test(atk, test_rkt_dir_symlink_not_followed);
	tcase_add_test(atk, test_status_entries_planted_by_the_guest);
	tcase_add_test(atk, test_pod_exit_fifo_does_not_block);
	tcase_add_test(atk, test_pod_exit_symlink_and_huge_file);
	suite_add_tcase(s, atk);
	return s;
}

int main(void)
{
	return cctest_run_suite(suite());
}
