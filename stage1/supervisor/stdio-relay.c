/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <grp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/macro.h"
#include "stdio-relay.h"

#define RELAY_BUF 65536
/* In the relay, where its three pipe ends are moved before everything else is closed. */
#define RELAY_FD_IN  3 /* write end: run's stdin goes there */
#define RELAY_FD_OUT 4 /* read end: the VMM's stdout */
#define RELAY_FD_ERR 5 /* read end: the VMM's stderr */

/* Write all of buf to to (blocking: run's stdout and stderr); a write error drops the rest
 * (the reader is gone): the VMM must never block on a dead terminal. */
static void relay_write_all(int to, const char *buf, size_t n)
{
	for (size_t off = 0; off < n;) {
		ssize_t w = write(to, buf + off, n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		off += (size_t) w;
	}
}

/*
 * Toward the VMM's stdin (RELAY_FD_IN, non-blocking): the guest may never read it, so what
 * run's stdin gave waits in buf, and run's stdin is not read meanwhile, while the VMM's output
 * is copied on all the while.
 */
struct relay_in {
	char buf[RELAY_BUF];
	size_t len, off;
	bool eof; /* run's stdin ended (or the VMM's is gone): close the VMM's once buf is out */
};

/* Write what waits; false once the VMM's stdin is gone (an error other than EAGAIN). */
static bool relay_in_flush(struct relay_in *in)
{
	while (in->off < in->len) {
		ssize_t w = write(RELAY_FD_IN, in->buf + in->off, in->len - in->off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN)
			return true;
		if (w <= 0)
			return false;
		in->off += (size_t) w;
	}
	in->len = in->off = 0;
	return true;
}

static void relay_in_read(struct relay_in *in)
{
	ssize_t n = read(STDIN_FILENO, in->buf, sizeof(in->buf));

	if (n > 0) {
		in->len = (size_t) n;
		in->off = 0;
	} else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
		in->eof = true;
	}
}

_noreturn_ static void relay_main(void)
{
	static char out[RELAY_BUF];
	static struct relay_in in;
	/* run's stdin, the VMM's stdout and stderr, the VMM's stdin */
	int fds[4] = {STDIN_FILENO, RELAY_FD_OUT, RELAY_FD_ERR, RELAY_FD_IN};

	while (fds[1] >= 0 || fds[2] >= 0) {
		/* run's stdin is read only once the VMM took what came before. */
		struct pollfd q[4] = {
			{.fd = in.len ? -1 : fds[0], .events = POLLIN},
			{.fd = fds[1], .events = POLLIN},
			{.fd = fds[2], .events = POLLIN},
			{.fd = in.len ? fds[3] : -1, .events = POLLOUT},
		};

		if (poll(q, 4, -1) < 0) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		if (q[0].revents)
			relay_in_read(&in);
		if ((q[0].revents || q[3].revents) && !relay_in_flush(&in)) {
			in.len = in.off = 0;
			in.eof = true;
		}
		/* The VMM sees its stdin end once what waited is out. */
		if (in.eof && in.len == 0 && fds[0] >= 0) {
			fds[0] = -1;
			fds[3] = safe_close(fds[3]);
		}
		for (int i = 1; i < 3; i++) {
			ssize_t n;

			if (fds[i] < 0 || !q[i].revents)
				continue;
			n = read(fds[i], out, sizeof(out));
			if (n > 0)
				relay_write_all(i == 1 ? STDOUT_FILENO : STDERR_FILENO, out,
						(size_t) n);
			else if (n == 0 || (errno != EINTR && errno != EAGAIN))
				fds[i] = -1;
		}
	}
	_exit(0);
}

/* The relay only copies between fds it holds: an id of its own, no way back, not dumpable;
 * run's terminal and stop signals are run's, the relay ends with the VMM's output (best
 * effort: the VMM's output must go on even where the ids cannot change). */
static void relay_drop_privileges(void)
{
	const int ignored[] = {SIGPIPE, SIGINT,	 SIGHUP,  SIGTERM,
			       SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU};

	for (size_t i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		(void) signal(ignored[i], SIG_IGN);
	(void) prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	if (geteuid() != 0)
		return;
	if (setgroups(0, NULL) < 0 ||
	    setresgid(STDIO_RELAY_ID, STDIO_RELAY_ID, STDIO_RELAY_ID) < 0 ||
	    setresuid(STDIO_RELAY_ID, STDIO_RELAY_ID, STDIO_RELAY_ID) < 0)
		return;
	(void) prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

/* In the child: the pipe ends at RELAY_FD_*, nothing else but stdio open. */
static int relay_fds_place(int in_w, int out_r, int err_r)
{
	int hi[3];

	/* Above everything first, so that no dup2 below overwrites another end. */
	hi[0] = fcntl(in_w, F_DUPFD, 64);
	hi[1] = fcntl(out_r, F_DUPFD, 64);
	hi[2] = fcntl(err_r, F_DUPFD, 64);
	if (hi[0] < 0 || hi[1] < 0 || hi[2] < 0)
		return -errno;
	for (int i = 0; i < 3; i++)
		if (dup2(hi[i], RELAY_FD_IN + i) < 0)
			return -errno;
	if (syscall(SYS_close_range, RELAY_FD_ERR + 1, ~0u, 0) < 0)
		return -errno;
	/* Its own end of the pipe only: the VMM's read end keeps its flags. */
	return RET_NERRNO(fcntl(RELAY_FD_IN, F_SETFL, O_NONBLOCK));
}

int stdio_relay_start(struct stdio_relay *r)
{
	int in[2], out[2], err[2];
	pid_t pid;

	r->pid = -1;
	for (int i = 0; i < 3; i++)
		r->vmm_fds[i] = -1;
	if (pipe2(in, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(out, O_CLOEXEC) < 0) {
		safe_close(in[0]);
		safe_close(in[1]);
		return -errno;
	}
	if (pipe2(err, O_CLOEXEC) < 0) {
		int e = -errno;

		for (int i = 0; i < 2; i++) {
			safe_close(in[i]);
			safe_close(out[i]);
		}
		return e;
	}
	pid = fork();
	if (pid == 0) {
		if (relay_fds_place(in[1], out[0], err[0]) < 0)
			_exit(1);
		relay_drop_privileges();
		relay_main();
	}
	safe_close(in[1]);
	safe_close(out[0]);
	safe_close(err[0]);
	r->vmm_fds[0] = in[0];
	r->vmm_fds[1] = out[1];
	r->vmm_fds[2] = err[1];
	if (pid < 0) {
		int e = -errno;

		stdio_relay_release(r);
		return e;
	}
	r->pid = pid;
	return 0;
}

void stdio_relay_release(struct stdio_relay *r)
{
	for (int i = 0; i < 3; i++)
		r->vmm_fds[i] = safe_close(r->vmm_fds[i]);
}

void stdio_relay_finish(struct stdio_relay *r)
{
	stdio_relay_release(r);
	if (r->pid <= 0)
		return;
	while (waitpid(r->pid, NULL, 0) < 0 && errno == EINTR)
		;
	r->pid = -1;
}
