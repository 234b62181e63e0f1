/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The guest's exit codes copied to rkt's status files (status-mirror.h), and the status files'
 * temporary names (pod-exit.h). tmp/pod is the pod dir, whose guest/rkt is the
 * guest's (cc-rkt); tmp/host a host directory (a canary) the guest points at.
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cctest.h"
#include "pod-exit.h"
#include "pod-paths.h"
#include "status-mirror.h"

static const char pod_json[] = "{\"acVersion\":\"1.30.0\",\"acKind\":\"PodManifest\",\"apps\":["
			       "{\"name\":\"fifo\",\"image\":{\"id\":\"sha512-00\"}},"
			       "{\"name\":\"hostlink\",\"image\":{\"id\":\"sha512-00\"}},"
			       "{\"name\":\"zero\",\"image\":{\"id\":\"sha512-00\"}},"
			       "{\"name\":\"big\",\"image\":{\"id\":\"sha512-00\"}},"
			       "{\"name\":\"junk\",\"image\":{\"id\":\"sha512-00\"}},"
			       "{\"name\":\"dir\",\"image\":{\"id\":\"sha512-00\"}},"
			       "{\"name\":\"okay\",\"image\":{\"id\":\"sha512-00\"}}]}";

static char *tmp;
static int pod_fd = -1;
static struct pod_manifest *pm;

static void sh(const char *fmt, ...) _printf_(1, 2);
static void sh(const char *fmt, ...)
{
	char cmd[PATH_MAX * 4];
	va_list ap;

	va_start(ap, fmt);
	(void) vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	ck_assert_msg(system(cmd) == 0, "%s", cmd);
}

static void setup(void)
{
	char p[PATH_MAX];

	tmp = cctest_mkdtemp();
	sh("mkdir -p %s/pod/" POD_STATUS_DIR " %s/pod/" POD_GUEST_STATUS_DIR " %s/host", tmp, tmp,
	   tmp);
	cctest_write_at(tmp, "host/file", "5");
	cctest_write_at(tmp, "host/okay", "3");
	(void) snprintf(p, sizeof(p), "%s/pod", tmp);
	pod_fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(pod_fd, 0);
	ASSERT_OK(pod_manifest_parse(pod_json, strlen(pod_json), &pm, NULL));
}

static void teardown(void)
{
	pod_fd = safe_close(pod_fd);
	pod_manifest_freep(&pm);
	(void) cctest_rm_rf(tmp);
	free(tmp);
}

/* The host directory holds exactly what setup put there. */
static void assert_host_untouched(void)
{
	sh("test \"$(cd %s/host && find . | sort | xargs)\" = '. ./file ./okay'", tmp);
	ck_assert_str_eq(cctest_read_at(tmp, "host/file"), "5");
	ck_assert_str_eq(cctest_read_at(tmp, "host/okay"), "3");
}

/* rkt's status dir holds exactly names, each a regular file (not a link). */
static void assert_status_names(const char *names)
{
	sh("test \"$(ls -A %s/pod/" POD_STATUS_DIR " | xargs)\" = '%s'", tmp, names);
	sh("test -z \"$(find %s/pod/" POD_STATUS_DIR " -mindepth 1 ! -type f)\"", tmp);
}

START_TEST(test_only_valid_codes_reach_rkt)
{
	const char *g = "pod/" POD_GUEST_STATUS_DIR;

	sh("mkfifo %s/%s/fifo", tmp, g);
	sh("ln -s %s/host/file %s/%s/hostlink", tmp, tmp, g);
	sh("ln -s /dev/zero %s/%s/zero", tmp, g);
	/* 1 GiB, sparse: refused by its size, not read. */
	sh("truncate -s 1G %s/%s/big", tmp, g);
	sh("printf 'x7' >%s/%s/junk", tmp, g);
	sh("mkdir %s/%s/dir", tmp, g);
	sh("printf '42\\n' >%s/%s/okay", tmp, g);
	/* Every tick of the VM's life: none blocks (the tcase times out at 10 s). */
	ck_assert_int_eq(status_mirror(pod_fd, pm), 1);
	ck_assert_int_eq(status_mirror(pod_fd, pm), 0);
	assert_status_names("okay");
	ck_assert_str_eq(cctest_read_at(tmp, "pod/" POD_STATUS_DIR "/okay"), "42");
	/* The guest changes its mind: the first code stays. */
	sh("printf '9' >%s/%s/okay", tmp, g);
	ck_assert_int_eq(status_mirror(pod_fd, pm), 0);
	ck_assert_str_eq(cctest_read_at(tmp, "pod/" POD_STATUS_DIR "/okay"), "42");
	/* At the VM's end the others get the stop's code, as regular files. */
	ck_assert_int_eq(pod_status_fill(pod_fd, pm, 137), 6);
	assert_status_names("big dir fifo hostlink junk okay zero");
	ck_assert_str_eq(cctest_read_at(tmp, "pod/" POD_STATUS_DIR "/hostlink"), "137");
	ck_assert_str_eq(cctest_read_at(tmp, "pod/" POD_STATUS_DIR "/okay"), "42");
	assert_host_untouched();
}
END_TEST

