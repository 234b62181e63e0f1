/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The init stage's root assembly, run for real in a private mount namespace of each
 * (forked) test process: tmpfs, read-only bind of the base, overlayfs, pivot_root.
 * Needs root and overlayfs; exits 77 otherwise. Do not run with CK_FORK=no.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "cctest.h"
#include "root.h"

static char *test_dir;

/* A base tree (with the directories root_switch needs) and a scratch directory. */
static void make_layout(const char *name, char **ret_base, char **ret_scratch)
{
	char *top, *base, *scratch, *p;

	ck_assert_int_ge(asprintf(&top, "%s/%s", test_dir, name), 0);
	ck_assert_int_eq(mkdir(top, 0755), 0);
	ck_assert_int_ge(asprintf(&base, "%s/base", top), 0);
	ck_assert_int_ge(asprintf(&scratch, "%s/scratch", top), 0);
	ck_assert_int_eq(mkdir(base, 0755), 0);
	ck_assert_int_eq(mkdir(scratch, 0755), 0);
	for (const char *const *d = (const char *const[]){"proc", "sys", "dev", NULL}; *d; d++) {
		ck_assert_int_ge(asprintf(&p, "%s/%s", base, *d), 0);
		ck_assert_int_eq(mkdir(p, 0755), 0);
		free(p);
	}
	ck_assert_int_ge(asprintf(&p, "%s/hello", base), 0);
	ASSERT_OK(write_string_file_atomic(p, "base\n", 0644));
	free(p);
	free(top);

	/* Everything below happens in this test process's own mount namespace. */
	ck_assert_int_eq(unshare(CLONE_NEWNS), 0);
	ck_assert_int_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
	*ret_base = base;
	*ret_scratch = scratch;
}

static void assert_file(const char *dir, const char *name, const char *contents)
{
	_cleanup_free_ char *p = NULL, *buf = NULL;

	ck_assert_int_ge(asprintf(&p, "%s/%s", dir, name), 0);
	ASSERT_OK(read_full_file(p, 4096, &buf, NULL));
	ck_assert_str_eq(buf, contents);
}

START_TEST(test_root_assemble_layers_base_and_tmpfs)
{
	_cleanup_free_ char *base = NULL, *scratch = NULL, *root = NULL, *p = NULL;
	struct root_layout l;
	struct stat st;

	make_layout("layers", &base, &scratch);
	l = (struct root_layout){.scratch = scratch, .base = base, .pod_tag = NULL};
	ASSERT_OK(root_assemble(&l, &root));

	assert_file(root, "hello", "base\n");
	/* Writes land in the tmpfs upper layer, never in the base. */
	ck_assert_int_ge(asprintf(&p, "%s/hello", root), 0);
	ASSERT_OK(write_string_file_atomic(p, "changed\n", 0644));
	assert_file(root, "hello", "changed\n");
	assert_file(base, "hello", "base\n");
	assert_file(scratch, "upper/hello", "changed\n");
	free(TAKE_PTR(p));

	/* The base as seen by the overlay is a read-only bind. */
	ck_assert_int_ge(asprintf(&p, "%s/base/new", scratch), 0);
	ck_assert_int_eq(open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644), -1);
	ck_assert_int_eq(errno, EROFS);
	free(TAKE_PTR(p));
	ck_assert_int_ge(asprintf(&p, "%s/new", base), 0);
	ck_assert_int_eq(stat(p, &st), -1);
}
END_TEST

START_TEST(test_root_assemble_fails_without_pod_transport)
{
	_cleanup_free_ char *base = NULL, *scratch = NULL, *root = NULL;
	struct root_layout l;
	int r;

	make_layout("nopod", &base, &scratch);
	/* No virtio-9p device has this tag here: the mount must fail and so must assembly. */
	l = (struct root_layout){.scratch = scratch, .base = base, .pod_tag = "cc-no-such-tag"};
	r = root_assemble(&l, &root);
	ck_assert_int_lt(r, 0);
	ck_assert_ptr_null(root);
}
END_TEST

/*
 * After pivot_root, Check cannot report from this process any more (its files are in the
 * old root), so the switch runs in a child that reports through its exit status.
 */
static int switch_child(const char *base, const char *root)
{
	_cleanup_free_ char *buf = NULL, *cwd = NULL;
	struct stat st;

	if (root_switch(root) < 0)
		return 10;
	if (read_full_file("/hello", 4096, &buf, NULL) < 0 || strcmp(buf, "base\n") != 0)
		return 11;
	if (stat("/proc/self/mountinfo", &st) < 0 || stat("/dev/null", &st) < 0)
		return 12;
	cwd = getcwd(NULL, 0);
	if (!cwd || strcmp(cwd, "/") != 0)
		return 13;
	/* The old root is gone from this namespace. */
	if (stat(base, &st) == 0)
		return 14;
	return 0;
}

START_TEST(test_root_switch_enters_new_root)
{
	_cleanup_free_ char *base = NULL, *scratch = NULL, *root = NULL;
	struct root_layout l;
	int status;
	pid_t pid;

	make_layout("switch", &base, &scratch);
	l = (struct root_layout){.scratch = scratch, .base = base, .pod_tag = NULL};
	ASSERT_OK(root_assemble(&l, &root));

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(switch_child(base, root));
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status), "switch child died (status %d)", status);
	ck_assert_msg(WEXITSTATUS(status) == 0, "switch child failed with %d", WEXITSTATUS(status));
}
END_TEST

/* Can this process make a private mount namespace and mount overlayfs? */
static int root_test_probe(void)
{
	_cleanup_free_ char *fs = NULL;
	pid_t pid;
	int status;

	if (geteuid() != 0) {
		fprintf(stderr, "test-guest-root: needs root, skipping\n");
		return 77;
	}
	if (read_full_file("/proc/filesystems", 1 << 20, &fs, NULL) < 0 ||
	    !strstr(fs, "\toverlay\n")) {
		fprintf(stderr, "test-guest-root: no overlayfs in this kernel, skipping\n");
		return 77;
	}
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0)
		_exit(unshare(CLONE_NEWNS) == 0 ? 0 : 1);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "test-guest-root: cannot create a mount namespace, skipping\n");
		return 77;
	}
	return 0;
}

int main(void)
{
	Suite *s = suite_create("guest-root");
	TCase *tc = tcase_create("root");
	int r;

	r = root_test_probe();
	if (r != 0)
		return r;
	/* Not cctest_mkdtemp(): it asserts, which Check only allows inside a test. */
	test_dir = strdup("/tmp/cctest-root-XXXXXX");
	if (!test_dir || !mkdtemp(test_dir)) {
		fprintf(stderr, "test-guest-root: cannot create a temporary directory\n");
		return 1;
	}

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_root_assemble_layers_base_and_tmpfs);
	tcase_add_test(tc, test_root_assemble_fails_without_pod_transport);
	tcase_add_test(tc, test_root_switch_enters_new_root);
	suite_add_tcase(s, tc);
	r = cctest_run_suite(s);
	(void) cctest_rm_rf(test_dir);
	free(test_dir);
	return r;
}
