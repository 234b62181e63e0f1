/* SPDX-License-Identifier: Apache-2.0 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "pod-paths.h"
#include "supervise.h"

int fds_set_cloexec(int keep_fd)
{
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;

	d = opendir("/proc/self/fd");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char *end;
		long fd;
		int flags;

		errno = 0;
		fd = strtol(de->d_name, &end, 10);
		if (de->d_name[0] == '.' || *end || errno || fd < 3 || fd == keep_fd ||
		    fd == dirfd(d))
			continue;
		flags = fcntl((int) fd, F_GETFD);
		if (flags < 0 || (flags & FD_CLOEXEC))
			continue;
		if (fcntl((int) fd, F_SETFD, flags | FD_CLOEXEC) < 0)
			return -errno;
	}
	return 0;
}

int lock_fd_from_env(void)
{
	const char *e = getenv("RKT_LOCK_FD");
	char *end;
	long fd;

	if (!e)
		return -ENOENT;
	errno = 0;
	fd = strtol(e, &end, 10);
	if (!*e || *end || errno || fd < 0 || fd > 65535)
		return -EBADF;
	if (fcntl((int) fd, F_GETFD) < 0)
		return -EBADF;
	return (int) fd;
}

static int pid_file_write(int pod_fd, pid_t pid)
{
	char tmp[] = ".pid.cc-tmp", val[24];
	_cleanup_close_ int fd = -1;
	int r;

	(void) snprintf(val, sizeof(val), "%d\n", (int) pid);
	fd = openat(pod_fd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	r = loop_write(fd, val, strlen(val));
	if (r >= 0 && fsync(fd) < 0)
		r = -errno;
	if (r >= 0 && renameat(pod_fd, tmp, pod_fd, POD_PID_PATH) < 0)
		r = -errno;
	if (r < 0)
		(void) unlinkat(pod_fd, tmp, 0);
	return r;
}

/*
 * In a PID namespace of its own the child's parent is invisible (getppid() is 0): the
 * supervisor keeps the gate's write end open until the exec, so a hangup means it died.
 */
static bool supervisor_gone(const struct supervise_config *c, pid_t parent, int gate_fd)
{
	struct pollfd p = {.fd = gate_fd, .events = POLLIN};

	if (!(c->clone_flags & CLONE_NEWPID))
		return getppid() != parent;
	return poll(&p, 1, 0) != 0;
}

/* Let fd survive exec. */
static int fd_inherit(int fd)
{
	int flags = fcntl(fd, F_GETFD);

	if (flags < 0 || fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC) < 0)
		return -errno;
	return 0;
}

_noreturn_ static void child_exec(const struct supervise_config *c, pid_t parent, int gate_fd,
				  int err_fd, const sigset_t *old_mask)
{
	char go;
	int e;

	/* Parent gone or refused: never start a VM nobody supervises. */
	if (loop_read(gate_fd, &go, 1) != 1)
		_exit(127);
	/* Before the death signal: a change of credentials clears it. */
	if (c->child_setup) {
		e = c->child_setup(c->userdata);
		if (e < 0) {
			(void) loop_write(err_fd, &e, sizeof(e));
			_exit(127);
		}
	}
	/* Reparented already (to init or a subreaper): the supervisor died meanwhile. */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || supervisor_gone(c, parent, gate_fd))
		_exit(127);
	for (int i = 0; c->stdio_fds && i < 3; i++)
		if (dup2(c->stdio_fds[i], i) < 0)
			goto fail;
	if (c->lock_fd >= 0 && fd_inherit(c->lock_fd) < 0)
		goto fail;
	for (size_t i = 0; i < c->n_keep_fds; i++)
		if (fd_inherit(c->keep_fds[i]) < 0)
			goto fail;
	if (sigprocmask(SIG_SETMASK, old_mask, NULL) < 0)
		goto fail;
	if (c->child_hook)
		c->child_hook();
	execv(c->argv[0], c->argv);
fail:
	e = errno;
	(void) loop_write(err_fd, &e, sizeof(e));
	_exit(127);
}

