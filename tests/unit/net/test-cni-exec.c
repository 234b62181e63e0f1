/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Running CNI plugins (cni-exec.c, spawn.c) against fake plugins (shell scripts written to a
 * temporary dir): the environment and stdin they get, results, error objects, crashes,
 * timeouts, oversized output, fds that must not leak (a stand-in for RKT_LOCK_FD), plugin
 * lookup in CNI_PATH.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cctest.h"
#include "cni-exec.h"
#include "cni-result.h"

static char *dir;

static void plugin_write(const char *name, const char *body)
{
	char p[PATH_MAX];
	FILE *f;

	(void) snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "we");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(fprintf(f, "#!/bin/sh\n%s\n", body), 0);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(chmod(p, 0755), 0);
}

static int call(const char *name, const char *args, int timeout_ms, char **out, struct cc_error *e)
{
	char p[PATH_MAX];
	const char *conf = "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"type\":\"t\"}";
	struct cni_call c = {
		.command = "ADD",
		.plugin = p,
		.container_id = "c0ffee",
		.netns = "/run/netns/x",
		.ifname = "eth3",
		.args = args,
		.path = dir,
		.conf = conf,
		.conf_len = strlen(conf),
		.timeout_ms = timeout_ms,
	};
	size_t len;

	(void) snprintf(p, sizeof(p), "%s/%s", dir, name);
	memset(e, 0, sizeof(*e));
	return cni_call_run(&c, out, &len, e);
}

static void setup(void)
{
	dir = cctest_mkdtemp();
}

static void teardown(void)
{
	(void) cctest_rm_rf(dir);
	free(dir);
}

START_TEST(test_env_and_stdin)
{
	_cleanup_free_ char *out = NULL;
	struct cc_error e;

	/* Echo back what the protocol says the plugin gets; CNI_FOO from our env must not pass. */
	plugin_write("echo", "in=$(cat)\n"
			     "printf '{\"cmd\":\"%s\",\"id\":\"%s\",\"ns\":\"%s\",\"if\":\"%s\","
			     "\"args\":\"%s\",\"path\":\"%s\",\"foo\":\"%s\",\"lock\":\"%s\","
			     "\"in\":%s}' \"$CNI_COMMAND\" \"$CNI_CONTAINERID\" \"$CNI_NETNS\" "
			     "\"$CNI_IFNAME\" \"$CNI_ARGS\" \"$CNI_PATH\" \"$CNI_FOO\" "
			     "\"$RKT_LOCK_FD\" \"$in\"");
	ck_assert_int_eq(setenv("CNI_FOO", "leak", 1), 0);
	ck_assert_int_eq(setenv("RKT_LOCK_FD", "7", 1), 0);
	ASSERT_OK(call("echo", "IP=1.2.3.4;A=b", 5000, &out, &e));
	ck_assert_ptr_nonnull(strstr(out, "\"cmd\":\"ADD\""));
	ck_assert_ptr_nonnull(strstr(out, "\"id\":\"c0ffee\""));
	ck_assert_ptr_nonnull(strstr(out, "\"ns\":\"/run/netns/x\""));
	ck_assert_ptr_nonnull(strstr(out, "\"if\":\"eth3\""));
	ck_assert_ptr_nonnull(strstr(out, "\"args\":\"IP=1.2.3.4;A=b\""));
	ck_assert_ptr_nonnull(strstr(out, "\"foo\":\"\""));
	ck_assert_ptr_nonnull(strstr(out, "\"lock\":\"\""));
	ck_assert_ptr_nonnull(strstr(out, "\"in\":{\"cniVersion\":\"1.0.0\""));
	ck_assert_ptr_nonnull(strstr(out, dir));
}
END_TEST

