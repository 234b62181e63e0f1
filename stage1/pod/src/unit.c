/* SPDX-License-Identifier: Apache-2.0 */
/* The app service and the pod target (docs/stage1.md "Pod layer"). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc/cleanup.h"
#include "stage1/flags.h"
#include "stage1/rootfs.h"
#include "stage1/unit.h"
#include "strbuf.h"

/*
 * Kernel interfaces an app has no business with, hidden unless --disable-paths (rkt's list,
 * less /sys/fs: the app reads its cgroup limits there). "-": skip what does not exist.
 * ProtectKernelTunables= makes /proc/sys, /sys and the like read-only on top of it.
 */
static const char *const hidden_paths[] = {
	"/proc/config.gz",   "/proc/kallsyms", "/proc/kcore",	  "/proc/kmem",	 "/proc/mem",
	"/proc/sched_debug", "/sys/firmware",  "/sys/hypervisor", "/sys/module", "/sys/power",
};

/*
 * A path value for a setting without quoting: in a unit file only '%' needs escaping
 * (specifiers); a property set over D-Bus (systemd-run -p) takes the value literally.
 */
static void path_append(struct strbuf *b, const char *p, bool in_file)
{
	for (; *p; p++) {
		if (*p == '%' && in_file)
			strbuf_append(b, "%%");
		else
			strbuf_append_char(b, *p);
	}
}

static int exec_line(struct strbuf *b, const char *key, const char *prefix,
		     const struct unit_exec *e, struct cc_error *reterr)
{
	_cleanup_free_ char *cmd = NULL;
	int r;

	r = unit_exec_format(prefix, e, &cmd, reterr);
	if (r < 0)
		return r;
	strbuf_printf(b, "%s=%s\n", key, cmd);
	return 0;
}

static void stdio_lines(struct strbuf *b, bool interactive)
{
	if (interactive)
		strbuf_append(b, "StandardInput=tty\n"
				 "StandardOutput=tty\n"
				 "StandardError=tty\n"
				 "TTYPath=/dev/hvc0\n");
	else
		strbuf_append(b, "StandardInput=null\n"
				 "StandardOutput=journal+console\n"
				 "StandardError=journal+console\n");
}

static int paths_lines(struct strbuf *b, const struct unit_app *a, bool in_file,
		       struct cc_error *reterr)
{
	if (a->protect_paths) {
		strbuf_append(b, "ProtectKernelTunables=yes\nInaccessiblePaths=");
		for (size_t i = 0; i < ARRAY_SIZE(hidden_paths); i++)
			strbuf_printf(b, "%s-%s", i ? " " : "", hidden_paths[i]);
		strbuf_append_char(b, '\n');
	}
	if (a->bind_hosts)
		strbuf_append(b, "BindReadOnlyPaths=/etc/hosts\n");
	if (a->bind_resolv_conf)
		strbuf_append(b, "BindReadOnlyPaths=/etc/resolv.conf\n");
	if (a->read_only_rootfs) {
		strbuf_append(b, "ReadOnlyPaths=/\n");
		for (size_t i = 0; i < a->n_read_write_paths; i++) {
			const char *p = a->read_write_paths[i];

			/* The setting splits on spaces and unquotes: refuse what it would change.
			 */
			if (!unit_path_is_valid(p) || strpbrk(p, " \"'\\"))
				return cc_error_set(reterr, -EINVAL,
						    "read-write mount path '%.256s' cannot be "
						    "expressed in a unit",
						    p);
			strbuf_append(b, "ReadWritePaths=-");
			path_append(b, p, in_file);
			strbuf_append_char(b, '\n');
		}
	}
	return 0;
}

static int app_check(const struct unit_app *a, struct cc_error *reterr)
{
	const char *cwd = a->working_directory ? a->working_directory : "/";

	if (!stage1_ac_name_is_valid(a->name))
		return cc_error_set(reterr, -EINVAL, "invalid app name");
	if (!unit_path_is_valid(cwd))
		return cc_error_set(reterr, -EINVAL,
				    "working directory '%.256s' is not a normalized absolute "
				    "path systemd accepts",
				    cwd);
	return 0;
}

/* The app's process before the command: root, API file systems, cwd, user, environment. */
static void sandbox_head_lines(struct strbuf *b, const struct unit_app *a, bool in_file)
{
	strbuf_printf(b,
		      "RootDirectory=/opt/stage2/%s/rootfs\n"
		      "MountAPIVFS=yes\n"
		      "WorkingDirectory=",
		      a->name);
	path_append(b, a->working_directory ? a->working_directory : "/", in_file);
	strbuf_printf(b, "\nUser=%u\nGroup=%u\n", a->uid, a->gid);
	if (a->n_supplementary_gids > 0) {
		strbuf_append(b, "SupplementaryGroups=");
		for (size_t i = 0; i < a->n_supplementary_gids; i++)
			strbuf_printf(b, "%s%u", i ? " " : "", a->supplementary_gids[i]);
		strbuf_append_char(b, '\n');
	}
	strbuf_printf(b, "EnvironmentFile=/etc/cc/env/%s\n", a->name);
}

/* What the app may see and do: hidden and read-only paths, then the isolators. */
static int sandbox_tail_lines(struct strbuf *b, const struct unit_app *a, bool in_file,
			      struct cc_error *reterr)
{
	int r = paths_lines(b, a, in_file, reterr);

	if (r < 0)
		return r;
	if (a->isolator_directives)
		strbuf_append(b, a->isolator_directives);
	return 0;
}

