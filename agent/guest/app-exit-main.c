/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cc-app-exit <app>: the ExecStop= of cc-app-exit@<app>.service, which every app unit starts
 * (BindsTo= the app, ordered before it: systemd stops it once the app has ended, also when the
 * guest shuts down). Asks systemd how the app ended, records the code in /rkt/status/<app>
 * (the host's stage1/rootfs/rkt/status/<app>, which rkt reads) and ends the pod (reboots the
 * guest) when the app failed or when it was the last one. See app-exit.h and docs/stage1.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent-proto.h"
#include "app-exit.h"
#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "cc/log.h"
#include "cc/macro.h"

#define SYSTEMCTL     "/bin/systemctl"
#define SHOW_SIZE_MAX 4096

static int app_exit_wait(pid_t pid, const char *what)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return log_error_errno(errno, "Failed to wait for %s: %m", what);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return log_error_errno(SYNTHETIC_ERRNO(EIO), "%s failed.", what);
	return 0;
}

static int app_exit_reboot(void)
{
	pid_t pid = fork();

	if (pid < 0)
		return log_error_errno(errno, "Failed to fork: %m");
	if (pid == 0) {
		execl(SYSTEMCTL, SYSTEMCTL, "--no-block", "reboot", (char *) NULL);
		_exit(127);
	}
	return app_exit_wait(pid, "systemctl --no-block reboot");
}

/* `systemctl show` of the app's unit, NUL-terminated, in *ret. */
static int app_exit_show(const char *app, char **ret)
{
	_cleanup_free_ char *unit = NULL, *buf = NULL;
	_cleanup_close_ int rd = -EBADF;
	ssize_t n;
	int pipefd[2], r;
	pid_t pid;

	if (asprintf(&unit, "%s.service", app) < 0)
		return log_oom();
	buf = malloc(SHOW_SIZE_MAX + 1);
	if (!buf)
		return log_oom();
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return log_error_errno(errno, "Failed to create a pipe: %m");
	rd = pipefd[0];
	pid = fork();
	if (pid < 0) {
		safe_close(pipefd[1]);
		return log_error_errno(errno, "Failed to fork: %m");
	}
	if (pid == 0) {
		if (dup2(pipefd[1], STDOUT_FILENO) < 0)
			_exit(127);
		execl(SYSTEMCTL, SYSTEMCTL, "show", "--property=ExecMainCode,ExecMainStatus,Result",
		      unit, (char *) NULL);
		_exit(127);
	}
	safe_close(pipefd[1]);
	n = loop_read(rd, buf, SHOW_SIZE_MAX);
	rd = safe_close(rd);
	r = app_exit_wait(pid, "systemctl show");
	if (r < 0)
		return r;
	if (n < 0)
		return log_error_errno((int) n, "Failed to read systemctl show: %m");
	buf[n] = '\0';
	*ret = TAKE_PTR(buf);
	return 0;
}

int main(int argc, char **argv)
{
	struct app_exit_paths paths = APP_EXIT_PATHS_GUEST;
	_cleanup_free_ char *show = NULL;
	bool end = false;
	int code = 255, r;

	log_set_prefix("cc-app-exit");
	if (argc != 2 || !agent_app_name_is_valid(argv[1])) {
		log_error("Usage: cc-app-exit APP (the ExecStop= of cc-app-exit@APP.service)");
		return EXIT_FAILURE;
	}
	r = app_exit_show(argv[1], &show);
	if (r >= 0) {
		r = app_exit_code_from_show(show, &code);
		if (r < 0)
			log_error_errno(r, "Cannot tell how app %s ended: %m", argv[1]);
	}
	/* Unknown: record a failure rather than nothing, so that the pod ends. */
	if (r < 0)
		code = 255;
	r = app_exit_record(&paths, argv[1], code, &end);
	if (r < 0) {
		log_error_errno(r, "Failed to record the exit status %d of app %s: %m", code,
				argv[1]);
		/* The pod must not keep running without anyone to end it. */
		end = true;
	}
	if (end && app_exit_reboot() < 0)
		return EXIT_FAILURE;
	return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