START_TEST(test_no_fd_leak)
{
	_cleanup_free_ char *out = NULL;
	_cleanup_close_ int lock = -1;
	struct cc_error e;

	/* Like RKT_LOCK_FD: inheritable (no FD_CLOEXEC) in the caller, at fd 47. */
	lock = open("/", O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(lock, 3);
	ck_assert_int_eq(dup2(lock, 47), 47);
	lock = safe_close(lock);
	lock = 47;
	ck_assert_int_eq(fcntl(lock, F_GETFD) & FD_CLOEXEC, 0);
	plugin_write("fds",
		     "n=${CNI_ARGS#LOCKFD=}\n"
		     "if [ -e /proc/$$/fd/$n ]; then echo '{\"code\":9,\"msg\":\"leaked\"}'; "
		     "exit 1; fi\n"
		     "echo '{}'");
	ASSERT_OK(call("fds", "LOCKFD=47", 5000, &out, &e));
	ck_assert_str_eq(out, "{}\n");
	/* The control: the same check sees an fd that is open in the plugin (its stdin). */
	free(out);
	out = NULL;
	ASSERT_ERRNO(call("fds", "LOCKFD=0", 5000, &out, &e), EPROTO);
	ck_assert_ptr_nonnull(strstr(e.msg, "leaked"));
}
END_TEST

START_TEST(test_error_object)
{
	_cleanup_free_ char *out = NULL;
	struct cc_error e;

	plugin_write("err", "cat >/dev/null; echo '{\"cniVersion\":\"1.0.0\",\"code\":11,"
			    "\"msg\":\"no IP addresses available\",\"details\":\"range full\"}'; "
			    "exit 1");
	ASSERT_ERRNO(call("err", "", 5000, &out, &e), EPROTO);
	ck_assert_ptr_null(out);
	ck_assert_str_eq(e.msg, "CNI plugin err ADD failed (exit 1): no IP addresses available; "
				"range full (code 11)");

	plugin_write("garbage", "echo 'panic: runtime error'; exit 2");
	ASSERT_ERRNO(call("garbage", "", 5000, &out, &e), EPROTO);
	ck_assert_str_eq(e.msg, "CNI plugin garbage ADD failed (exit 2): unexpected output "
				"\"panic: runtime error\"");

	plugin_write("crash", "kill -SEGV $$");
	ASSERT_ERRNO(call("crash", "", 5000, &out, &e), EPROTO);
	ck_assert_ptr_nonnull(strstr(e.msg, "killed by signal 11"));
}
END_TEST

START_TEST(test_timeout)
{
	_cleanup_free_ char *out = NULL;
	struct cc_error e;
	struct timespec a, b;
	long ms;

	/* The grandchild (sleep) keeps stdout open: the timeout ends it, and its group. */
	plugin_write("slow", "sleep 20");
	(void) clock_gettime(CLOCK_MONOTONIC, &a);
	ASSERT_ERRNO(call("slow", "", 300, &out, &e), ETIMEDOUT);
	(void) clock_gettime(CLOCK_MONOTONIC, &b);
	ms = (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
	ck_assert_int_lt(ms, 5000);
	ck_assert_ptr_nonnull(strstr(e.msg, "no answer after 300 ms"));

	/* A plugin that exits while a daemon it started holds stdout: not a hang. */
	plugin_write("daemon", "(sleep 3 &) ; echo '{}'");
	(void) clock_gettime(CLOCK_MONOTONIC, &a);
	ASSERT_OK(call("daemon", "", 5000, &out, &e));
	(void) clock_gettime(CLOCK_MONOTONIC, &b);
	ms = (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
	ck_assert_int_lt(ms, 4000);
	ck_assert_str_eq(out, "{}\n");
}
END_TEST

START_TEST(test_big_output_and_stdin_ignored)
{
	_cleanup_free_ char *out = NULL;
	struct cc_error e;

	plugin_write("flood", "yes '{}'");
	ASSERT_ERRNO(call("flood", "", 10000, &out, &e), EFBIG);
	/* Exits without reading stdin: no SIGPIPE for us. */
	plugin_write("nostdin", "exec 0<&-; echo '{}'");
	ASSERT_OK(call("nostdin", "", 5000, &out, &e));
}
END_TEST

START_TEST(test_not_executable_and_find)
{
	_cleanup_free_ char *out = NULL, *found = NULL, *path = NULL;
	const char *dirs[] = {"/nonexistent", dir, NULL};
	struct cc_error e;
	char p[PATH_MAX];

	ASSERT_ERRNO(call("missing", "", 5000, &out, &e), ENOEXEC);
	ck_assert_ptr_nonnull(strstr(e.msg, "cannot execute"));

	plugin_write("ptp", "echo '{}'");
	ASSERT_OK(cni_plugin_find("ptp", dirs, &found));
	(void) snprintf(p, sizeof(p), "%s/ptp", dir);
	ck_assert_str_eq(found, p);
	ASSERT_ERRNO(cni_plugin_find("nope", dirs, &found), ENOENT);
	ASSERT_ERRNO(cni_plugin_find("../ptp", dirs, &found), EINVAL);
	ASSERT_ERRNO(cni_plugin_find("..", dirs, &found), EINVAL);
	(void) snprintf(p, sizeof(p), "%s/plain", dir);
	ck_assert_int_eq(close(open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644)), 0);
	ASSERT_ERRNO(cni_plugin_find("plain", dirs, &found), ENOENT);
	path = cni_path_join(dirs);
	ck_assert_ptr_nonnull(path);
	(void) snprintf(p, sizeof(p), "/nonexistent:%s", dir);
	ck_assert_str_eq(path, p);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cni-exec");
	TCase *tc = tcase_create("exec");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_env_and_stdin);
	tcase_add_test(tc, test_no_fd_leak);
	tcase_add_test(tc, test_error_object);
	tcase_add_test(tc, test_timeout);
	tcase_add_test(tc, test_big_output_and_stdin_ignored);
	tcase_add_test(tc, test_not_executable_and_find);
	suite_add_tcase(s, tc);
	return cctest_run_suite(s);
}
