/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * systemd unit text for the guest (systemd 252). See docs/stage1.md "Pod layer" for the
 * unit each app gets. Commands are written as
 *     [prefixes]@"<absolute path>" "<argv0>" "<arg>"...
 * every word double-quoted with C escapes (\" \\ \n \t \xHH for other control bytes), '%'
 * doubled (specifiers) in every word, and '$' doubled in the argv words (systemd's
 * environment substitution applies to argv, never to the path). The "@" form keeps the app's
 * own argv[0] (appc) while the path is the resolved binary.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cc/error.h"
#include "cc/warnings.h"

#define UNIT_POD_TARGET		 "cc-pod.target"
#define UNIT_AGENT_SERVICE	 "cc-agent.service"
#define UNIT_APP_STARTED_SERVICE "cc-app-started.service"
#define UNIT_RECLAIM_SERVICE	 "cc-reclaim.service"
#define UNIT_APP_EXIT_TEMPLATE	 "cc-app-exit@.service"
#define UNIT_MARKER_COMMAND	 "/usr/sbin/cc-marker app-started"
#define UNIT_APP_EXIT_PATH	 "/usr/lib/cc/cc-app-exit"
#define UNIT_STOP_TIMEOUT_S	 10
/* Longest command line written into a unit (systemd's own line limit is 1 MiB). */
#define UNIT_EXEC_LINE_MAX (256u * 1024u)

struct unit_exec {
	const char *path;  /* absolute path of the binary in the app's rootfs; NULL: none */
	char *const *argv; /* argv[0] included; argc >= 1 */
	size_t argc;
};

struct unit_app {
	const char *name; /* AC Name */
	struct unit_exec exec;
	struct unit_exec pre_start;    /* path NULL: no pre-start handler */
	struct unit_exec post_stop;    /* path NULL: no post-stop handler */
	const char *working_directory; /* NULL: "/"; else unit_path_is_valid() */
	uint32_t uid;
	uint32_t gid;
	const uint32_t *supplementary_gids;
	size_t n_supplementary_gids;
	bool interactive; /* stdin/stdout/stderr on the console tty (/dev/hvc0) */
	bool read_only_rootfs;
	char *const *read_write_paths; /* with read_only_rootfs: the app's rw mount paths */
	size_t n_read_write_paths;
	bool bind_hosts;		 /* bind the guest's /etc/hosts over the app's */
	bool bind_resolv_conf;		 /* bind the guest's /etc/resolv.conf over the app's */
	bool protect_paths;		 /* false with --disable-paths */
	const char *isolator_directives; /* "Key=value\n" lines for [Service], or NULL */
};

/* One command for Exec*= (without the Exec*= key), with the given prefix characters. */
int unit_exec_format(const char *prefix, const struct unit_exec *e, char **ret,
		     struct cc_error *reterr);
/* The <name>.service text. -EINVAL (with a message) for anything systemd would reject. */
int unit_app_format(const struct unit_app *a, char **ret, struct cc_error *reterr);
/*
 * The app's sandbox: the [Service] lines of unit_app_format() that set up its process (root,
 * API file systems, cwd, user and groups, environment file, hidden and read-only paths and
 * the isolator directives: capabilities, seccomp, no_new_privs, cgroup limits), one
 * "Key=value" per line, in the unit's order, but as systemd-run -p takes them (no '%'
 * doubling: a property over D-Bus is literal). `enter` runs its command with exactly these
 * (docs/stage1.md, "Enter file").
 */
int unit_app_sandbox_format(const struct unit_app *a, char **ret, struct cc_error *reterr);
/*
 * cc-app-exit@.service: every app unit Wants= cc-app-exit@<app>.service, which is BindsTo= and
 * Before= the app: systemd stops it once the app has ended (on its own, through `stop`, or
 * when the guest shuts down: both Conflicts=shutdown.target), and its ExecStop= runs
 * UNIT_APP_EXIT_PATH <app>, which asks systemd how the app ended, writes /rkt/status/<app>
 * and ends the pod when due. Not an ExecStopPost=+ of the app unit: with RootDirectory= even
 * "+" commands run inside the app's rootfs in systemd 252; not OnSuccess=/OnFailure=: those
 * are not started during shutdown, so apps still running when the pod ends kept no status.
 */
int unit_app_exit_template_format(char **ret);
/* cc-app-started.service: UNIT_MARKER_COMMAND, After= every app unit. */
int unit_app_started_format(char *const *app_names, size_t n_apps, char **ret);
/* cc-pod.target: Wants= each <app>.service, cc-app-started.service, cc-agent.service and
 * cc-reclaim.service (the guest image's, ordered after cc-app-started.service). */
int unit_pod_target_format(char *const *app_names, size_t n_apps, char **ret);
