/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * How cc-agent runs an entered command: as a transient service that systemd sets up from the
 * app unit's own sandbox (the enter file's property= lines), so the command gets exactly what
 * the app gets: root, user, capability bounding set, seccomp filter, no_new_privs, hidden
 * paths and cgroup limits (docs/stage1.md, "Agent": "Sandbox of an entered command").
 *
 *   systemd-run --quiet --unit=<unit> --description=... --service-type=exec
 *     -p RemainAfterExit=yes [--setenv=TERM=<term>]
 *     (-p StandardInput=file:<stdin> -p StandardOutput=file:<stdout>
 *      -p StandardError=file:<stderr> |
 *      -p TTYPath=<pts> -p StandardInput=tty-force -p StandardOutput=tty -p StandardError=tty)
 *     -p <property>... -- <absolute command> <args>...
 *
 * Not --wait or --pipe: in systemd 252 those need the D-Bus daemon, which the guest image
 * does not have (without them systemd-run talks to PID 1 on its private socket). The stdio
 * pipes are passed as files (/proc/<agent>/fd/<n>: systemd opens the agent's end of each
 * pipe again, as the other end); the agent waits on the unit's main process (pidfd) and
 * reads its exit from systemd. RemainAfterExit= keeps that exit status readable.
 */

#include <stdbool.h>
#include <stddef.h>

#include "enter-config.h"

#define ENTER_SYSTEMD_RUN "/usr/bin/systemd-run"
/* systemd's default PATH for services (without a PATH in the app's environment). */
#define ENTER_DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#define ENTER_UNIT_MAX	   64

struct enter_run {
	const char *app;
	const char *unit;     /* "cc-enter-<...>.service" */
	const char *tty;      /* the pty's slave path, or NULL: stdio are the pipes below */
	const char *stdio[3]; /* without a tty: stdin, stdout, stderr paths for systemd */
	const char *term;     /* TERM for a tty, or NULL */
	const char *path;     /* the command, absolute (enter_command_resolve()) */
	char *const *argv;    /* argv[0] is replaced by path */
};

/* The systemd-run argv (NULL-terminated; free with enter_argv_free()); '$' in the
 * arguments doubled, so systemd passes them on literally. -EINVAL without properties: an
 * app without a sandbox is never entered unconfined. */
int enter_run_argv(const struct enter_config *c, const struct enter_run *e, char ***ret);
void enter_argv_free(char **argv);

/*
 * The command argv0 as the app's process would find it, inside the app's root (rootfd):
 * a name without '/' along path_env (':'-separated absolute directories; NULL: the
 * default), a relative path from cwd, an absolute one as is. Resolved with RESOLVE_IN_ROOT,
 * so no symlink leaves the root. Returns the absolute path in the app's root: -ENOENT when
 * nothing is found, -EACCES when what is found is not an executable regular file.
 */
int enter_command_resolve(int rootfd, const char *argv0, const char *path_env, const char *cwd,
			  char **ret);

/*
 * The exit code to report from `systemctl show -p ExecMainCode -p ExecMainStatus` output:
 * the status for an exit (code 1), 128 + signal for a kill or dump (2, 3). -EBADMSG for
 * anything else (no main process ran: the caller keeps systemd-run's own status).
 */
int enter_result_parse(const char *show, int *ret_code);