int unit_app_sandbox_format(const struct unit_app *a, char **ret, struct cc_error *reterr)
{
	struct strbuf b = {};
	int r;

	assert_return(a && ret, -EINVAL);
	r = app_check(a, reterr);
	if (r < 0)
		return r;
	sandbox_head_lines(&b, a, false);
	r = sandbox_tail_lines(&b, a, false, reterr);
	if (r < 0) {
		strbuf_done(&b);
		return r;
	}
	return strbuf_steal(&b, ret);
}

int unit_app_format(const struct unit_app *a, char **ret, struct cc_error *reterr)
{
	struct strbuf b = {};
	int r;

	assert_return(a && ret, -EINVAL);
	r = app_check(a, reterr);
	if (r < 0)
		return r;

	strbuf_printf(&b,
		      "# Generated by the clear-containers stage1 from the pod manifest.\n"
		      "[Unit]\n"
		      "Description=rkt app %s\n"
		      "DefaultDependencies=no\n"
		      "Wants=cc-app-exit@%s.service systemd-journald.socket\n"
		      "After=systemd-journald.socket\n"
		      "Conflicts=shutdown.target\n"
		      "Before=shutdown.target\n"
		      "\n"
		      "[Service]\n"
		      "Type=simple\n"
		      "Restart=no\n"
		      "SyslogIdentifier=%s\n",
		      a->name, a->name, a->name);
	sandbox_head_lines(&b, a, true);

	if (a->pre_start.path) {
		r = exec_line(&b, "ExecStartPre", "", &a->pre_start, reterr);
		if (r < 0)
			goto fail;
	}
	r = exec_line(&b, "ExecStart", "", &a->exec, reterr);
	if (r < 0)
		goto fail;
	if (a->post_stop.path) {
		r = exec_line(&b, "ExecStopPost", "-", &a->post_stop, reterr);
		if (r < 0)
			goto fail;
	}

	stdio_lines(&b, a->interactive);
	strbuf_printf(&b,
		      "KillMode=mixed\n"
		      "TimeoutStartSec=infinity\n"
		      "TimeoutStopSec=%us\n",
		      UNIT_STOP_TIMEOUT_S);
	r = sandbox_tail_lines(&b, a, true, reterr);
	if (r < 0)
		goto fail;
	return strbuf_steal(&b, ret);
fail:
	strbuf_done(&b);
	return r;
}

int unit_app_exit_template_format(char **ret)
{
	char *s;

	assert_return(ret, -EINVAL);
	/*
	 * Bound to the app and ordered before it: started with it, stopped after it has ended
	 * (on its own, by `stop`, or at shutdown), so its ExecStop= sees the app's final state.
	 * Outside the app's chroot: an ExecStopPost=+ of the app unit would still run inside
	 * RootDirectory= in systemd 252, and OnSuccess=/OnFailure= units are not started while
	 * the guest shuts down.
	 */
	s = strdup("# Generated by the clear-containers stage1.\n"
		   "# Records how app %i ended, once it has: BindsTo= and Before= the app, so\n"
		   "# systemd stops it (ExecStop=) after the app stops, also at shutdown.\n"
		   "[Unit]\n"
		   "Description=rkt app %i exit status\n"
		   "DefaultDependencies=no\n"
		   "BindsTo=%i.service\n"
		   "Before=%i.service\n"
		   "Conflicts=shutdown.target\n"
		   "Before=shutdown.target\n"
		   "RequiresMountsFor=/rkt/status\n"
		   "\n"
		   "[Service]\n"
		   "Type=oneshot\n"
		   "RemainAfterExit=yes\n"
		   "ExecStart=/bin/true\n"
		   "ExecStop=" UNIT_APP_EXIT_PATH " %i\n");
	if (!s)
		return -ENOMEM;
	*ret = s;
	return 0;
}

int unit_app_started_format(char *const *app_names, size_t n_apps, char **ret)
{
	struct strbuf b = {};

	assert_return(ret && (n_apps == 0 || app_names), -EINVAL);
	strbuf_append(&b, "# Generated by the clear-containers stage1.\n"
			  "# The app-started boot marker, once every app has been started.\n"
			  "[Unit]\n"
			  "Description=rkt pod apps started\n"
			  "DefaultDependencies=no\n");
	for (size_t i = 0; i < n_apps; i++) {
		if (!stage1_ac_name_is_valid(app_names[i])) {
			strbuf_done(&b);
			return -EINVAL;
		}
		strbuf_printf(&b, "After=%s.service\n", app_names[i]);
	}
	strbuf_append(&b, "\n"
			  "[Service]\n"
			  "Type=oneshot\n"
			  "ExecStart=" UNIT_MARKER_COMMAND "\n");
	return strbuf_steal(&b, ret);
}

int unit_pod_target_format(char *const *app_names, size_t n_apps, char **ret)
{
	struct strbuf b = {};

	assert_return(ret && (n_apps == 0 || app_names), -EINVAL);
	strbuf_append(&b, "# Generated by the clear-containers stage1 from the pod manifest.\n"
			  "[Unit]\n"
			  "Description=rkt pod\n");
	for (size_t i = 0; i < n_apps; i++) {
		if (!stage1_ac_name_is_valid(app_names[i])) {
			strbuf_done(&b);
			return -EINVAL;
		}
		strbuf_printf(&b, "Wants=%s.service\n", app_names[i]);
	}
	strbuf_append(&b, "Wants=" UNIT_APP_STARTED_SERVICE "\n"
			  "Wants=" UNIT_AGENT_SERVICE "\n"
			  "Wants=" UNIT_RECLAIM_SERVICE "\n");
	return strbuf_steal(&b, ret);
}
