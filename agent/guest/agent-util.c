/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent.h"
#include "cc/cleanup.h"
#include "cc/fileio.h"

int agent_send_error(int fd, int code, const char *msg)
{
	uint8_t buf[4 + AGENT_ERROR_MSG_MAX];
	size_t len;
	int r;

	r = agent_error_encode(buf, sizeof(buf), code, msg, &len);
	if (r < 0)
		return r;
	return agent_send(fd, AGENT_ERROR, buf, len);
}

int agent_run(char *const argv[], char **ret_out, size_t max)
{
	_cleanup_close_ int rfd = -EBADF, wfd = -EBADF;
	_cleanup_free_ char *out = NULL;
	int fds[2], status, r = 0;
	pid_t pid;

	if (ret_out) {
		if (pipe2(fds, O_CLOEXEC) < 0)
			return -errno;
		rfd = fds[0];
		wfd = fds[1];
	}
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		if (null >= 0) {
			(void) dup2(null, STDIN_FILENO);
			if (wfd < 0)
				(void) dup2(null, STDOUT_FILENO);
		}
		if (wfd >= 0)
			(void) dup2(wfd, STDOUT_FILENO);
		execv(argv[0], argv);
		_exit(127);
	}
	wfd = safe_close(wfd);
	if (rfd >= 0)
		r = read_full_fd(rfd, max, &out, NULL);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (r < 0)
		return r;
	if (ret_out)
		*ret_out = TAKE_PTR(out);
	if (!WIFEXITED(status))
		return -EIO;
	return WEXITSTATUS(status);
}
