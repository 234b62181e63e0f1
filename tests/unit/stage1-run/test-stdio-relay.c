/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The jailed VMM's stdio relay (stdio-relay.h): bytes go both ways unchanged, the relay holds
 * nothing but its six fds, and finish returns once the VMM's output has all been written, even
 * when run's stdin never ends; a dead reader of run's stdout does not block the VMM.
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cctest.h"
#include "stdio-relay.h"

/* run's own stdio for the test: pipes, whose other ends the test keeps. */
static int run_in_w = -1, run_out_r = -1, run_err_r = -1;

static void stdio_replace(void)
{
	int in[2], out[2], err[2];

	ck_assert_int_eq(pipe(in), 0);
	ck_assert_int_eq(pipe(out), 0);
	ck_assert_int_eq(pipe(err), 0);
	ck_assert_int_eq(dup2(in[0], 0), 0);
	ck_assert_int_eq(dup2(out[1], 1), 1);
	ck_assert_int_eq(dup2(err[1], 2), 2);
	close(in[0]);
	close(out[1]);
	close(err[1]);
	run_in_w = in[1], run_out_r = out[0], run_err_r = err[0];
}

static unsigned relay_fds(pid_t pid)
{
	char path[64];
	unsigned n = 0;
	DIR *d;

	(void) snprintf(path, sizeof(path), "/proc/%d/fd", (int) pid);
	d = opendir(path);
	ck_assert_ptr_nonnull(d);
	for (struct dirent *de; (de = readdir(d));)
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

static unsigned proc_uid(pid_t pid)
{
	char path[64], line[256];
	unsigned uid = 0;
	FILE *f;

	(void) snprintf(path, sizeof(path), "/proc/%d/status", (int) pid);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %*u %u", &uid) == 1)
			break;
	fclose(f);
	return uid;
}

static void read_exact(int fd, const char *want)
{
	char buf[64] = "";
	size_t len = strlen(want), got = 0;

	while (got < len) {
		ssize_t n = read(fd, buf + got, len - got);

		ck_assert_int_gt(n, 0);
		got += (size_t) n;
	}
	ck_assert_str_eq(buf, want);
}

START_TEST(test_relay_both_ways)
{
	struct stdio_relay r;

	stdio_replace();
	ck_assert_int_eq(stdio_relay_start(&r), 0);
	ck_assert_int_gt(r.pid, 0);
	/* The VMM's side: its stdin read end, its stdout and stderr write ends. */
	ck_assert_int_eq(write(r.vmm_fds[1], "out\r\n", 5), 5);
	ck_assert_int_eq(write(r.vmm_fds[2], "err", 3), 3);
	read_exact(run_out_r, "out\r\n");
	read_exact(run_err_r, "err");
	ck_assert_int_eq(write(run_in_w, "\x03key", 4), 4);
	read_exact(r.vmm_fds[0], "\x03key");
	/* stdio, the three pipe ends: nothing of run's; and an id of its own (run is root). */
	ck_assert_uint_eq(relay_fds(r.pid), 6);
	if (geteuid() == 0)
		ck_assert_uint_eq(proc_uid(r.pid), STDIO_RELAY_ID);
	/* run's stdin stays open: the relay still ends with the VMM's output, all of it
	 * written first. */
	ck_assert_int_eq(write(r.vmm_fds[1], "bye", 3), 3);
	stdio_relay_finish(&r);
	ck_assert_int_eq(r.pid, -1);
	read_exact(run_out_r, "bye");
}
END_TEST

/* Nobody reads run's stdout any more: the VMM's writes still go through (dropped). */
START_TEST(test_relay_dead_reader)
{
	static char big[1 << 20];
	struct stdio_relay r;

	stdio_replace();
	close(run_out_r);
	ck_assert_int_eq(stdio_relay_start(&r), 0);
	for (size_t off = 0; off < sizeof(big);) {
		ssize_t n = write(r.vmm_fds[1], big + off, sizeof(big) - off);

		ck_assert_int_gt(n, 0);
		off += (size_t) n;
	}
	stdio_relay_finish(&r);
}
END_TEST

/* A child that writes n bytes to fd, then exits. */
static pid_t writer(int fd, size_t n)
{
	static char buf[65536];
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		for (size_t off = 0; off < n;) {
			ssize_t w = write(fd, buf, n - off < sizeof(buf) ? n - off : sizeof(buf));

			if (w <= 0)
				_exit(1);
			off += (size_t) w;
		}
		_exit(0);
	}
	return pid;
}

/* The guest never reads its console while run's stdin floods it: the VMM's output still goes
 * through (the relay waits on the VMM's stdin without blocking, and stops reading run's). */
START_TEST(test_relay_stdin_unread)
{
	static char buf[65536];
	const size_t out_n = 1 << 20;
	struct stdio_relay r;
	pid_t flood, vmm_err;
	size_t got = 0;

	stdio_replace();
	ck_assert_int_eq(stdio_relay_start(&r), 0);
	flood = writer(run_in_w, 8 << 20);
	vmm_err = writer(r.vmm_fds[2], out_n);
	while (got < out_n) {
		ssize_t n = read(run_err_r, buf, sizeof(buf));

		ck_assert_int_gt(n, 0);
		got += (size_t) n;
	}
	ck_assert_int_eq(waitpid(vmm_err, NULL, 0), vmm_err);
	kill(flood, SIGKILL);
	waitpid(flood, NULL, 0);
	stdio_relay_finish(&r);
}
END_TEST

/* run's terminal and stop signals are not the relay's: it goes on copying. */
START_TEST(test_relay_ignores_signals)
{
	struct stdio_relay r;

	stdio_replace();
	ck_assert_int_eq(stdio_relay_start(&r), 0);
	ck_assert_int_eq(write(r.vmm_fds[1], "a", 1), 1);
	read_exact(run_out_r, "a");
	for (int sig = 0; sig < 4; sig++)
		ck_assert_int_eq(kill(r.pid, (int[]){SIGINT, SIGHUP, SIGTERM, SIGTTIN}[sig]), 0);
	ck_assert_int_eq(write(r.vmm_fds[1], "b", 1), 1);
	read_exact(run_out_r, "b");
	stdio_relay_finish(&r);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("stage1-stdio-relay");
	TCase *tc = tcase_create("relay");

	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_relay_both_ways);
	tcase_add_test(tc, test_relay_dead_reader);
	tcase_add_test(tc, test_relay_stdin_unread);
	tcase_add_test(tc, test_relay_ignores_signals);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(suite());
}