START_TEST(test_guest_status_dir_linked)
{
	/* The guest's status/ (or its whole /rkt) a link to a host dir with an "okay" of 3. */
	sh("rmdir %s/pod/" POD_GUEST_STATUS_DIR " && ln -s %s/host %s/pod/" POD_GUEST_STATUS_DIR,
	   tmp, tmp, tmp);
	ck_assert_int_eq(status_mirror(pod_fd, pm), 0);
	sh("rm %s/pod/" POD_GUEST_STATUS_DIR " && rmdir %s/pod/" POD_GUEST_RKT_DIR
	   " && ln -s %s %s/pod/" POD_GUEST_RKT_DIR,
	   tmp, tmp, tmp, tmp);
	ck_assert_int_eq(status_mirror(pod_fd, pm), 0);
	assert_status_names("");
	assert_host_untouched();
}
END_TEST

START_TEST(test_rkt_status_linked)
{
	/* rkt/status itself a link (only a compromised VMM reaches it): ELOOP, nothing written. */
	sh("printf 0 >%s/pod/" POD_GUEST_STATUS_DIR "/okay", tmp);
	sh("rmdir %s/pod/" POD_STATUS_DIR " && ln -s %s/host %s/pod/" POD_STATUS_DIR, tmp, tmp,
	   tmp);
	ASSERT_ERRNO(status_mirror(pod_fd, pm), ELOOP);
	assert_host_untouched();
}
END_TEST

START_TEST(test_planted_tmp_directory)
{
	/* A directory at the old temporary name: the code is still written (no temporary name),
	 * and an existing code is only kept when it is the app's own name. */
	sh("mkdir %s/pod/" POD_STATUS_DIR "/.okay.cc-tmp %s/pod/" POD_STATUS_DIR "/.junk.cc-tmp",
	   tmp, tmp);
	sh("printf 0 >%s/pod/" POD_GUEST_STATUS_DIR "/okay", tmp);
	ck_assert_int_eq(status_mirror(pod_fd, pm), 1);
	ck_assert_str_eq(cctest_read_at(tmp, "pod/" POD_STATUS_DIR "/okay"), "0");
	ck_assert_int_eq(pod_status_fill(pod_fd, pm, 143), 6);
	ck_assert_str_eq(cctest_read_at(tmp, "pod/" POD_STATUS_DIR "/junk"), "143");
	ck_assert_int_eq(pod_status_fill(pod_fd, pm, 143), 0);
}
END_TEST

START_TEST(test_status_write_names)
{
	_cleanup_close_ int fd = -1;
	char p[PATH_MAX];

	(void) snprintf(p, sizeof(p), "%s/pod/" POD_STATUS_DIR, tmp);
	fd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ASSERT_ERRNO(pod_status_write(fd, "../x", 0), EINVAL);
	ASSERT_ERRNO(pod_status_write(fd, "..", 0), EINVAL);
	ASSERT_ERRNO(pod_status_write(fd, "", 0), EINVAL);
	ASSERT_OK(pod_status_write(fd, "a", 0));
	ASSERT_ERRNO(pod_status_write(fd, "a", 1), EEXIST);
	ck_assert_str_eq(cctest_read_at(tmp, "pod/" POD_STATUS_DIR "/a"), "0");
	assert_status_names("a");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("stage1-status-mirror");
	TCase *tc = tcase_create("hostile-guest");

	/* 10 s per test: an open that blocks on a FIFO fails instead of hanging. */
	tcase_set_timeout(tc, 10);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_only_valid_codes_reach_rkt);
	tcase_add_test(tc, test_guest_status_dir_linked);
	tcase_add_test(tc, test_rkt_status_linked);
	tcase_add_test(tc, test_planted_tmp_directory);
	tcase_add_test(tc, test_status_write_names);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(suite());
}
