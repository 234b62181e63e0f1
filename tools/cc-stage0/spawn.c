/* SPDX-License-Identifier: Apache-2.0 */
/* Running helper programs (tar, cp, gzip, sha512sum) and the stage1 entrypoints. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "cc/log.h"
#include "stage0.h"

static int wait_status(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + WTERMSIG(st);
}

int spawn_wait(const char *const *argv, const char *cwd, int stdout_fd)
{
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		if (stdout_fd >= 0 && dup2(stdout_fd, STDOUT_FILENO) < 0)
			_exit(127);
		if (cwd && chdir(cwd) < 0)
			_exit(127);
		execvp(argv[0], (char *const *) argv);
		log_error_errno(errno, "cannot execute %s: %m", argv[0]);
		_exit(127);
	}
	return wait_status(pid);
}

int spawn_capture(const char *const *argv, size_t max, char **ret)
{
	_cleanup_close_ int rd = -1, wr = -1;
	_cleanup_free_ char *buf = NULL;
	int fds[2], r, st;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	rd = fds[0];
	wr = fds[1];
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		/* Its stderr is not for the user: the caller reports the failure in its own words.
		 */
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (dup2(wr, STDOUT_FILENO) < 0 || null < 0 || dup2(null, STDERR_FILENO) < 0)
			_exit(127);
		execvp(argv[0], (char *const *) argv);
		log_error_errno(errno, "cannot execute %s: %m", argv[0]);
		_exit(127);
	}
	wr = safe_close(wr);
	r = read_full_fd(rd, max, &buf, NULL);
	rd = safe_close(rd); /* a child writing more than max gets SIGPIPE */
	st = wait_status(pid);
	if (r < 0)
		return r;
	if (st != 0)
		return st < 0 ? st : -EIO;
	*ret = TAKE_PTR(buf);
	return 0;
}
