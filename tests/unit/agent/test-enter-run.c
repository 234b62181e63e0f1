/* SPDX-License-Identifier: Apache-2.0 */
/*
 * How cc-agent runs an entered command (enter-run.h): the enter file's sandbox properties,
 * the systemd-run command line built from them, the command resolved inside the app's root
 * only, and the exit code taken from systemd's view of the unit.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cctest.h"
#include "enter-config.h"
#include "enter-run.h"

/* What the pod layer writes (tests/data/stage1/golden/rich/etc/cc/enter/web, shortened). */
static const char enter_web[] =
	"app=web\nroot=/opt/stage2/web/rootfs\nuid=1000\ngid=50\ngroups=2000,3000\n"
	"cwd=/srv/my app\nenv=/etc/cc/env/web\n"
	"property=RootDirectory=/opt/stage2/web/rootfs\n"
	"property=MountAPIVFS=yes\n"
	"property=WorkingDirectory=/srv/my app\n"
	"property=User=1000\n"
	"property=Group=50\n"
	"property=SupplementaryGroups=2000 3000\n"
	"property=EnvironmentFile=/etc/cc/env/web\n"
	"property=NoNewPrivileges=yes\n"
	"property=CapabilityBoundingSet=CAP_CHOWN CAP_NET_BIND_SERVICE\n"
	"property=SystemCallFilter=~reboot kexec_load\n"
	"property=SystemCallErrorNumber=EOPNOTSUPP\n";

START_TEST(test_enter_properties_parse)
{
	struct enter_config c;

	ASSERT_OK(enter_config_parse(enter_web, "web", &c));
	ck_assert_uint_eq(c.n_properties, 11);
	ck_assert_str_eq(c.properties[0], "RootDirectory=/opt/stage2/web/rootfs");
	ck_assert_str_eq(c.properties[2], "WorkingDirectory=/srv/my app");
	ck_assert_str_eq(c.properties[8], "CapabilityBoundingSet=CAP_CHOWN CAP_NET_BIND_SERVICE");
	ck_assert_str_eq(c.properties[10], "SystemCallErrorNumber=EOPNOTSUPP");
	ck_assert_ptr_null(c.properties[11]);
	enter_config_done(&c);

	/* An empty value is a value: CapabilityBoundingSet= is the empty set. */
	ASSERT_OK(enter_config_parse("uid=0\ngid=0\nproperty=CapabilityBoundingSet=\n", "a", &c));
	ck_assert_uint_eq(c.n_properties, 1);
	ck_assert_str_eq(c.properties[0], "CapabilityBoundingSet=");
	enter_config_done(&c);
}
END_TEST

START_TEST(test_enter_properties_reject)
{
	static const char *const bad[] = {
		"uid=0\ngid=0\nproperty=\n",
		"uid=0\ngid=0\nproperty==x\n",
		"uid=0\ngid=0\nproperty=User\n",
		"uid=0\ngid=0\nproperty=User 1=0\n",
		"uid=0\ngid=0\nproperty=-p=x\n",
		"uid=0\ngid=0\nproperty=User=0\tx\n",
		"uid=0\ngid=0\nproperty=User=0\x1b[2J\n",
	};
	struct enter_config c = {};
	_cleanup_free_ char *many = malloc(64 * (ENTER_PROPERTIES_MAX + 2));
	size_t n;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(enter_config_parse(bad[i], "a", &c) == -EBADMSG, "accepted: %s",
			      bad[i]);
	ck_assert_ptr_nonnull(many);
	n = (size_t) sprintf(many, "uid=0\ngid=0\n");
	for (int i = 0; i <= ENTER_PROPERTIES_MAX; i++)
		n += (size_t) sprintf(many + n, "property=User=%d\n", i);
	ASSERT_ERRNO(enter_config_parse(many, "a", &c), E2BIG);
}
END_TEST

static size_t argv_len(char **v)
{
	size_t n = 0;

	while (v[n])
		n++;
	return n;
}

