/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pod directory, laid out as rkt 1.30 does (docs/shared stage1-contract b.1): prepared in
 * pods/prepare/<uuid> under the pod lock, moved to pods/run/<uuid>, then (overlay mode) the
 * stage1 and app overlays mounted, as rkt's run does just before the exec.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "cc/log.h"
#include "prepare.h"

static int uuid_new(char ret[STAGE0_UUID_LEN + 1])
{
	unsigned char b[16];

	if (getrandom(b, sizeof(b), 0) != sizeof(b))
		return -EIO;
	b[6] = (unsigned char) ((b[6] & 0x0f) | 0x40);
	b[8] = (unsigned char) ((b[8] & 0x3f) | 0x80);
	snprintf(ret, STAGE0_UUID_LEN + 1,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
		 b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
		 b[15]);
	return 0;
}

/* path = printf(fmt, ...) relative to the pod; asprintf wrapper that returns NULL on OOM. */
_printf_(2, 3) static char *pod_path(const struct pod_plan *p, const char *fmt, ...)
{
	_cleanup_free_ char *rel = NULL;
	char *s = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&rel, fmt, ap) < 0)
		rel = NULL;
	va_end(ap);
	if (!rel || asprintf(&s, "%s/%s", p->path, rel) < 0)
		return NULL;
	return s;
}

static int pod_mkdir(const struct pod_plan *p, mode_t mode, const char *rel)
{
	_cleanup_free_ char *path = pod_path(p, "%s", rel);
	int r;

	if (!path)
		return log_oom();
	r = mkdir_p(path, mode);
	if (r < 0)
		return log_error_errno(r, "cannot create %s: %m", path);
	if (chmod(path, mode) < 0)
		return log_error_errno(errno, "cannot chmod %s: %m", path);
	return 0;
}

static int pod_write(const struct pod_plan *p, const char *rel, const char *s, mode_t mode)
{
	_cleanup_free_ char *path = pod_path(p, "%s", rel);
	int r;

	if (!path)
		return log_oom();
	r = write_file(path, s, mode);
	if (r < 0)
		return log_error_errno(r, "cannot write %s: %m", path);
	return 0;
}

/* rkt: an app rootfs with /etc but no /etc/mtab gets etc/mtab -> ../proc/self/mounts. */
static int app_mtab(const struct pod_plan *p, const char *app)
{
	_cleanup_free_ char *etc = pod_path(p, "stage1/rootfs/opt/stage2/%s/rootfs/etc", app);
	_cleanup_free_ char *mtab = pod_path(p, "stage1/rootfs/opt/stage2/%s/rootfs/etc/mtab", app);
	struct stat st;

	if (!etc || !mtab)
		return log_oom();
	if (stat(etc, &st) < 0 || !S_ISDIR(st.st_mode) || lstat(mtab, &st) == 0)
		return 0;
	if (symlink("../proc/self/mounts", mtab) < 0)
		return log_error_errno(errno, "cannot create %s: %m", mtab);
	return 0;
}

/* The app's directory under opt/stage2 and its manifest, through the stage1 rootfs. */
static int app_dir(const struct pod_plan *p, size_t i)
{
	_cleanup_free_ char *rel = NULL;
	int r;

	if (asprintf(&rel, "stage1/rootfs/opt/stage2/%s/rootfs", p->names[i]) < 0)
		return log_oom();
	r = pod_mkdir(p, 0750, "stage1/rootfs/opt/stage2");
	if (r >= 0)
		r = pod_mkdir(p, 0755, rel);
	if (r < 0)
		return r;
	rel = mfree(rel);
	if (asprintf(&rel, "stage1/rootfs/opt/stage2/%s", p->names[i]) < 0)
		return log_oom();
	r = pod_mkdir(p, 0750, rel);
	if (r < 0)
		return r;
	rel = mfree(rel);
	if (asprintf(&rel, "stage1/rootfs/opt/stage2/%s/manifest", p->names[i]) < 0)
		return log_oom();
	return pod_write(p, rel, p->apps[i].manifest, 0644);
}

