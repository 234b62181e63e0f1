/* SPDX-License-Identifier: Apache-2.0 */
/* One app of the pod layer: its unit, environment file and enter file. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stage1/atomic-write.h"
#include "cc/cleanup.h"
#include "podlayer-internal.h"
#include "stage1/env.h"
#include "stage1/isolators.h"
#include "stage1/rootfs.h"
#include "stage1/unit.h"
#include "stage1/user.h"
#include "strbuf.h"
#include "util.h"

struct app_work {
	const char *name;
	const struct pod_app *pa;
	const struct manifest_app *app;
	int rootfs_fd;
	struct app_ids ids;
	char *exec_path;
	char *pre_path;
	char *post_path;
	const struct manifest_event_handler *pre;
	const struct manifest_event_handler *post;
	const char **rw_paths;
	size_t n_rw_paths;
	char *isolators;
	char *sandbox; /* unit_app_sandbox_format(): the enter file's property= lines */
};

static void app_work_done(struct app_work *w)
{
	safe_close(w->rootfs_fd);
	app_ids_done(&w->ids);
	free(w->exec_path);
	free(w->pre_path);
	free(w->post_path);
	free(w->rw_paths);
	free(w->isolators);
	free(w->sandbox);
}

/* Prefix the message already in reterr with "app <name>: ". */
static int app_error(const struct podlayer_ctx *c, const char *name, int r)
{
	char msg[CC_ERROR_MSG_MAX];

	if (!c->reterr)
		return r;
	memcpy(msg, c->reterr->msg, sizeof(msg));
	return cc_error_set(c->reterr, r, "app %s: %s", name, msg);
}

static int resolve_exec(const struct podlayer_ctx *c, struct app_work *w,
			const struct manifest_strv *argv, const char *what, char **ret)
{
	int r;

	if (argv->n == 0 || !argv->items[0] || !*argv->items[0])
		return cc_error_set(c->reterr, -EINVAL, "app %s: %s has an empty exec", w->name,
				    what);
	r = rootfs_find_executable(w->rootfs_fd, argv->items[0], ret);
	if (r == -ENOENT)
		return cc_error_set(c->reterr, r,
				    "app %s: %s '%.256s' not found in the app's PATH (%s)", w->name,
				    what, argv->items[0], STAGE1_ACE_PATH);
	if (r == -EINVAL)
		return cc_error_set(c->reterr, r,
				    "app %s: %s '%.256s' must be an absolute path or a name "
				    "without '/'",
				    w->name, what, argv->items[0]);
	if (r < 0)
		return cc_error_set(c->reterr, r, "app %s: cannot look up %s '%.256s': %s", w->name,
				    what, argv->items[0], strerror(-r));
	return 0;
}

static int resolve_handlers(const struct podlayer_ctx *c, struct app_work *w)
{
	int r;

	for (size_t i = 0; i < w->app->n_event_handlers; i++) {
		const struct manifest_event_handler *eh = &w->app->event_handlers[i];
		bool pre = streq(eh->name, "pre-start");

		if (!pre && !streq(eh->name, "post-stop"))
			return cc_error_set(c->reterr, -EINVAL,
					    "app %s: unknown event handler '%.64s'", w->name,
					    eh->name);
		if ((pre && w->pre) || (!pre && w->post))
			return cc_error_set(c->reterr, -EINVAL, "app %s: two %s event handlers",
					    w->name, eh->name);
		r = resolve_exec(c, w, &eh->exec, eh->name, pre ? &w->pre_path : &w->post_path);
		if (r < 0)
			return r;
		if (pre)
			w->pre = eh;
		else
			w->post = eh;
	}
	return 0;
}

