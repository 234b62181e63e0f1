/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* For suites that need root and new namespaces: exit 77 (skipped) when they cannot run. */

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static inline void privileged_require(int ns_flags)
{
	pid_t pid;
	int st;

	if (geteuid() != 0) {
		fprintf(stderr, "skipped: needs root\n");
		exit(77);
	}
	pid = fork();
	if (pid == 0)
		_exit(unshare(ns_flags) == 0 ? 0 : 1);
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "skipped: cannot create namespaces (unshare 0x%x)\n", ns_flags);
		exit(77);
	}
}