/* Wait for pid, forwarding stop signals, calling c->tick every c->tick_ms meanwhile. */
static int wait_forwarding(const struct supervise_config *c, pid_t pid, const sigset_t *mask,
			   int *ret_status)
{
	struct timespec ts = {.tv_sec = c->tick_ms / 1000,
			      .tv_nsec = (long) (c->tick_ms % 1000) * 1000000};

	for (;;) {
		siginfo_t si;
		int sig, st;
		pid_t w;

		sig = c->tick ? sigtimedwait(mask, &si, &ts) : sigwaitinfo(mask, &si);
		if (sig < 0 && errno == EAGAIN) {
			c->tick(c->userdata);
			continue;
		}
		if (sig < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (sig == SIGTERM || sig == SIGINT || sig == SIGHUP) {
			(void) kill(pid, sig == SIGHUP ? SIGTERM : sig);
			continue;
		}
		/* SIGCHLD: signals coalesce, so poll until our child is reaped. */
		w = waitpid(pid, &st, WNOHANG);
		if (w < 0)
			return -errno;
		if (w == pid) {
			*ret_status = st;
			return 0;
		}
	}
}

static void child_kill(pid_t pid)
{
	(void) kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

int supervise_run(const struct supervise_config *c, int *ret_status, pid_t *ret_pid,
		  struct cc_error *reterr_error)
{
	_cleanup_close_ int gate_r = -1, gate_w = -1, err_r = -1, err_w = -1;
	int gate[2], errp[2], e, r;
	sigset_t mask, old;
	pid_t pid, parent;
	ssize_t n;

	assert_return(c && c->argv && c->argv[0] && ret_status, -EINVAL);
	assert_return(!c->tick || c->tick_ms > 0, -EINVAL);
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &mask, &old) < 0)
		return cc_error_set(reterr_error, errno, "cannot block signals: %m");
	if (pipe2(gate, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0)
		return cc_error_set(reterr_error, errno, "cannot create a pipe: %m");
	gate_r = gate[0], gate_w = gate[1], err_r = errp[0], err_w = errp[1];

	parent = getpid();
	/* A single-threaded process: the raw clone() is a fork() into new namespaces. */
	pid = c->clone_flags
		      ? (pid_t) syscall(SYS_clone, c->clone_flags | SIGCHLD, NULL, NULL, NULL, NULL)
		      : fork();
	if (pid < 0)
		return cc_error_set(reterr_error, errno, "cannot fork: %m");
	if (pid == 0) {
		gate_w = safe_close(gate_w);
		child_exec(c, parent, gate_r, err_w, &old);
	}
	gate_r = safe_close(gate_r);
	err_w = safe_close(err_w);
	if (c->parent_setup) {
		r = c->parent_setup(pid, c->userdata);
		if (r < 0) {
			child_kill(pid);
			return cc_error_set(reterr_error, r, "cannot set up %s: %m", c->argv[0]);
		}
	}

	r = pid_file_write(c->pod_fd, pid);
	if (r < 0) {
		child_kill(pid);
		return cc_error_set(reterr_error, r, "cannot write the pid file: %m");
	}
	if (c->prestart) {
		r = c->prestart(pid, c->userdata, reterr_error);
		if (r < 0) {
			child_kill(pid);
			return r;
		}
	}
	r = loop_write(gate_w, "g", 1);
	n = loop_read(err_r, &e, sizeof(e));
	gate_w = safe_close(gate_w);
	if (r < 0 || n != 0) {
		child_kill(pid);
		if (n == (ssize_t) sizeof(e) && e < 0)
			return cc_error_set(reterr_error, -e, "cannot set up %s: %m", c->argv[0]);
		if (n == (ssize_t) sizeof(e))
			return cc_error_set(reterr_error, e, "cannot execute %s: %m", c->argv[0]);
		return cc_error_set(reterr_error, r < 0 ? r : EIO, "cannot start %s: %m",
				    c->argv[0]);
	}
	if (ret_pid)
		*ret_pid = pid;
	if (c->started)
		c->started(pid, c->userdata);
	r = wait_forwarding(c, pid, &mask, ret_status);
	if (r < 0) {
		child_kill(pid);
		return cc_error_set(reterr_error, r, "cannot wait for %s: %m", c->argv[0]);
	}
	return 0;
}
