/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A lazy stand-in whose real library is missing (guest-image/lazylib/): the process starts
 * (nothing is loaded yet), and the first call ends it with one line on stderr and SIGABRT.
 */
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lazy-openssl.h"
#include "lazy-test.h"

START_TEST(test_lazylib_missing_real_library_aborts)
{
	char out[512] = {0};
	size_t len = 0;
	int pipefd[2], status;
	pid_t pid;

	ck_assert_int_eq(pipe(pipefd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(pipefd[1], STDERR_FILENO);
		close(pipefd[0]);
		OpenSSL_version_num();
		_exit(0);
	}
	close(pipefd[1]);
	for (ssize_t n;
	     len < sizeof(out) - 1 && (n = read(pipefd[0], out + len, sizeof(out) - 1 - len)) > 0;)
		len += (size_t) n;
	close(pipefd[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT, "status %#x", status);
	ck_assert_msg(strncmp(out, "cc-lazylib: " CC_LAZY_REAL ": ",
			      strlen("cc-lazylib: " CC_LAZY_REAL ": ")) == 0,
		      "stderr: %s", out);
	ck_assert_ptr_nonnull(strstr(out, "No such file or directory\n"));
	ck_assert_ptr_eq(strchr(out, '\n'), out + len - 1);
}
END_TEST

static Suite *lazylib_broken_suite(void)
{
	Suite *s = suite_create("lazylib-broken");
	TCase *tc = tcase_create("broken");

	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_lazylib_missing_real_library_aborts);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(lazylib_broken_suite());
}