static int check_working_directory(const struct podlayer_ctx *c, struct app_work *w)
{
	const char *cwd = w->app->working_directory ? w->app->working_directory : "/";
	struct stat st;
	int r;

	if (!unit_path_is_valid(cwd))
		return cc_error_set(c->reterr, -EINVAL,
				    "app %s: working directory '%.256s' must be a normalized "
				    "absolute path without control characters",
				    w->name, cwd);
	r = rootfs_stat(w->rootfs_fd, cwd, &st);
	if (r >= 0 && !S_ISDIR(st.st_mode))
		r = -ENOTDIR;
	if (r < 0)
		return cc_error_set(c->reterr, r,
				    "app %s: working directory '%.256s' does not exist in the "
				    "app's rootfs: %s",
				    w->name, cwd, strerror(-r));
	return 0;
}

/* With readOnlyRootFS: the paths of the app's read-write mounts. */
static int collect_rw_paths(const struct podlayer_ctx *c, struct app_work *w)
{
	const struct pod_app *pa = w->pa;

	if (!pa->read_only_rootfs || pa->n_mounts == 0)
		return 0;
	w->rw_paths = calloc(pa->n_mounts, sizeof(char *));
	if (!w->rw_paths)
		return -ENOMEM;
	for (size_t i = 0; i < pa->n_mounts; i++) {
		const struct pod_mount *m = &pa->mounts[i];
		const struct manifest_volume *v = pod_manifest_find_volume(c->p->pod, m);
		bool ro = v && v->read_only == MANIFEST_TRUE;

		for (size_t k = 0; k < w->app->n_mount_points && !ro; k++) {
			const struct manifest_mount_point *mp = &w->app->mount_points[k];

			if (pod_app_find_mount(pa, mp) == m && mp->read_only)
				ro = true;
		}
		if (!ro)
			w->rw_paths[w->n_rw_paths++] = m->path;
	}
	return 0;
}

static int write_unit(const struct podlayer_ctx *c, struct app_work *w)
{
	const struct run_flags *f = c->p->flags;
	_cleanup_free_ char *text = NULL;
	struct unit_app u = {
		.name = w->name,
		.exec = {w->exec_path, w->app->exec.items, w->app->exec.n},
		.working_directory = w->app->working_directory,
		.uid = w->ids.uid,
		.gid = w->ids.gid,
		.supplementary_gids = w->ids.supplementary_gids,
		.n_supplementary_gids = w->ids.n_supplementary_gids,
		.interactive = f->interactive,
		.read_only_rootfs = w->pa->read_only_rootfs,
		.read_write_paths = (char *const *) w->rw_paths,
		.n_read_write_paths = w->n_rw_paths,
		.bind_resolv_conf = c->dns->resolv_conf != NULL,
		.protect_paths = !f->disable_paths,
		.isolator_directives = w->isolators,
	};
	_cleanup_free_ char *unit_name = NULL;
	struct stat st;
	int r;

	if (w->pre)
		u.pre_start = (struct unit_exec){w->pre_path, w->pre->exec.items, w->pre->exec.n};
	if (w->post)
		u.post_stop =
			(struct unit_exec){w->post_path, w->post->exec.items, w->post->exec.n};
	/* appc: keep the image's own /etc/hosts unless the user asked for one. */
	u.bind_hosts = f->dns_hosts != DNS_HOSTS_DEFAULT ||
		       rootfs_stat(w->rootfs_fd, "/etc/hosts", &st) == -ENOENT;

	r = unit_app_format(&u, &text, c->reterr);
	if (r >= 0)
		r = unit_app_sandbox_format(&u, &w->sandbox, c->reterr);
	if (r < 0)
		return app_error(c, w->name, r);
	if (asprintf(&unit_name, "%s.service", w->name) < 0)
		return -ENOMEM;
	r = layer_write_file(c->units_fd, unit_name, text, 0644);
	if (r < 0)
		return cc_error_set(c->reterr, r, "cannot write %s: %s", unit_name, strerror(-r));
	return 0;
}

