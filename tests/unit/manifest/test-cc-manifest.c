/* SPDX-License-Identifier: Apache-2.0 */
/* Runs build/bin/cc-manifest: output format and exit codes. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "cctest.h"

static char *tmpdir;

static void setup(void)
{
	tmpdir = cctest_mkdtemp();
}

static void teardown(void)
{
	cctest_rm_rf(tmpdir);
	free(tmpdir);
}

/* Run cc-manifest with args; stdout goes to *ret_out. Returns the exit status. */
static int run(char **ret_out, const char *a1, const char *a2, const char *a3)
{
	_cleanup_free_ char *bin = NULL, *out_path = NULL;
	_cleanup_close_ int fd = -1;
	int status;
	pid_t pid;

	ck_assert_int_ge(asprintf(&bin, "%s/bin/cc-manifest", cctest_build_dir()), 0);
	ck_assert_int_ge(asprintf(&out_path, "%s/stdout", tmpdir), 0);
	fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (dup2(fd, STDOUT_FILENO) < 0 || null < 0 || dup2(null, STDERR_FILENO) < 0)
			_exit(127);
		execl(bin, bin, a1, a2, a3, (char *) NULL);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_ne(WEXITSTATUS(status), 127);
	ASSERT_OK(read_full_file(out_path, 4u * 1024 * 1024, ret_out, NULL));
	return WEXITSTATUS(status);
}

static char *data_path(const char *rel)
{
	char *p;

	ck_assert_int_ge(asprintf(&p, "%s/tests/data/manifest/%s", cctest_source_dir(), rel), 0);
	return p;
}

START_TEST(test_validate_prints_ok_and_exits_zero)
{
	_cleanup_free_ char *pod = data_path("valid/pod-rkt-ace-validator.json");
	_cleanup_free_ char *img = data_path("valid/image-ace-validator-main.json");
	_cleanup_free_ char *out = NULL, *want = NULL;

	ck_assert_int_eq(run(&out, "validate", pod, img), 0);
	ck_assert_int_ge(asprintf(&want, "%s: ok\n%s: ok\n", pod, img), 0);
	ck_assert_str_eq(out, want);
}
END_TEST

START_TEST(test_validate_prints_path_and_exits_one)
{
	_cleanup_free_ char *good = data_path("valid/pod-demo.json");
	_cleanup_free_ char *bad = data_path("invalid/pod-app-isolator-bad-quantity.json");
	_cleanup_free_ char *out = NULL, *want = NULL;

	ck_assert_int_eq(run(&out, "validate", bad, good), 1);
	ck_assert_int_ge(asprintf(&want,
				  "%s: apps[1].app.isolators[0].value.limit: \"12XB\" is not a "
				  "valid quantity\n%s: ok\n",
				  bad, good),
			 0);
	ck_assert_str_eq(out, want);
}
END_TEST

START_TEST(test_validate_io_and_usage_errors_exit_two)
{
	_cleanup_free_ char *good = data_path("valid/pod-demo.json");
	_cleanup_free_ char *out = NULL;

	ck_assert_int_eq(run(&out, "validate", "/nonexistent/pod.json", good), 2);
	free(out);
	ck_assert_int_eq(run(&out, "validate", tmpdir, NULL), 2);
	free(out);
	ck_assert_int_eq(run(&out, "validate", NULL, NULL), 2);
	free(out);
	ck_assert_int_eq(run(&out, NULL, NULL, NULL), 2);
	free(out);
	ck_assert_int_eq(run(&out, "frobnicate", good, NULL), 2);
	free(out);
	ck_assert_int_eq(run(&out, "show", good, good), 2);
	free(out);
	ck_assert_int_eq(run(&out, "--bogus", NULL, NULL), 2);
	free(out);
	out = NULL;
	ck_assert_int_eq(run(&out, "--help", NULL, NULL), 0);
	ck_assert_ptr_nonnull(strstr(out, "Usage"));
}
END_TEST

START_TEST(test_validate_huge_file_is_invalid)
{
	_cleanup_free_ char *path = NULL, *out = NULL, *big = NULL, *want = NULL;
	size_t n = 2u * 1024 * 1024;

	ck_assert_int_ge(asprintf(&path, "%s/huge.json", tmpdir), 0);
	big = malloc(n + 1);
	ck_assert_ptr_nonnull(big);
	memset(big, ' ', n);
	big[n] = '\0';
	ASSERT_OK(write_string_file_atomic(path, big, 0600));
	ck_assert_int_eq(run(&out, "validate", path, NULL), 1);
	ck_assert_int_ge(asprintf(&want, "%s: $: document is larger than 1048576 bytes\n", path),
			 0);
	ck_assert_str_eq(out, want);
}
END_TEST

START_TEST(test_show_prints_normalized_json)
{
	_cleanup_free_ char *pod = data_path("valid/pod-rkt-smoke.json");
	_cleanup_free_ char *out = NULL, *out2 = NULL, *copy = NULL;

	ck_assert_int_eq(run(&out, "show", pod, NULL), 0);
	/* Defaults are spelled out and the output validates and normalizes to itself. */
	ck_assert_ptr_nonnull(strstr(out, "\"workingDirectory\": \"/\""));
	ck_assert_ptr_nonnull(strstr(out, "\"readOnlyRootFS\": false"));
	ck_assert_int_ge(asprintf(&copy, "%s/copy.json", tmpdir), 0);
	ASSERT_OK(write_string_file_atomic(copy, out, 0600));
	ck_assert_int_eq(run(&out2, "show", copy, NULL), 0);
	ck_assert_str_eq(out, out2);
}
END_TEST

START_TEST(test_show_invalid_exits_one)
{
	_cleanup_free_ char *bad = data_path("invalid/pod-volume-bad-kind.json");
	_cleanup_free_ char *out = NULL;

	ck_assert_int_eq(run(&out, "show", bad, NULL), 1);
	ck_assert_str_eq(out, "");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cc-manifest");
	TCase *tc = tcase_create("cli");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_validate_prints_ok_and_exits_zero);
	tcase_add_test(tc, test_validate_prints_path_and_exits_one);
	tcase_add_test(tc, test_validate_io_and_usage_errors_exit_two);
	tcase_add_test(tc, test_validate_huge_file_is_invalid);
	tcase_add_test(tc, test_show_prints_normalized_json);
	tcase_add_test(tc, test_show_invalid_exits_one);
	suite_add_tcase(s, tc);
	return cctest_run_suite(s);
}
