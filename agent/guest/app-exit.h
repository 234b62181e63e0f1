/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The logic of cc-app-exit (ExecStop= of every app's cc-app-exit@<app>.service): record the app's
 * exit code and decide whether the pod ends now. Paths are parameters so that tests use a temp dir.
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
 * The app's exit code from `systemctl show --property=ExecMainCode,ExecMainStatus,Result
 * <app>.service` ("Key=value" lines, any order): ExecMainCode 1 (exited) gives the status
 * (0..255); 2 (killed) and 3 (dumped) give 128 + the signal number; 0 (the main process
 * never ran, e.g. a failed pre-start handler) gives 0 when Result is "success", else 1.
 * -EINVAL for anything else.
 */
int app_exit_code_from_show(const char *text, int *ret_code);

/*
 * Write status_dir/<app> = code (decimal, no newline, atomically: temporary file + rename),
 * then decide: a non-zero code ends the pod with it; a zero code ends the pod with 0 when
 * every app of apps_file has a status file. Ending = creating pod_exit with O_EXCL (the first
 * app to do so wins; a pod that already ends is left alone). *ret_end is true when this call
 * created pod_exit (the caller then reboots the guest).
 */
int app_exit_record(const struct app_exit_paths *p, const char *app, int code, bool *ret_end);