static int write_env_and_enter(const struct podlayer_ctx *c, struct app_work *w)
{
	_cleanup_free_ char *env = NULL, *enter = NULL;
	struct strbuf b = {};
	int r;

	r = app_env_format(w->name, &w->app->environment, c->metadata_url, &env, c->warnings);
	if (r < 0)
		return cc_error_set(c->reterr, r, "app %s: cannot build the environment: %s",
				    w->name, strerror(-r));
	r = layer_write_file(c->env_fd, w->name, env, 0600);
	if (r < 0)
		return cc_error_set(c->reterr, r, "cannot write env/%s: %s", w->name, strerror(-r));

	strbuf_printf(&b, "app=%s\nroot=/opt/stage2/%s/rootfs\nuid=%u\ngid=%u\ngroups=", w->name,
		      w->name, w->ids.uid, w->ids.gid);
	for (size_t i = 0; i < w->ids.n_supplementary_gids; i++)
		strbuf_printf(&b, "%s%u", i ? "," : "", w->ids.supplementary_gids[i]);
	strbuf_printf(&b, "\ncwd=%s\nenv=/etc/cc/env/%s\n",
		      w->app->working_directory ? w->app->working_directory : "/", w->name);
	/* The app unit's sandbox, which enter gives its command (systemd-run -p). */
	for (const char *l = w->sandbox; l && *l;) {
		size_t n = strcspn(l, "\n");

		strbuf_printf(&b, "property=%.*s\n", (int) n, l);
		l += n + (l[n] == '\n');
	}
	r = strbuf_steal(&b, &enter);
	if (r < 0)
		return r;
	r = layer_write_file(c->enter_fd, w->name, enter, 0644);
	if (r < 0)
		return cc_error_set(c->reterr, r, "cannot write enter/%s: %s", w->name,
				    strerror(-r));
	return 0;
}

static int app_prepare(const struct podlayer_ctx *c, struct app_work *w)
{
	_cleanup_free_ char *root = NULL;
	struct isolator_options iso = {
		.disable_capabilities = c->p->flags->disable_capabilities,
		.disable_seccomp = c->p->flags->disable_seccomp,
	};
	int r;

	if (!w->app)
		return cc_error_set(c->reterr, -EINVAL,
				    "app %s: neither the pod nor the image defines the app "
				    "(exec, user, group)",
				    w->name);
	if (asprintf(&root, "opt/stage2/%s/rootfs", w->name) < 0)
		return -ENOMEM;
	w->rootfs_fd = rootfs_open(c->p->stage1_rootfs_fd, root, O_RDONLY | O_DIRECTORY);
	if (w->rootfs_fd < 0)
		return cc_error_set(c->reterr, w->rootfs_fd,
				    "app %s: cannot open its rootfs stage1/rootfs/%s: %s", w->name,
				    root, strerror(-w->rootfs_fd));
	r = app_ids_resolve(w->rootfs_fd, w->app, &w->ids, c->reterr);
	if (r < 0)
		return app_error(c, w->name, r);
	r = resolve_exec(c, w, &w->app->exec, "exec", &w->exec_path);
	if (r >= 0)
		r = resolve_handlers(c, w);
	if (r >= 0)
		r = check_working_directory(c, w);
	if (r >= 0)
		r = collect_rw_paths(c, w);
	if (r < 0)
		return r;
	iso.uid = w->ids.uid;
	return isolators_map(w->name, &w->app->isolators, &c->p->pod->isolators, &iso,
			     &w->isolators, c->warnings, c->reterr);
}

int podlayer_app_write(const struct podlayer_ctx *c, size_t i)
{
	const struct pod_app *pa = &c->p->pod->apps[i];
	struct app_work w = {
		.name = pa->name,
		.pa = pa,
		.app = pod_app_effective_app(pa, c->p->images ? c->p->images[i] : NULL),
		.rootfs_fd = -1,
	};
	int r;

	if (!stage1_ac_name_is_valid(pa->name))
		return cc_error_set(c->reterr, -EINVAL, "invalid app name");
	r = app_prepare(c, &w);
	if (r >= 0)
		r = guest_users_add(c->users, w.name, &w.ids);
	if (r >= 0)
		r = write_unit(c, &w);
	if (r >= 0)
		r = write_env_and_enter(c, &w);
	app_work_done(&w);
	return r;
}
