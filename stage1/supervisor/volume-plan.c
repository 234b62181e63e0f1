/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cc/cleanup.h"
#include "volume-plan.h"

#define VOLUME_DEFAULT_MODE 0755u

int volume_path_normalize(const char *path, char **ret)
{
	_cleanup_free_ char *out = NULL;
	size_t len = 0;
	const char *p;

	assert_return(path && ret, -EINVAL);
	if (path[0] != '/')
		return -EINVAL;
	out = malloc(strlen(path) + 2);
	if (!out)
		return -ENOMEM;
	for (p = path; *p;) {
		size_t n;

		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (n == 0 || (n == 1 && p[0] == '.')) {
			p += n;
			continue;
		}
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (len > 0 && out[len] != '/')
				len--;
			/* len is now at the '/' before the last component (or 0). */
			out[len] = '\0';
			p += n;
			continue;
		}
		out[len++] = '/';
		memcpy(out + len, p, n);
		len += n;
		out[len] = '\0';
		p += n;
	}
	if (len == 0)
		out[len++] = '/';
	out[len] = '\0';
	*ret = TAKE_PTR(out);
	return 0;
}

bool volume_paths_overlap(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	const char *shorter = la <= lb ? a : b, *longer = la <= lb ? b : a;
	size_t ls = MIN(la, lb);

	if (strcmp(shorter, "/") == 0)
		return true;
	return strncmp(shorter, longer, ls) == 0 && (longer[ls] == '\0' || longer[ls] == '/');
}

void volume_plan_done(struct volume_plan *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_mounts; i++) {
		free(p->mounts[i].app);
		free(p->mounts[i].target);
		free(p->mounts[i].volume);
		free(p->mounts[i].source);
	}
	free(p->mounts);
	for (size_t i = 0; i < p->n_empties; i++)
		free(p->empties[i].name);
	free(p->empties);
	*p = (struct volume_plan){};
}

static const struct manifest_volume *pod_volume_by_name(const struct pod_manifest *pod,
							const char *name)
{
	for (size_t i = 0; i < pod->n_volumes; i++)
		if (strcmp(pod->volumes[i].name, name) == 0)
			return &pod->volumes[i];
	return NULL;
}

