/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The supervisor's process handling (supervise.h) with shell scripts as the VMM: pid file
 * before exec, lock fd only in the VMM, signal forwarding, exec failures; and gc's leftover
 * VMM killer (vmm-reap.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "cctest.h"
#include "supervise.h"
#include "vmm-reap.h"

static char *tmp;
static int pod_fd = -1;

static void setup(void)
{
	tmp = cctest_mkdtemp();
	pod_fd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(pod_fd, 0);
}

static void teardown(void)
{
	pod_fd = safe_close(pod_fd);
	(void) cctest_rm_rf(tmp);
	free(tmp);
}

/* Run script under /bin/sh as the VMM with $1 = the pod dir; returns the wait status. */
static int run_script(const char *script, int lock_fd)
{
	char *argv[] = {(char *) "/bin/sh", (char *) "-c", (char *) script,
			(char *) "vmm",	    tmp,	   NULL};
	struct supervise_config c = {.argv = argv, .lock_fd = lock_fd, .pod_fd = pod_fd};
	struct cc_error err = {};
	pid_t pid = 0;
	int st = -1;

	ck_assert_msg(supervise_run(&c, &st, &pid, &err) == 0, "%s", err.msg);
	ck_assert_int_gt(pid, 0);
	return st;
}

START_TEST(test_pid_file_before_exec)
{
	_cleanup_free_ char *buf = NULL;
	char p[PATH_MAX];
	int st;

	st = run_script("test \"$(cat \"$1/pid\")\" = \"$$\" || exit 3; exit 5", -1);
	ck_assert(WIFEXITED(st));
	ck_assert_int_eq(WEXITSTATUS(st), 5);
	(void) snprintf(p, sizeof(p), "%s/pid", tmp);
	ASSERT_OK(read_full_file(p, 32, &buf, NULL));
	ck_assert_int_gt(atoi(buf), 1);
	ck_assert(buf[strlen(buf) - 1] == '\n');
}
END_TEST

START_TEST(test_lock_fd_only_in_vmm)
{
	_cleanup_close_ int lock_fd = -1, other = -1;
	char script[256];
	int st;

	lock_fd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	other = open("/dev/null", O_RDONLY); /* an inherited fd without FD_CLOEXEC */
	ck_assert_int_ge(other, 0);
	ASSERT_OK(fds_set_cloexec(lock_fd));
	ck_assert_int_eq(fcntl(other, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	(void) snprintf(script, sizeof(script),
			"test -e /proc/self/fd/%d || exit 3; test -e /proc/self/fd/%d && exit 4; "
			"exit 0",
			lock_fd, other);
	st = run_script(script, lock_fd);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x", st);
	/* In the supervisor the lock fd stays close-on-exec: other children never get it. */
	ck_assert_int_eq(fcntl(lock_fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
}
END_TEST

START_TEST(test_lock_fd_from_env)
{
	_cleanup_close_ int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	char v[16];

	ck_assert_int_eq(unsetenv("RKT_LOCK_FD"), 0);
	ASSERT_ERRNO(lock_fd_from_env(), ENOENT);
	(void) snprintf(v, sizeof(v), "%d", fd);
	ck_assert_int_eq(setenv("RKT_LOCK_FD", v, 1), 0);
	ck_assert_int_eq(lock_fd_from_env(), fd);
	ck_assert_int_eq(setenv("RKT_LOCK_FD", "999", 1), 0);
	ASSERT_ERRNO(lock_fd_from_env(), EBADF);
	ck_assert_int_eq(setenv("RKT_LOCK_FD", "7x", 1), 0);
	ASSERT_ERRNO(lock_fd_from_env(), EBADF);
	ck_assert_int_eq(setenv("RKT_LOCK_FD", "", 1), 0);
	ASSERT_ERRNO(lock_fd_from_env(), EBADF);
}
END_TEST

/* The script sends sig to the supervisor ($PPID) and reports what reached it. */
static int forwarded(const char *sig)
{
	char script[512];

	(void) snprintf(
		script, sizeof(script),
		"trap 'exit 43' TERM; trap 'exit 44' INT; trap 'exit 45' HUP; "
		"kill -%s $PPID; i=0; while [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; "
		"exit 9",
		sig);
	return run_script(script, -1);
}

START_TEST(test_signals_forwarded)
{
	int st;

	st = forwarded("TERM");
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 43, "status %#x", st);
	st = forwarded("INT");
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 44, "status %#x", st);
	/* HUP becomes TERM: cc-vmm stops cleanly on TERM, HUP would kill it. */
	st = forwarded("HUP");
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 43, "status %#x", st);
}
END_TEST

START_TEST(test_vmm_killed)
{
	int st = run_script("kill -KILL $$", -1);

	ck_assert(WIFSIGNALED(st));
	ck_assert_int_eq(WTERMSIG(st), SIGKILL);
}
END_TEST

static int ticks;

static void tick_count(void *userdata)
{
	char p[PATH_MAX];

	ck_assert_ptr_eq(userdata, &ticks);
	/* The third tick lets the VMM go on: run works while it waits. */
	if (++ticks == 3) {
		(void) snprintf(p, sizeof(p), "%s/ticked", tmp);
		ck_assert_int_eq(close(open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)), 0);
	}
}

START_TEST(test_tick_while_vmm_runs)
{
	char *argv[] = {(char *) "/bin/sh",
			(char *) "-c",
			(char *) "i=0; while [ ! -e \"$1/ticked\" ]; do [ $i -lt 100 ] || exit 3; "
				 "sleep 0.05; i=$((i+1)); done; exit 6",
			(char *) "vmm",
			tmp,
			NULL};
	struct supervise_config c = {.argv = argv,
				     .lock_fd = -1,
				     .pod_fd = pod_fd,
				     .tick = tick_count,
				     .tick_ms = 100,
				     .userdata = &ticks};
	struct cc_error err = {};
	int st = -1;

	ticks = 0;
	ck_assert_msg(supervise_run(&c, &st, NULL, &err) == 0, "%s", err.msg);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 6, "status %#x", st);
	ck_assert_int_ge(ticks, 3);
	/* No tick_ms with a tick: refused. */
	c.tick_ms = 0;
	ASSERT_ERRNO(supervise_run(&c, &st, NULL, &err), EINVAL);
}
END_TEST

