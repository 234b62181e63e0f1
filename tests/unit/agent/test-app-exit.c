/* SPDX-License-Identifier: Apache-2.0 */
/* cc-app-exit's logic: exit codes from systemd's environment, status files, the pod's end. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app-exit.h"
#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "cctest.h"

static char *dir;
static char status_dir[512], pod_exit[512], apps[512];
static struct app_exit_paths paths;

static void setup(void)
{
	dir = cctest_mkdtemp();
	snprintf(status_dir, sizeof(status_dir), "%s/status", dir);
	snprintf(pod_exit, sizeof(pod_exit), "%s/cc-pod-exit", dir);
	snprintf(apps, sizeof(apps), "%s/apps", dir);
	ck_assert_int_eq(mkdir(status_dir, 0755), 0);
	paths = (struct app_exit_paths){status_dir, pod_exit, apps};
}

static void teardown(void)
{
	cctest_rm_rf(dir);
}

static void write_file(const char *path, const char *s)
{
	FILE *f = fopen(path, "we");

	ck_assert_ptr_nonnull(f);
	fputs(s, f);
	fclose(f);
}

/* The content of a file, or "<absent>". */
static char *slurp(const char *path)
{
	static char buf[64];
	_cleanup_free_ char *s = NULL;

	if (read_full_file(path, sizeof(buf) - 1, &s, NULL) < 0)
		return strcpy(buf, "<absent>");
	return strcpy(buf, s);
}

static char *status_of(const char *app)
{
	char p[600];

	snprintf(p, sizeof(p), "%s/%s", status_dir, app);
	return slurp(p);
}

START_TEST(test_code_from_show)
{
	static const struct {
		const char *text;
		int want;
	} ok[] = {
		{"ExecMainCode=1\nExecMainStatus=0\nResult=success\n", 0},
		{"Result=exit-code\nExecMainCode=1\nExecMainStatus=7\n", 7},
		{"ExecMainCode=1\nExecMainStatus=255\nResult=exit-code", 255},
		{"ExecMainCode=1\nExecMainStatus=203\nResult=exit-code\n", 203},
		{"ExecMainCode=2\nExecMainStatus=15\nResult=signal\n", 128 + SIGTERM},
		{"ExecMainCode=2\nExecMainStatus=9\nResult=signal\n", 137},
		{"ExecMainCode=3\nExecMainStatus=11\nResult=core-dump\n", 128 + SIGSEGV},
		{"ExecMainCode=0\nExecMainStatus=0\nResult=success\n", 0},
		{"ExecMainCode=0\nExecMainStatus=0\nResult=exit-code\n", 1},
		{"ExecMainCode=0\nExecMainStatus=0\nResult=start-limit-hit\n", 1},
		/* A key that merely starts like another is not confused with it. */
		{"ExecMainCodeX=2\nExecMainCode=1\nExecMainStatus=4\nResult=exit-code\n", 4},
	};
	static const char *const bad[] = {
		"",
		"ExecMainCode=1\nExecMainStatus=256\nResult=exit-code\n",
		"ExecMainCode=1\nExecMainStatus=-1\nResult=exit-code\n",
		"ExecMainCode=1\nExecMainStatus=\nResult=exit-code\n",
		"ExecMainCode=1\nExecMainStatus= 1\nResult=exit-code\n",
		"ExecMainCode=1\nExecMainStatus=1x\nResult=exit-code\n",
		"ExecMainCode=2\nExecMainStatus=0\nResult=signal\n",
		"ExecMainCode=4\nExecMainStatus=1\nResult=exit-code\n",
		"ExecMainCode=1\nResult=exit-code\n",
		"ExecMainCode=1\nExecMainStatus=1\n",
		"ExecMainCode=99999999999\nExecMainStatus=1\nResult=exit-code\n",
	};
	int code;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		code = -1;
		ASSERT_OK(app_exit_code_from_show(ok[i].text, &code));
		ck_assert_msg(code == ok[i].want, "case %zu: %d, want %d", i, code, ok[i].want);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(app_exit_code_from_show(bad[i], &code) == -EINVAL,
			      "bad case %zu accepted", i);
}
END_TEST

