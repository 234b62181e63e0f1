/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Run a helper program (a CNI plugin, iptables) and collect its stdout: no shell, stdin fed
 * from a buffer, stderr shared with ours, every other fd closed in the child (RKT_LOCK_FD must
 * not keep the pod "running"), signals reset, killed after timeout_ms.
 */

#include <stddef.h>

struct spawn_req {
	const char *path;
	char *const *argv;
	char *const *envp; /* NULL: our environment */
	const char *in;	   /* stdin contents, may be NULL (empty stdin) */
	size_t in_len;
	size_t out_max; /* more output than this kills the child: -EFBIG */
	int timeout_ms;
};

/*
 * 0 once the child exited: *ret_status is its wait status, *ret_out its stdout (NUL-terminated,
 * malloc'd; may be NULL if ret_out is NULL). -ETIMEDOUT (killed), -EFBIG, or an errno from
 * fork/exec setup. An exec failure in the child shows as exit status 127.
 */
int spawn_run(const struct spawn_req *req, int *ret_status, char **ret_out, size_t *ret_len);