START_TEST(test_exec_failure)
{
	char *argv[] = {(char *) "/nonexistent/cc-vmm", NULL};
	struct supervise_config c = {.argv = argv, .lock_fd = -1, .pod_fd = pod_fd};
	struct cc_error err = {};
	int st;

	ASSERT_ERRNO(supervise_run(&c, &st, NULL, &err), ENOENT);
	ck_assert_str_eq(err.msg, "cannot execute /nonexistent/cc-vmm: No such file or directory");
	/* The child is reaped. */
	ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
	ck_assert_int_eq(errno, ECHILD);
}
END_TEST

static int child_setup_fails(void *userdata _unused_)
{
	return -EACCES;
}

static int parent_setup_fails(pid_t pid _unused_, void *userdata _unused_)
{
	return -EPERM;
}

/* The jail's hooks: a failure on either side is one error and no child left. */
START_TEST(test_setup_hooks_fail)
{
	char *argv[] = {(char *) "/bin/true", NULL};
	struct supervise_config c = {
		.argv = argv, .lock_fd = -1, .pod_fd = pod_fd, .child_setup = child_setup_fails};
	struct cc_error err = {};
	int st;

	ASSERT_ERRNO(supervise_run(&c, &st, NULL, &err), EACCES);
	ck_assert_str_eq(err.msg, "cannot set up /bin/true: Permission denied");
	ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
	c.child_setup = NULL;
	c.parent_setup = parent_setup_fails;
	ASSERT_ERRNO(supervise_run(&c, &st, NULL, &err), EPERM);
	ck_assert_str_eq(err.msg, "cannot set up /bin/true: Operation not permitted");
	ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
}
END_TEST

