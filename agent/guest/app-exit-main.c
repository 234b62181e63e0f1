/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cc-app-exit <app>: ExecStopPost=+/usr/lib/cc/cc-app-exit <app> of every app unit in the
 * guest. Records the app's exit code in /rkt/status/<app> (the host's
 * stage1/rootfs/rkt/status/<app>, which rkt reads) and ends the pod (reboots the guest) when
 * the app failed or when it was the last one. See app-exit.h and docs/stage1.md, "Agent".
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "app-exit.h"
#include "cc/log.h"

#define SYSTEMCTL "/bin/systemctl"

static int app_exit_reboot(void)
{
	pid_t pid;
	int status;

	pid = fork();
	if (pid < 0)
		return log_error_errno(errno, "Failed to fork: %m");
	if (pid == 0) {
		execl(SYSTEMCTL, SYSTEMCTL, "--no-block", "reboot", (char *) NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return log_error_errno(errno, "Failed to wait for systemctl: %m");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return log_error_errno(SYNTHETIC_ERRNO(EIO), "systemctl --no-block reboot failed.");
	return 0;
}

int main(int argc, char **argv)
{
	struct app_exit_paths paths = APP_EXIT_PATHS_GUEST;
	bool end = false;
	int code, r;

	log_set_prefix("cc-app-exit");
	if (argc != 2) {
		log_error("Usage: cc-app-exit APP (as an ExecStopPost= of the app's unit)");
		return EXIT_FAILURE;
	}
	r = app_exit_code_from_env(getenv("EXIT_CODE"), getenv("EXIT_STATUS"),
				   getenv("SERVICE_RESULT"), &code);
	if (r < 0) {
		/* Unknown: record a failure rather than nothing, so that the pod ends. */
		log_error_errno(r, "Cannot tell how app %s ended (EXIT_CODE=%s EXIT_STATUS=%s): %m",
				argv[1], getenv("EXIT_CODE") ?: "", getenv("EXIT_STATUS") ?: "");
		code = 255;
	}
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