/* Can this data dir hold overlay upper and work dirs? Tried for real, as mount would be. */
static bool overlay_works(const struct pod_plan *p)
{
	_cleanup_free_ char *base = pod_path(p, "overlay/.probe");
	_cleanup_free_ char *l = NULL, *u = NULL, *w = NULL, *m = NULL;
	bool ok = false;

	if (!base || asprintf(&l, "%s/l", base) < 0 || asprintf(&u, "%s/u", base) < 0 ||
	    asprintf(&w, "%s/w", base) < 0 || asprintf(&m, "%s/m", base) < 0)
		return false;
	if (mkdir_p(l, 0755) >= 0 && mkdir_p(u, 0755) >= 0 && mkdir_p(w, 0755) >= 0 &&
	    mkdir_p(m, 0755) >= 0 && mount_overlay(m, l, u, w) >= 0) {
		ok = true;
		(void) umount_under(m);
	}
	(void) rm_rf(base);
	return ok;
}

static int prepare_stage1(struct pod_plan *p)
{
	int r;

	r = pod_mkdir(p, 0750, "stage1");
	if (r >= 0)
		r = pod_write(p, "stage1/manifest", p->stage1.manifest, 0640);
	if (r >= 0)
		r = pod_write(p, "stage1TreeStoreID", p->stage1.tree_id, 0640);
	if (r >= 0)
		r = pod_mkdir(p, 0755, "stage1/rootfs");
	if (r < 0)
		return r;
	if (!p->overlay) {
		_cleanup_free_ char *from = NULL, *to = pod_path(p, "stage1/rootfs");

		if (!to || asprintf(&from, "%s/rootfs", p->stage1.tree) < 0)
			return log_oom();
		r = copy_tree(from, to);
		if (r < 0)
			return log_error_errno(r, "cannot copy the stage1 tree into %s: %m", to);
		return 0;
	}
	_cleanup_free_ char *upper = NULL, *work = NULL;
	if (asprintf(&upper, "overlay/%s/upper", p->stage1.tree_id) < 0 ||
	    asprintf(&work, "overlay/%s/work", p->stage1.tree_id) < 0)
		return log_oom();
	r = pod_mkdir(p, 0750, "overlay");
	if (r >= 0)
		r = pod_mkdir(p, 0755, upper);
	if (r >= 0)
		r = pod_mkdir(p, 0750, work);
	return r;
}

static int prepare_app(struct pod_plan *p, size_t i)
{
	const struct store_image *img = &p->apps[i];
	_cleanup_free_ char *rel = NULL;
	int r;

	if (asprintf(&rel, "appsinfo/%s", p->names[i]) < 0)
		return log_oom();
	r = pod_mkdir(p, 0750, rel);
	if (r < 0)
		return r;
	rel = mfree(rel);
	if (asprintf(&rel, "appsinfo/%s/manifest", p->names[i]) < 0)
		return log_oom();
	r = pod_write(p, rel, img->manifest, 0640);
	if (r < 0)
		return r;
	rel = mfree(rel);
	if (!p->overlay) {
		_cleanup_free_ char *from = NULL, *to = NULL;

		r = app_dir(p, i);
		if (r < 0)
			return r;
		to = pod_path(p, "stage1/rootfs/opt/stage2/%s/rootfs", p->names[i]);
		if (!to || asprintf(&from, "%s/rootfs", img->tree) < 0)
			return log_oom();
		r = copy_tree(from, to);
		if (r < 0)
			return log_error_errno(r, "cannot copy the app tree into %s: %m", to);
		return app_mtab(p, p->names[i]);
	}
	if (asprintf(&rel, "appsinfo/%s/treeStoreID", p->names[i]) < 0)
		return log_oom();
	r = pod_write(p, rel, img->tree_id, 0640);
	if (r < 0)
		return r;
	rel = mfree(rel);
	if (asprintf(&rel, "overlay/%s/upper/%s", img->tree_id, p->names[i]) < 0)
		return log_oom();
	r = pod_mkdir(p, 0755, rel);
	if (r < 0)
		return r;
	rel = mfree(rel);
	if (asprintf(&rel, "overlay/%s/work/%s", img->tree_id, p->names[i]) < 0)
		return log_oom();
	return pod_mkdir(p, 0750, rel);
}

int pod_prepare(const struct stage0_ctx *ctx, const struct run_opts *o, const char *pod_json,
		struct pod_plan *p)
{
	_cleanup_free_ char *dir = NULL, *run = NULL;
	int r;

