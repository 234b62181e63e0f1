/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cc/spawn.h, the one spawn-and-capture helper (the stage1's CNI plugins and firewall, cc-stage0,
 * the guest agent): output, stdin, stderr modes, limits, timeouts, PATH lookup, exec failures,
 * and no descriptor of ours in the child.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/spawn.h"
#include "cctest.h"

static int run_sh(const char *script, struct spawn_req *req, int *status, char **out)
{
	static char *argv[4];

	argv[0] = "sh";
	argv[1] = "-c";
	argv[2] = (char *) script;
	argv[3] = NULL;
	req->path = "/bin/sh";
	req->argv = argv;
	if (!req->out_max)
		req->out_max = 4096;
	return spawn_run(req, status, out, NULL);
}

START_TEST(test_captures_stdout_and_feeds_stdin)
{
	struct spawn_req req = {.in = "hello\n", .in_len = 6};
	_cleanup_free_ char *out = NULL;
	int status;

	ASSERT_OK(run_sh("tr a-z A-Z; echo err >&2; exit 3", &req, &status, &out));
	ck_assert_str_eq(out, "HELLO\n");
	ck_assert_int_eq(spawn_exit_code(status), 3);
}
END_TEST

START_TEST(test_stderr_modes)
{
	struct spawn_req req = {.err = SPAWN_STDERR_CAPTURE};
	_cleanup_free_ char *out = NULL, *out2 = NULL;
	int status;

	ASSERT_OK(run_sh("echo to-stdout; echo to-stderr >&2", &req, &status, &out));
	ck_assert_str_eq(out, "to-stderr\n");
	req = (struct spawn_req){.err = SPAWN_STDERR_NULL};
	ASSERT_OK(run_sh("echo to-stdout; echo to-stderr >&2", &req, &status, &out2));
	ck_assert_str_eq(out2, "to-stdout\n");
}
END_TEST

START_TEST(test_limits)
{
	struct spawn_req req = {.out_max = 100};
	_cleanup_free_ char *out = NULL;
	int status;

	/* too much output: killed, -EFBIG */
	ASSERT_ERRNO(run_sh("yes", &req, &status, &out), EFBIG);
	/* without ret_out the output is dropped, whatever its size */
	req = (struct spawn_req){.out_max = 100};
	ASSERT_OK(run_sh("head -c 1000000 /dev/zero; exit 0", &req, &status, NULL));
	ck_assert_int_eq(spawn_exit_code(status), 0);
}
END_TEST

START_TEST(test_timeout_kills_the_group)
{
	_cleanup_free_ char *dir = cctest_mkdtemp(), *out = NULL;
	struct spawn_req req = {.timeout_ms = 300};
	char script[4300];
	int status = -1;
	pid_t grandchild;

	/* A grandchild that would outlive its parent: the timeout kills the whole group. */
	snprintf(script, sizeof(script), "sleep 30 & echo $! >%s/pid; wait", dir);
	ASSERT_ERRNO(run_sh(script, &req, &status, &out), ETIMEDOUT);
	ck_assert_ptr_null(out);
	grandchild = (pid_t) atoi(cctest_read_at(dir, "pid"));
	ck_assert_int_gt(grandchild, 1);
	for (int i = 0; i < 200 && kill(grandchild, 0) == 0; i++)
		(void) usleep(10 * 1000);
	ck_assert_msg(kill(grandchild, 0) < 0 && errno == ESRCH, "grandchild %d survived",
		      (int) grandchild);
	cctest_rm_rf(dir);
}
END_TEST

START_TEST(test_path_lookup_and_exec_failure)
{
	char *argv[] = {"true", NULL};
	struct spawn_req req = {.path = "true", .argv = argv, .search_path = true};
	int status;

	ASSERT_OK(spawn_run(&req, &status, NULL, NULL));
	ck_assert_int_eq(spawn_exit_code(status), 0);
	req.search_path = false; /* "true" is not a path */
	ASSERT_OK(spawn_run(&req, &status, NULL, NULL));
	ck_assert_int_eq(spawn_exit_code(status), 127);
}
END_TEST

START_TEST(test_child_has_none_of_our_fds)
{
	struct spawn_req req = {0};
	_cleanup_free_ char *out = NULL;
	int status, fd = open("/dev/null", O_RDONLY); /* not close-on-exec, on purpose */

	ck_assert_int_ge(fd, 3);
	ASSERT_OK(run_sh("ls /proc/self/fd | sort -n | tr '\\n' ' '", &req, &status, &out));
	/* 0-2, and the one ls itself opens to list the directory */
	ck_assert_str_eq(out, "0 1 2 3 ");
	close(fd);
}
END_TEST

static Suite *spawn_suite(void)
{
	Suite *s = suite_create("spawn");
	TCase *tc = tcase_create("spawn");

	tcase_add_test(tc, test_captures_stdout_and_feeds_stdin);
	tcase_add_test(tc, test_stderr_modes);
	tcase_add_test(tc, test_limits);
	tcase_add_test(tc, test_timeout_kills_the_group);
	tcase_add_test(tc, test_path_lookup_and_exec_failure);
	tcase_add_test(tc, test_child_has_none_of_our_fds);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(spawn_suite());
}