START_TEST(test_all_zero_ends_with_last)
{
	bool end = true;

	write_file(apps, "a\nb-2\n\nc\n");
	ASSERT_OK(app_exit_record(&paths, "b-2", 0, &end));
	ck_assert(!end);
	ck_assert_str_eq(status_of("b-2"), "0");
	ck_assert_str_eq(slurp(pod_exit), "<absent>");
	ASSERT_OK(app_exit_record(&paths, "a", 0, &end));
	ck_assert(!end);
	ck_assert_str_eq(slurp(pod_exit), "<absent>");
	ASSERT_OK(app_exit_record(&paths, "c", 0, &end));
	ck_assert(end);
	ck_assert_str_eq(slurp(pod_exit), "0");
	/* Only the three status files: no temporary file left behind. */
	{
		_cleanup_closedir_ DIR *d = opendir(status_dir);
		struct dirent *de;
		int n = 0;

		ck_assert_ptr_nonnull(d);
		while ((de = readdir(d)))
			n += de->d_name[0] != '.';
		ck_assert_int_eq(n, 3);
	}
	/* A unit restarted and stopped again: status updated, the pod already ends. */
	ASSERT_OK(app_exit_record(&paths, "c", 0, &end));
	ck_assert(!end);
}
END_TEST

START_TEST(test_failure_ends_at_once_first_wins)
{
	bool end = false;

	write_file(apps, "a\nb\nc\n");
	ASSERT_OK(app_exit_record(&paths, "b", 7, &end));
	ck_assert(end);
	ck_assert_str_eq(status_of("b"), "7");
	ck_assert_str_eq(slurp(pod_exit), "7");
	/* The others, killed while the pod shuts down, get their status; the code stays. */
	ASSERT_OK(app_exit_record(&paths, "a", 143, &end));
	ck_assert(!end);
	ck_assert_str_eq(status_of("a"), "143");
	ASSERT_OK(app_exit_record(&paths, "c", 0, &end));
	ck_assert(!end);
	ck_assert_str_eq(slurp(pod_exit), "7");
}
END_TEST

START_TEST(test_single_app)
{
	bool end = false;

	write_file(apps, "only\n");
	ASSERT_OK(app_exit_record(&paths, "only", 0, &end));
	ck_assert(end);
	ck_assert_str_eq(slurp(pod_exit), "0");
}
END_TEST

START_TEST(test_errors)
{
	bool end = false;

	/* No apps file: a zero code cannot decide, a non-zero one does not need it. */
	ASSERT_ERRNO(app_exit_record(&paths, "a", 0, &end), ENOENT);
	ck_assert_str_eq(status_of("a"), "0");
	write_file(apps, "\n\n");
	ASSERT_ERRNO(app_exit_record(&paths, "a", 0, &end), EBADMSG);
	write_file(apps, "a\n../../etc\n");
	ASSERT_ERRNO(app_exit_record(&paths, "a", 0, &end), EBADMSG);
	ASSERT_ERRNO(app_exit_record(&paths, "../x", 1, &end), EINVAL);
	ASSERT_ERRNO(app_exit_record(&paths, "", 1, &end), EINVAL);
	ASSERT_ERRNO(app_exit_record(&paths, "a", 256, &end), EINVAL);
	ASSERT_ERRNO(app_exit_record(&paths, "a", -1, &end), EINVAL);
	ck_assert_str_eq(slurp(pod_exit), "<absent>");
	ASSERT_OK(app_exit_record(&paths, "z", 3, &end));
	ck_assert(end);
	ck_assert_str_eq(slurp(pod_exit), "3");

	/* A status dir that is not there. */
	snprintf(status_dir, sizeof(status_dir), "%s/nope", dir);
	ASSERT_ERRNO(app_exit_record(&paths, "a", 1, &end), ENOENT);
}
END_TEST

static Suite *app_exit_suite(void)
{
	Suite *s = suite_create("agent-app-exit");
	TCase *tc = tcase_create("app-exit");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, test_code_from_show);
	tcase_add_test(tc, test_all_zero_ends_with_last);
	tcase_add_test(tc, test_failure_ends_at_once_first_wins);
	tcase_add_test(tc, test_single_app);
	tcase_add_test(tc, test_errors);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(app_exit_suite());
}
