/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/macro.h"
#include "cc/spawn.h"
#include "cc/time-util.h"

extern char **environ;

_noreturn_ static void child_exec(const struct spawn_req *req, int in_fd, int out_fd)
{
	struct sigaction sa = {.sa_handler = SIG_DFL};
	sigset_t all;

	(void) setpgid(0, 0); /* a timeout kills the plugin and whatever it started */
	(void) sigemptyset(&all);
	(void) sigprocmask(SIG_SETMASK, &all, NULL);
	for (int s = 1; s < NSIG; s++)
		(void) sigaction(s, &sa, NULL);
	if (dup2(in_fd, STDIN_FILENO) < 0)
		_exit(127);
	if (req->err == SPAWN_STDERR_CAPTURE) {
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (null < 0 || dup2(out_fd, STDERR_FILENO) < 0 || dup2(null, STDOUT_FILENO) < 0)
			_exit(127);
	} else {
		if (dup2(out_fd, STDOUT_FILENO) < 0)
			_exit(127);
		if (req->err == SPAWN_STDERR_NULL) {
			int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

			if (null < 0 || dup2(null, STDERR_FILENO) < 0)
				_exit(127);
		}
	}
	if (syscall(SYS_close_range, 3U, ~0U, 0U) < 0)
		for (int fd = 3; fd < 65536; fd++)
			(void) close(fd);
	if (req->search_path)
		execvpe(req->path, req->argv, req->envp ? req->envp : environ);
	else
		execve(req->path, req->argv, req->envp ? req->envp : environ);
	_exit(127);
}

struct io_state {
	int in_fd, out_fd, pid_fd;
	size_t in_off;
	bool keep; /* the caller wants the output; else it is read and dropped */
	char *out;
	size_t out_len, out_cap;
	int out_eof, exited;
};

static int out_read(const struct spawn_req *req, struct io_state *st)
{
	for (;;) {
		ssize_t n;

		if (!st->keep) {
			char sink[4096];

			n = read(st->out_fd, sink, sizeof(sink));
			if (n < 0)
				return errno == EAGAIN || errno == EINTR ? 0 : -errno;
			if (n == 0) {
				st->out_eof = 1;
				return 0;
			}
			continue;
		}

		if (st->out_cap - st->out_len < 4096) {
			size_t ncap = st->out_cap ? st->out_cap * 2 : 8192;
			char *nb = realloc(st->out, ncap + 1);

			if (!nb)
				return -ENOMEM;
			st->out = nb;
			st->out_cap = ncap;
		}
		n = read(st->out_fd, st->out + st->out_len, st->out_cap - st->out_len);
		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -errno;
		if (n == 0) {
			st->out_eof = 1;
			return 0;
		}
		st->out_len += (size_t) n;
		if (st->out_len > req->out_max)
			return -EFBIG;
	}
}

static int in_write(const struct spawn_req *req, struct io_state *st)
{
	while (st->in_off < req->in_len) {
		ssize_t n = send(st->in_fd, req->in + st->in_off, req->in_len - st->in_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return 0;
			break; /* the child does not read its stdin: not our problem */
		}
		st->in_off += (size_t) n;
	}
	st->in_fd = safe_close(st->in_fd);
	return 0;
}

static int io_loop(const struct spawn_req *req, struct io_state *st)
{
	int64_t deadline = req->timeout_ms > 0 ? now_monotonic_ms() + req->timeout_ms : INT64_MAX;

	while (!st->exited) {
		struct pollfd p[3] = {
			{.fd = st->pid_fd, .events = POLLIN},
			{.fd = st->out_eof ? -1 : st->out_fd, .events = POLLIN},
			{.fd = st->in_fd, .events = POLLOUT},
		};
		int64_t left = deadline == INT64_MAX ? 1000 : deadline - now_monotonic_ms();
		int r;

		if (left <= 0)
			return -ETIMEDOUT;
		r = poll(p, 3, (int) MIN(left, 1000LL));
		if (r < 0 && errno != EINTR)
			return -errno;
		if (st->in_fd >= 0 && (p[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
			r = in_write(req, st);
			if (r < 0)
				return r;
		}
		if (p[1].revents) {
			r = out_read(req, st);
			if (r < 0)
				return r;
		}
		if (p[0].revents & POLLIN)
			st->exited = 1;
	}
	/* Exited: what it wrote is in the pipe; a grandchild holding it must not stall us. */
	return st->out_eof ? 0 : out_read(req, st);
}

int spawn_run(const struct spawn_req *req, int *ret_status, char **ret_out, size_t *ret_len)
{
	_cleanup_close_ int out_r = -1, out_w = -1, pid_fd = -1;
	int in_sp[2] = {-1, -1}, out_p[2], status = 0, r;
	struct io_state st = {.in_fd = -1, .keep = ret_out != NULL};
	pid_t pid;

	if (pipe2(out_p, O_CLOEXEC) < 0)
		return -errno;
	out_r = out_p[0];
	out_w = out_p[1];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in_sp) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		r = -errno;
		safe_close(in_sp[0]);
		safe_close(in_sp[1]);
		return r;
	}
	if (pid == 0)
		child_exec(req, in_sp[1], out_w);
	(void) setpgid(pid, pid); /* as the child does: no window where a kill misses it */
	safe_close(in_sp[1]);
	out_w = safe_close(out_w);
	st.in_fd = in_sp[0];
	st.out_fd = out_r;
	pid_fd = (int) syscall(SYS_pidfd_open, pid, 0);
	if (pid_fd < 0 || fcntl(out_r, F_SETFL, O_NONBLOCK) < 0) {
		r = -errno;
		goto kill;
	}
	st.pid_fd = pid_fd;
	if (!req->in || req->in_len == 0)
		st.in_fd = safe_close(st.in_fd);
	r = io_loop(req, &st);
	if (r < 0)
		goto kill;
	safe_close(st.in_fd);
	if (waitpid(pid, &status, 0) < 0) {
		free(st.out);
		return -errno;
	}
	if (!st.out && ret_out) {
		st.out = malloc(1);
		if (!st.out)
			return -ENOMEM;
	}
	if (st.out)
		st.out[st.out_len] = '\0';
	*ret_status = status;
	if (ret_out)
		*ret_out = st.out;
	else
		free(st.out);
	if (ret_len)
		*ret_len = st.out_len;
	return 0;
kill:
	safe_close(st.in_fd);
	free(st.out);
	(void) kill(-pid, SIGKILL);
	(void) kill(pid, SIGKILL);
	(void) waitpid(pid, NULL, 0);
	return r;
}

int spawn_exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 255;
}
