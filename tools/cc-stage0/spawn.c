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
#include "cc/spawn.h"
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
	/* Its stderr is not for the user: the caller reports the failure in its own words. */
	struct spawn_req req = {
		.path = argv[0],
		.argv = (char *const *) argv,
		.out_max = max,
		.search_path = true,
		.err = SPAWN_STDERR_NULL,
	};
	_cleanup_free_ char *out = NULL;
	int r, status;

	r = spawn_run(&req, &status, &out, NULL);
	if (r < 0)
		return r;
	if (spawn_exit_code(status) != 0)
		return -EIO;
	*ret = TAKE_PTR(out);
	return 0;
}