	r = uuid_new(p->uuid);
	if (r < 0)
		return log_error_errno(r, "cannot generate a UUID: %m");
	if (asprintf(&dir, "%s/pods/prepare", ctx->dir) < 0 ||
	    asprintf(&run, "%s/pods/run", ctx->dir) < 0 ||
	    asprintf(&p->path, "%s/%s", dir, p->uuid) < 0)
		return log_oom();
	r = mkdir_p(dir, 0700);
	if (r >= 0)
		r = mkdir_p(run, 0700);
	if (r < 0)
		return log_error_errno(r, "cannot create %s/pods: %m", ctx->dir);
	if (mkdir(p->path, 0750) < 0)
		return log_error_errno(errno, "cannot create %s: %m", p->path);
	p->created = true;
	p->lock_fd = open(p->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (p->lock_fd < 0 || flock(p->lock_fd, LOCK_EX | LOCK_NB) < 0)
		return log_error_errno(errno, "cannot lock %s: %m", p->path);

	p->overlay = !o->no_overlay && overlay_works(p);
	if (!o->no_overlay && !p->overlay)
		log_info("stage0: %s does not support overlayfs: copying the trees", ctx->dir);
	r = pod_mkdir(p, 0750, "appsinfo");
	if (r >= 0)
		r = prepare_stage1(p);
	for (size_t i = 0; r >= 0 && i < p->n_apps; i++)
		r = prepare_app(p, i);
	if (r >= 0)
		r = pod_write(p, "pod", pod_json, 0640);
	if (r >= 0)
		r = pod_write(p, "pod-created", "", 0640);
	if (r >= 0)
		r = pod_write(p, "pod.lck", "", 0600);
	if (r >= 0 && p->overlay)
		r = pod_write(p, "overlay-prepared", "", 0644);
	if (r < 0)
		return r;

	free(run);
	if (asprintf(&run, "%s/pods/run/%s", ctx->dir, p->uuid) < 0)
		return log_oom();
	if (rename(p->path, run) < 0)
		return log_error_errno(errno, "cannot move the pod to %s: %m", run);
	free(p->path);
	p->path = TAKE_PTR(run);
	return 0;
}

int pod_mount(const struct pod_plan *p)
{
	_cleanup_free_ char *target = pod_path(p, "stage1/rootfs");
	_cleanup_free_ char *lower = NULL, *upper = NULL, *work = NULL, *status = NULL;
	int r;

	if (!target)
		return log_oom();
	if (p->overlay) {
		upper = pod_path(p, "overlay/%s/upper", p->stage1.tree_id);
		work = pod_path(p, "overlay/%s/work", p->stage1.tree_id);
		if (!upper || !work || asprintf(&lower, "%s/rootfs", p->stage1.tree) < 0)
			return log_oom();
		r = mount_overlay(target, lower, upper, work);
		if (r < 0)
			return log_error_errno(r, "cannot mount the stage1 overlay on %s: %m",
					       target);
	}
	/* rkt touches rkt/status: a stage1 without it is refused. */
	status = pod_path(p, "stage1/rootfs/rkt/status");
	if (!status)
		return log_oom();
	if (utimensat(AT_FDCWD, status, NULL, 0) < 0)
		return log_error_errno(errno, "error setting up stage1: chtimes %s: %m", status);
	for (size_t i = 0; p->overlay && i < p->n_apps; i++) {
		free(lower);
		free(upper);
		free(work);
		free(target);
		r = app_dir(p, i);
		if (r < 0)
			return r;
		target = pod_path(p, "stage1/rootfs/opt/stage2/%s/rootfs", p->names[i]);
		upper = pod_path(p, "overlay/%s/upper/%s", p->apps[i].tree_id, p->names[i]);
		work = pod_path(p, "overlay/%s/work/%s", p->apps[i].tree_id, p->names[i]);
		if (!target || !upper || !work ||
		    asprintf(&lower, "%s/rootfs", p->apps[i].tree) < 0)
			return log_oom();
		r = mount_overlay(target, lower, upper, work);
		if (r < 0)
			return log_error_errno(r, "cannot mount the app overlay on %s: %m", target);
		r = app_mtab(p, p->names[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

void pod_plan_abort(struct pod_plan *p)
{
	if (p->created && p->path) {
		(void) umount_under(p->path);
		(void) rm_rf(p->path);
	}
	p->lock_fd = safe_close(p->lock_fd);
	store_image_done(&p->stage1);
	for (size_t i = 0; i < p->n_apps; i++) {
		if (p->apps)
			store_image_done(&p->apps[i]);
		if (p->names)
			free(p->names[i]);
	}
	free(p->apps);
	free(p->names);
	free(p->path);
	*p = (struct pod_plan){.lock_fd = -1};
}
