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

START_TEST(test_code_from_env)
{
	static const struct {
		const char *code, *status, *result;
		int want;
	} ok[] = {
		{"exited", "0", NULL, 0},
		{"exited", "7", "exit-code", 7},
		{"exited", "255", NULL, 255},
		{"exited", "203", "exit-code", 203},
		{"killed", "TERM", "signal", 128 + SIGTERM},
		{"killed", "SIGKILL", "signal", 137},
		{"killed", "9", "signal", 137},
		{"dumped", "SEGV", "core-dump", 128 + SIGSEGV},
		{"dumped", "ABRT", "core-dump", 134},
		{"killed", "HUP", NULL, 129},
		{NULL, NULL, "success", 0},
		{"", NULL, "exit-code", 1},
		{NULL, NULL, "start-limit-hit", 1},
	};
	static const struct {
		const char *code, *status, *result;
	} bad[] = {
		{"exited", "256", NULL},  {"exited", "-1", NULL}, {"exited", "", NULL},
		{"exited", NULL, NULL},	  {"exited", " 1", NULL}, {"exited", "1x", NULL},
		{"killed", "NOPE", NULL}, {"killed", "0", NULL},  {"killed", NULL, NULL},
		{"stopped", "1", NULL},	  {NULL, NULL, NULL},	  {"killed", "RTMIN+99", NULL},
	};
	int code;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		code = -1;
		ASSERT_OK(app_exit_code_from_env(ok[i].code, ok[i].status, ok[i].result, &code));
		ck_assert_msg(code == ok[i].want, "case %zu: %d, want %d", i, code, ok[i].want);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(app_exit_code_from_env(bad[i].code, bad[i].status, bad[i].result,
						     &code) == -EINVAL,
			      "bad case %zu accepted", i);
	ck_assert_int_eq(app_exit_signal_from_name("RTMIN+2"), SIGRTMIN + 2);
	ck_assert_int_eq(app_exit_signal_from_name("RTMAX-1"), SIGRTMAX - 1);
	ck_assert_int_eq(app_exit_signal_from_name("WINCH"), SIGWINCH);
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
	tcase_add_test(tc, test_code_from_env);
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