static int plan_add_empty(struct volume_plan *plan, const char *name, uint32_t mode, uint32_t uid,
			  uint32_t gid)
{
	struct volume_empty *v;

	for (size_t i = 0; i < plan->n_empties; i++)
		if (strcmp(plan->empties[i].name, name) == 0)
			return 0;
	v = reallocarray(plan->empties, plan->n_empties + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	plan->empties = v;
	v = &v[plan->n_empties];
	*v = (struct volume_empty){.mode = mode, .uid = uid, .gid = gid};
	v->name = strdup(name);
	if (!v->name)
		return -ENOMEM;
	plan->n_empties++;
	return 0;
}

/* A volume's read-only flag, or the app mount point's when the volume leaves it unset. */
static bool mount_read_only(const struct manifest_volume *vol, const struct manifest_app *app,
			    const struct pod_app *pa, const struct pod_mount *pm)
{
	if (vol->read_only != MANIFEST_UNSET)
		return vol->read_only == MANIFEST_TRUE;
	for (size_t i = 0; app && i < app->n_mount_points; i++) {
		const struct manifest_mount_point *mp = &app->mount_points[i];

		if (pm ? pod_app_find_mount(pa, mp) == pm : strcmp(mp->name, vol->name) == 0)
			return mp->read_only;
	}
	return false;
}

struct plan_ctx {
	struct volume_plan *plan;
	const struct pod_app *pa;
	struct cc_error *err;
};

static int plan_add_mount(struct plan_ctx *c, const char *path, const struct manifest_volume *vol,
			  bool read_only)
{
	const char *app = c->pa->name;
	struct volume_plan *plan = c->plan;
	_cleanup_free_ char *target = NULL;
	struct volume_mount *m;
	int r;

	r = volume_path_normalize(path, &target);
	if (r == -EINVAL)
		return cc_error_set(c->err, r,
				    "app %s: mount path \"%s\" of volume %s is not absolute", app,
				    path, vol->name);
	if (r < 0)
		return r;
	if (strcmp(target, "/") == 0)
		return cc_error_set(c->err, EINVAL, "app %s: volume %s cannot be mounted on \"/\"",
				    app, vol->name);
	for (size_t i = 0; i < plan->n_mounts; i++) {
		const struct volume_mount *o = &plan->mounts[i];

		if (strcmp(o->app, app) == 0 && volume_paths_overlap(o->target, target))
			return cc_error_set(c->err, EINVAL,
					    "app %s: mount targets overlap: %s (volume %s) and %s "
					    "(volume %s)",
					    app, o->target, o->volume, target, vol->name);
	}

	m = reallocarray(plan->mounts, plan->n_mounts + 1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	plan->mounts = m;
	m = &m[plan->n_mounts];
	*m = (struct volume_mount){
		.read_only = read_only,
		.recursive = vol->recursive != MANIFEST_FALSE,
		.empty = vol->kind == MANIFEST_VOLUME_EMPTY,
	};
	plan->n_mounts++;
	m->app = strdup(app);
	m->volume = strdup(vol->name);
	m->target = TAKE_PTR(target);
	if (!m->app || !m->volume)
		return -ENOMEM;

	if (m->empty)
		return plan_add_empty(plan, vol->name, vol->mode, vol->uid, vol->gid);

	struct stat st;

	if (!vol->source || vol->source[0] != '/')
		return cc_error_set(c->err, EINVAL,
				    "volume %s: host source is not an absolute path", vol->name);
	if (stat(vol->source, &st) < 0)
		return cc_error_set(c->err, errno, "volume %s: host source %s: %m", vol->name,
				    vol->source);
	m->single_file = !S_ISDIR(st.st_mode);
	m->source = strdup(vol->source);
	return m->source ? 0 : -ENOMEM;
}

static int plan_app(struct plan_ctx *c, const struct pod_manifest *pod,
		    const struct manifest_app *app, struct manifest_volume *implicit,
		    struct cc_warnings *warn)
{
	const struct pod_app *pa = c->pa;
	int r;

	for (size_t i = 0; i < pa->n_mounts; i++) {
		const struct pod_mount *pm = &pa->mounts[i];
		const struct manifest_volume *vol = pod_manifest_find_volume(pod, pm);

		if (!vol)
			return cc_error_set(c->err, ENOENT,
					    "app %s: mount of unknown volume \"%s\" at %s",
					    pa->name, pm->volume, pm->path);
		r = plan_add_mount(c, pm->path, vol, mount_read_only(vol, app, pa, pm));
		if (r < 0)
			return r;
	}

	for (size_t i = 0; app && i < app->n_mount_points; i++) {
		const struct manifest_mount_point *mp = &app->mount_points[i];
		const struct manifest_volume *vol;

		if (pod_app_find_mount(pa, mp))
			continue;
		vol = pod_volume_by_name(pod, mp->name);
		if (!vol) {
			(void) cc_warnings_add(
				warn,
				"app %s: no volume for mount point %s (%s): using an implicit "
				"empty "
				"volume, removed with the pod",
				pa->name, mp->name, mp->path);
			implicit->name = mp->name;
			vol = implicit;
		}
		r = plan_add_mount(c, mp->path, vol,
				   vol->read_only != MANIFEST_UNSET
					   ? vol->read_only == MANIFEST_TRUE
					   : mp->read_only);
		if (r < 0)
			return r;
	}
	return 0;
}

int volume_plan_build(const struct pod_manifest *pod, const struct image_manifest *const *images,
		      struct volume_plan *ret, struct cc_warnings *warn,
		      struct cc_error *reterr_error)
{
	_cleanup_(volume_plan_done) struct volume_plan plan = {};
	int r;

	assert_return(pod && ret, -EINVAL);
	for (size_t i = 0; i < pod->n_apps; i++) {
		const struct pod_app *pa = &pod->apps[i];
		const struct manifest_app *app =
			pod_app_effective_app(pa, images ? images[i] : NULL);
		struct manifest_volume implicit = {
			.kind = MANIFEST_VOLUME_EMPTY,
			.read_only = MANIFEST_UNSET,
			.recursive = MANIFEST_UNSET,
			.mode = VOLUME_DEFAULT_MODE,
		};
		struct plan_ctx c = {.plan = &plan, .pa = pa, .err = reterr_error};

		r = plan_app(&c, pod, app, &implicit, warn);
		if (r == -ENOMEM)
			return cc_error_set(reterr_error, r, "out of memory");
		if (r < 0)
			return r;
	}
	*ret = plan;
	plan = (struct volume_plan){};
	return 0;
}
