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
#include "stdio-relay.h"

#define RELAY_BUF 65536
/* In the relay, where its three pipe ends are moved before everything else is closed. */
#define RELAY_FD_IN  3 /* write end: run's stdin goes there */
#define RELAY_FD_OUT 4 /* read end: the VMM's stdout */
#define RELAY_FD_ERR 5 /* read end: the VMM's stderr */

/* Copy what one read of from gives to to; false at EOF or error. A write error drops the
 * data (the reader is gone): the VMM must never block on a dead terminal. */
static bool relay_copy(int from, int to, char *buf)
{
	ssize_t n = read(from, buf, RELAY_BUF);

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (n <= 0)
		return false;
	for (ssize_t off = 0; off < n;) {
		ssize_t w = write(to, buf + off, (size_t) (n - off));

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += w;
	}
	return true;
}

_noreturn_ static void relay_main(void)
{
	static char buf[RELAY_BUF];
	struct pollfd p[3] = {
		{.fd = STDIN_FILENO, .events = POLLIN},
		{.fd = RELAY_FD_OUT, .events = POLLIN},
		{.fd = RELAY_FD_ERR, .events = POLLIN},
	};
	const int to[3] = {RELAY_FD_IN, STDOUT_FILENO, STDERR_FILENO};

	(void) signal(SIGPIPE, SIG_IGN);
	while (p[1].fd >= 0 || p[2].fd >= 0) {
		if (poll(p, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		for (int i = 0; i < 3; i++) {
			if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (relay_copy(p[i].fd, to[i], buf))
				continue;
			/* stdin at its end: so is the VMM's. */
			if (i == 0)
				(void) close(RELAY_FD_IN);
			p[i].fd = -1;
		}
	}
	_exit(0);
}

/* The relay only copies between fds it holds: nobody's ids, no way back (best effort: the
 * VMM's output must go on even where the ids cannot change). */
static void relay_drop_privileges(void)
{
	const uid_t nobody = 65534;

	if (geteuid() != 0)
		return;
	if (setgroups(0, NULL) < 0 || setresgid(nobody, nobody, nobody) < 0 ||
	    setresuid(nobody, nobody, nobody) < 0)
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
	return 0;
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
