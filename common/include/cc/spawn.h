/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Run a helper program and collect its output (the one helper for this: the stage1's CNI
 * plugins and iptables, cc-stage0's tar and sha512sum, the guest agent's systemctl and
 * systemd-run): no shell, stdin fed from a buffer, every other fd closed in the child
 * (RKT_LOCK_FD must not keep the pod "running"), signals reset, the child in a process group
 * of its own, killed with it after timeout_ms.
 */

#include <stdbool.h>
#include <stddef.h>

enum spawn_stderr {
	SPAWN_STDERR_INHERIT, /* ours */
	SPAWN_STDERR_NULL,    /* /dev/null: the caller reports a failure in its own words */
	SPAWN_STDERR_CAPTURE, /* collected instead of stdout, which goes to /dev/null */
};

struct spawn_req {
	const char *path; /* run as is, or looked up in PATH with search_path */
	char *const *argv;
	char *const *envp; /* NULL: our environment */
	const char *in;	   /* stdin contents, may be NULL (empty stdin) */
	size_t in_len;
	size_t out_max; /* more output than this kills the child: -EFBIG */
	int timeout_ms; /* <= 0: none */
	bool search_path;
	enum spawn_stderr err;
};

/*
 * 0 once the child exited: *ret_status is its wait status, *ret_out its stdout (NUL-terminated,
 * malloc'd). With ret_out NULL the output is read and dropped, and out_max does not apply.
 * -ETIMEDOUT (killed), -EFBIG, or an errno from fork/exec setup. An exec failure in the child shows
 * as exit status 127.
 */
int spawn_run(const struct spawn_req *req, int *ret_status, char **ret_out, size_t *ret_len);
/* A wait status as a shell gives it: the exit code, or 128 + the signal. */
int spawn_exit_code(int status);