/* Pipes: passed as files, then every property in order after -p, then the command. */
START_TEST(test_enter_run_argv_pipes)
{
	char *cmd[] = {(char *) "sh", (char *) "-c", (char *) "echo $HOME $$ ${X}", NULL};
	struct enter_run e = {
		.app = "web",
		.unit = "cc-enter-0123456789abcdef.service",
		.term = "xterm",
		.stdio = {"/proc/9/fd/5", "/proc/9/fd/6", "/proc/9/fd/7"},
		.path = "/bin/sh",
		.argv = cmd,
	};
	static const char *const want[] = {
		ENTER_SYSTEMD_RUN,
		"--quiet",
		"--unit=cc-enter-0123456789abcdef.service",
		"--description=rkt enter web",
		"--service-type=exec",
		"-p",
		"RemainAfterExit=yes",
		"-p",
		"StandardInput=file:/proc/9/fd/5",
		"-p",
		"StandardOutput=file:/proc/9/fd/6",
		"-p",
		"StandardError=file:/proc/9/fd/7",
		"-p",
		"RootDirectory=/opt/stage2/web/rootfs",
		"-p",
		"MountAPIVFS=yes",
		"-p",
		"WorkingDirectory=/srv/my app",
		"-p",
		"User=1000",
		"-p",
		"Group=50",
		"-p",
		"SupplementaryGroups=2000 3000",
		"-p",
		"EnvironmentFile=/etc/cc/env/web",
		"-p",
		"NoNewPrivileges=yes",
		"-p",
		"CapabilityBoundingSet=CAP_CHOWN CAP_NET_BIND_SERVICE",
		"-p",
		"SystemCallFilter=~reboot kexec_load",
		"-p",
		"SystemCallErrorNumber=EOPNOTSUPP",
		"--",
		"/bin/sh",
		"-c",
		/* systemd substitutes $NAME in arguments: doubled, they reach the command as given
		 */
		"echo $$HOME $$$$ $${X}",
	};
	struct enter_config c;
	char **v = NULL;

	ASSERT_OK(enter_config_parse(enter_web, "web", &c));
	ASSERT_OK(enter_run_argv(&c, &e, &v));
	ck_assert_uint_eq(argv_len(v), sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		ck_assert_str_eq(v[i], want[i]);
	enter_argv_free(v);
	/* Without a tty, the three stdio paths are needed. */
	v = NULL;
	e.stdio[2] = NULL;
	ASSERT_ERRNO(enter_run_argv(&c, &e, &v), EINVAL);
	ck_assert_ptr_null(v);
	enter_config_done(&c);
}
END_TEST

/* A pty: the service's terminal is the pty (TTYPath=), TERM set; no stdio files. */
START_TEST(test_enter_run_argv_tty)
{
	char *cmd[] = {(char *) "bash", NULL};
	struct enter_run e = {
		.app = "web",
		.unit = "cc-enter-1.service",
		.tty = "/dev/pts/3",
		.term = "xterm-256color",
		.path = "/usr/bin/bash",
		.argv = cmd,
	};
	struct enter_config c;
	char **v = NULL;
	size_t n;

	ASSERT_OK(enter_config_parse(enter_web, "web", &c));
	ASSERT_OK(enter_run_argv(&c, &e, &v));
	n = argv_len(v);
	ck_assert_str_eq(v[4], "--service-type=exec");
	ck_assert_str_eq(v[6], "RemainAfterExit=yes");
	ck_assert_str_eq(v[7], "--setenv=TERM=xterm-256color");
	ck_assert_str_eq(v[8], "-p");
	ck_assert_str_eq(v[9], "TTYPath=/dev/pts/3");
	ck_assert_str_eq(v[11], "StandardInput=tty-force");
	ck_assert_str_eq(v[13], "StandardOutput=tty");
	ck_assert_str_eq(v[15], "StandardError=tty");
	ck_assert_str_eq(v[17], "RootDirectory=/opt/stage2/web/rootfs");
	ck_assert_str_eq(v[n - 2], "--");
	ck_assert_str_eq(v[n - 1], "/usr/bin/bash");
	for (size_t i = 0; i < n; i++)
		ck_assert(!strstr(v[i], "=file:"));
	enter_argv_free(v);
	enter_config_done(&c);
}
END_TEST

/* The attacker's case: an enter file without the sandbox is never run unconfined. */
START_TEST(test_enter_run_argv_needs_a_sandbox)
{
	char *cmd[] = {(char *) "sh", NULL};
	struct enter_run e = {.app = "a",
			      .unit = "u.service",
			      .stdio = {"/dev/null", "/dev/null", "/dev/null"},
			      .path = "/bin/sh",
			      .argv = cmd};
	struct enter_config c;
	char **v = NULL;

	ASSERT_OK(enter_config_parse("uid=0\ngid=0\n", "a", &c));
	ASSERT_ERRNO(enter_run_argv(&c, &e, &v), EINVAL);
	ck_assert_ptr_null(v);
	enter_config_done(&c);
}
END_TEST

static char *root;
static int rootfd = -1;

static void root_setup(void)
{
	root = cctest_mkdtemp();
	cctest_mkdir_at(root, "rootfs");
	cctest_mkdir_at(root, "rootfs/bin");
	cctest_mkdir_at(root, "rootfs/usr");
	cctest_mkdir_at(root, "rootfs/usr/bin");
	cctest_mkdir_at(root, "rootfs/work");
	cctest_write_at(root, "rootfs/bin/sh", "#!\n");
	cctest_write_at(root, "rootfs/usr/bin/tool", "#!\n");
	cctest_write_at(root, "rootfs/usr/bin/data", "not executable\n");
	cctest_write_at(root, "rootfs/work/run.sh", "#!\n");
	cctest_write_at(root, "outside", "#!\n");
	char p[1024];
	const char *x[] = {"rootfs/bin/sh", "rootfs/usr/bin/tool", "rootfs/work/run.sh", "outside"};
	for (size_t i = 0; i < sizeof(x) / sizeof(x[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", root, x[i]);
		ck_assert_int_eq(chmod(p, 0755), 0);
	}
	/* Symlinks that point out of the root: resolved inside it, they find nothing. */
	snprintf(p, sizeof(p), "%s/outside", root);
	char l[1024];
	snprintf(l, sizeof(l), "%s/rootfs/usr/bin/escape", root);
	ck_assert_int_eq(symlink(p, l), 0);
	snprintf(l, sizeof(l), "%s/rootfs/usr/bin/up", root);
	ck_assert_int_eq(symlink("../../../outside", l), 0);
	/* An absolute symlink inside the app's view: /usr/bin/sh2 -> /bin/sh in the root. */
	snprintf(l, sizeof(l), "%s/rootfs/usr/bin/sh2", root);
	ck_assert_int_eq(symlink("/bin/sh", l), 0);
	snprintf(p, sizeof(p), "%s/rootfs", root);
	rootfd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(rootfd, 0);
}

static void root_teardown(void)
{
	close(rootfd);
	cctest_rm_rf(root);
	free(root);
}

static void resolves(const char *argv0, const char *path_env, const char *cwd, const char *want)
{
	_cleanup_free_ char *got = NULL;

	ASSERT_OK(enter_command_resolve(rootfd, argv0, path_env, cwd, &got));
	ck_assert_str_eq(got, want);
}

START_TEST(test_enter_command_resolve)
{
	_cleanup_free_ char *got = NULL;

	resolves("sh", NULL, "/", "/bin/sh");
	resolves("tool", NULL, "/", "/usr/bin/tool");
	resolves("tool", "/nope:relative:/usr/bin/", "/", "/usr/bin/tool");
	resolves("/bin/sh", NULL, "/work", "/bin/sh");
	resolves("./run.sh", NULL, "/work", "/work/run.sh");
	resolves("work/run.sh", NULL, "/", "/work/run.sh");
	resolves("sh2", "/usr/bin", "/", "/usr/bin/sh2");
	/* Only PATH is searched. */
	ASSERT_ERRNO(enter_command_resolve(rootfd, "sh", "/usr/bin", "/", &got), ENOENT);
	ASSERT_ERRNO(enter_command_resolve(rootfd, "missing", NULL, "/", &got), ENOENT);
	ASSERT_ERRNO(enter_command_resolve(rootfd, "", NULL, "/", &got), ENOENT);
	/* Found but not an executable file: 126, unless a later PATH entry has one. */
	ASSERT_ERRNO(enter_command_resolve(rootfd, "data", NULL, "/", &got), EACCES);
	ASSERT_ERRNO(enter_command_resolve(rootfd, "/usr/bin", NULL, "/", &got), EACCES);
	/* The attacker's case: nothing outside the app's root is found through a symlink. */
	ASSERT_ERRNO(enter_command_resolve(rootfd, "escape", NULL, "/", &got), ENOENT);
	ASSERT_ERRNO(enter_command_resolve(rootfd, "up", NULL, "/", &got), ENOENT);
	ASSERT_ERRNO(enter_command_resolve(rootfd, "../outside", NULL, "/", &got), ENOENT);
	ASSERT_ERRNO(enter_command_resolve(rootfd, "/../outside", NULL, "/", &got), ENOENT);
	ck_assert_ptr_null(got);
}
END_TEST

START_TEST(test_enter_result_parse)
{
	int code = -1;

	ASSERT_OK(enter_result_parse("ExecMainCode=1\nExecMainStatus=3\n", &code));
	ck_assert_int_eq(code, 3);
	/* Killed by SIGKILL, where systemd-run says 255: 137, as a shell would. */
	ASSERT_OK(enter_result_parse("ExecMainStatus=9\nExecMainCode=2\n", &code));
	ck_assert_int_eq(code, 137);
	ASSERT_OK(enter_result_parse("ExecMainCode=3\nExecMainStatus=11", &code));
	ck_assert_int_eq(code, 139);
	/* No main process ran (systemd-run's own failure): keep its code. */
	ASSERT_ERRNO(enter_result_parse("ExecMainCode=0\nExecMainStatus=0\n", &code), EBADMSG);
	ASSERT_ERRNO(enter_result_parse("ExecMainCode=1\n", &code), EBADMSG);
	ASSERT_ERRNO(enter_result_parse("ExecMainCode=2\nExecMainStatus=200\n", &code), EBADMSG);
	ASSERT_ERRNO(enter_result_parse("ExecMainCode=1\nExecMainStatus=3x\n", &code), EBADMSG);
	ASSERT_ERRNO(enter_result_parse("", &code), EBADMSG);
	ck_assert_int_eq(code, 139);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("agent-enter-run");
	TCase *tc = tcase_create("enter-run");

	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, test_enter_properties_parse);
	tcase_add_test(tc, test_enter_properties_reject);
	tcase_add_test(tc, test_enter_run_argv_pipes);
	tcase_add_test(tc, test_enter_run_argv_tty);
	tcase_add_test(tc, test_enter_run_argv_needs_a_sandbox);
	suite_add_tcase(s, tc);
	tc = tcase_create("resolve");
	tcase_add_checked_fixture(tc, root_setup, root_teardown);
	tcase_add_test(tc, test_enter_command_resolve);
	tcase_add_test(tc, test_enter_result_parse);
	suite_add_tcase(s, tc);
	return cctest_run_suite(s);
}
