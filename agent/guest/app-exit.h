/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The logic of cc-app-exit (ExecStopPost of every app unit): record the app's exit code and
 * decide whether the pod ends now. Paths are parameters so that tests use a temp dir.
 */

#include <stdbool.h>

struct app_exit_paths {
	const char *status_dir; /* /rkt/status: one file per app, its decimal exit code */
	const char *pod_exit;	/* /rkt/cc-pod-exit: the pod's code, created once (O_EXCL) */
	const char *apps_file;	/* /etc/cc/apps: the pod's app names, one per line */
};

#define APP_EXIT_PATHS_GUEST                                      \
	(struct app_exit_paths)                                   \
	{                                                         \
		"/rkt/status", "/rkt/cc-pod-exit", "/etc/cc/apps" \
	}

/*
 * The app's exit code from systemd's ExecStopPost environment: $EXIT_CODE (exited, killed,
 * dumped) and $EXIT_STATUS (a number for exited; a signal name such as "TERM", "SIGTERM",
 * "RTMIN+2" or a number otherwise), or, when the main process never ran (no $EXIT_CODE, e.g.
 * a failed pre-start), $SERVICE_RESULT: "success" is 0, anything else 1.
 * exited: the status (0..255); killed/dumped: 128 + the signal number.
 * -EINVAL for values systemd never produces.
 */
int app_exit_code_from_env(const char *exit_code, const char *exit_status,
			   const char *service_result, int *ret_code);

/*
 * Write status_dir/<app> = code (decimal, no newline, atomically: temporary file + rename),
 * then decide: a non-zero code ends the pod with it; a zero code ends the pod with 0 when
 * every app of apps_file has a status file. Ending = creating pod_exit with O_EXCL (the first
 * app to do so wins; a pod that already ends is left alone). *ret_end is true when this call
 * created pod_exit (the caller then reboots the guest).
 */
int app_exit_record(const struct app_exit_paths *p, const char *app, int code, bool *ret_end);

/* Signal number of a systemd signal name ("TERM", "SIGKILL", "RTMIN+3", "9"); -EINVAL. */
int app_exit_signal_from_name(const char *name);