/* A process named cc-vmm (a copy of sleep) running in dir. */
static pid_t fake_vmm(const char *dir, const char *exe_name)
{
	char exe[PATH_MAX], cmd[PATH_MAX * 2];
	pid_t pid;

	(void) snprintf(exe, sizeof(exe), "%s/%s", tmp, exe_name);
	(void) snprintf(cmd, sizeof(cmd), "cp /bin/sleep %s", exe);
	ck_assert_int_eq(system(cmd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (chdir(dir) < 0)
			_exit(1);
		execl(exe, exe_name, "100", (char *) NULL);
		_exit(127);
	}
	/* Wait until it runs the copy (exe switched from the test binary). */
	for (int i = 0; i < 500; i++) {
		char link[64], target[PATH_MAX];
		ssize_t n;

		(void) snprintf(link, sizeof(link), "/proc/%d/exe", (int) pid);
		n = readlink(link, target, sizeof(target) - 1);
		if (n > 0 && (target[n] = '\0', strstr(target, exe_name)))
			return pid;
		(void) usleep(10000);
	}
	ck_abort_msg("fake VMM did not start");
	return -1;
}

static void pid_file(pid_t pid)
{
	char p[PATH_MAX], v[32];

	(void) snprintf(p, sizeof(p), "%s/pid", tmp);
	(void) snprintf(v, sizeof(v), "%d\n", (int) pid);
	ASSERT_OK(write_string_file_atomic(p, v, 0644));
}

START_TEST(test_reap_leftover_vmm)
{
	pid_t pid = fake_vmm(tmp, "cc-vmm"), killed = 0;
	int st;

	pid_file(pid);
	ck_assert_int_eq(vmm_process_matches(pid, pod_fd), 1);
	ck_assert_int_eq(vmm_reap_leftover(pod_fd, 5000, &killed), 1);
	ck_assert_int_eq(killed, pid);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	/* Again: nothing left (the PID is gone). */
	ck_assert_int_eq(vmm_reap_leftover(pod_fd, 5000, NULL), 0);
}
END_TEST

START_TEST(test_reap_spares_other_processes)
{
	pid_t elsewhere = fake_vmm("/", "cc-vmm"), other = fake_vmm(tmp, "not-vmm");

	pid_file(elsewhere);
	ck_assert_int_eq(vmm_reap_leftover(pod_fd, 100, NULL), 0);
	ck_assert_int_eq(kill(elsewhere, 0), 0);
	pid_file(other);
	ck_assert_int_eq(vmm_reap_leftover(pod_fd, 100, NULL), 0);
	ck_assert_int_eq(kill(other, 0), 0);
	(void) kill(elsewhere, SIGKILL);
	(void) kill(other, SIGKILL);
	(void) waitpid(elsewhere, NULL, 0);
	(void) waitpid(other, NULL, 0);
	/* No pid file, or a malformed one: nothing to do. */
	{
		char p[PATH_MAX];

		(void) snprintf(p, sizeof(p), "%s/pid", tmp);
		ASSERT_OK(write_string_file_atomic(p, "1\n", 0644));
		ck_assert_int_eq(vmm_reap_leftover(pod_fd, 100, NULL), 0);
		ASSERT_OK(write_string_file_atomic(p, "12abc", 0644));
		ck_assert_int_eq(vmm_reap_leftover(pod_fd, 100, NULL), 0);
		ck_assert_int_eq(unlink(p), 0);
		ck_assert_int_eq(vmm_reap_leftover(pod_fd, 100, NULL), 0);
	}
}
END_TEST

/* A FIFO, a link or a directory in place of pid: malformed, nothing killed, and no hang (a
 * blocking open of the FIFO would run into the test timeout). */
START_TEST(test_reap_hostile_pid_file)
{
	char p[PATH_MAX], target[PATH_MAX];
	pid_t pid = fake_vmm(tmp, "cc-vmm");

	(void) snprintf(p, sizeof(p), "%s/pid", tmp);
	ck_assert_int_eq(mkfifo(p, 0644), 0);
	ck_assert_int_eq(vmm_reap_leftover(pod_fd, 100, NULL), 0);
	ck_assert_int_eq(unlink(p), 0);
	/* A link to a file naming the live cc-vmm: not followed, the process is spared. */
	(void) snprintf(target, sizeof(target), "%s/pid.target", tmp);
	(void) snprintf(p, sizeof(p), "%d\n", (int) pid);
	ASSERT_OK(write_string_file_atomic(target, p, 0644));
	(void) snprintf(p, sizeof(p), "%s/pid", tmp);
	ck_assert_int_eq(symlink(target, p), 0);
	ck_assert_int_eq(vmm_reap_leftover(pod_fd, 100, NULL), 0);
	ck_assert_int_eq(kill(pid, 0), 0);
	ck_assert_int_eq(unlink(p), 0);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	ck_assert_int_eq(vmm_reap_leftover(pod_fd, 100, NULL), 0);
	ck_assert_int_eq(rmdir(p), 0);
	(void) kill(pid, SIGKILL);
	(void) waitpid(pid, NULL, 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("stage1-supervise");
	TCase *tc = tcase_create("supervise");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_pid_file_before_exec);
	tcase_add_test(tc, test_tick_while_vmm_runs);
	tcase_add_test(tc, test_reap_hostile_pid_file);
	tcase_add_test(tc, test_lock_fd_only_in_vmm);
	tcase_add_test(tc, test_lock_fd_from_env);
	tcase_add_test(tc, test_signals_forwarded);
	tcase_add_test(tc, test_vmm_killed);
	tcase_add_test(tc, test_exec_failure);
	tcase_add_test(tc, test_setup_hooks_fail);
	tcase_add_test(tc, test_reap_leftover_vmm);
	tcase_add_test(tc, test_reap_spares_other_processes);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(suite());
}
