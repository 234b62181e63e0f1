/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The supervisor's process handling: start the VMM and wait for it.
 *
 * The VMM child is forked with SIGTERM/SIGINT/SIGHUP/SIGCHLD blocked in the supervisor; it
 * waits on a pipe until the supervisor has written the pod's `pid` file (atomically) with the
 * child's PID, then clears FD_CLOEXEC on the lock fd and the keep_fds only (every other
 * inherited fd is closed at exec by fds_set_cloexec()), asks for SIGTERM when the supervisor dies,
 * and execs the VMM. An exec failure comes back through a second CLOEXEC pipe as an error, not as a
 * VMM exit. SIGTERM/SIGINT received by the supervisor are forwarded to the VMM as is, SIGHUP as
 * SIGTERM (cc-vmm turns TERM and INT into a clean stop; HUP would kill it outright). Those signals
 * stay blocked after supervise_run() returns, so that the supervisor finishes its cleanup.
 */

#include <stddef.h>
#include <sys/types.h>

#include "cc/error.h"

/* Mark every fd >= 3 close-on-exec, except keep_fd (which stays as it is). */
int fds_set_cloexec(int keep_fd);

/* Parse $RKT_LOCK_FD: the fd, -ENOENT when unset, -EBADF when not an open fd. */
int lock_fd_from_env(void);

struct supervise_config {
	char **argv; /* VMM argv, argv[0] the path to execute */
	int lock_fd; /* kept open across exec in the VMM only; -1 for none */
	int pod_fd;  /* the pod dir: where `pid` is written */
	/* The VMM's stdin, stdout and stderr (e.g. stdio-relay.h's pipes); NULL: run's own. */
	const int *stdio_fds;
	/* More fds the VMM inherits (the pod's tap fds, named on its command line). */
	const int *keep_fds;
	size_t n_keep_fds;
	/* Called in the child just before exec (tests); NULL for none. */
	void (*child_hook)(void);
	/*
	 * Called in the supervisor with the child's PID before the child may exec the VMM (to put
	 * it into its cgroup, set its limits); an error kills the child. NULL for none.
	 */
	int (*prestart)(pid_t pid, void *userdata, struct cc_error *reterr_error);
	/*
	 * Namespaces of the child (CLONE_NEW*; 0: a plain fork). With CLONE_NEWPID the child
	 * cannot see the supervisor: it checks that the supervisor lives through the gate pipe.
	 */
	unsigned long clone_flags;
	/* In the supervisor, before the child goes on (e.g. its uid map); NULL for none. */
	int (*parent_setup)(pid_t pid, void *userdata);
	/* In the child once released, before exec (e.g. its jail); NULL for none. A failure
	 * is reported as "cannot set up" the VMM. */
	int (*child_setup)(void *userdata);
	/* Called in the supervisor once the VMM runs (exec succeeded); NULL for none. */
	void (*started)(pid_t pid, void *userdata);
	/* Called in the supervisor while the VMM runs, each time tick_ms pass without a signal;
	 * NULL for none. */
	void (*tick)(void *userdata);
	unsigned tick_ms;
	void *userdata;
};

/*
 * Start the VMM and wait for it, forwarding signals. *ret_status gets its waitpid() status and
 * *ret_pid its PID. Errors (pid file, fork, exec) come with a message; the child is then
 * gone.
 */
int supervise_run(const struct supervise_config *c, int *ret_status, pid_t *ret_pid,
		  struct cc_error *reterr_error);
