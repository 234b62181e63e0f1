/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "isolator-parse.h"
#include "manifest/limits.h"
#include "manifest/pod-manifest.h"
#include "parse-common.h"
#include "validate.h"

static void volume_freep(struct manifest_volume **v)
{
	if (*v) {
		manifest_volume_done(*v);
		free(*v);
	}
}

static int mount_parse(struct mctx *c, struct json_object *v, struct pod_mount *mnt)
{
	_cleanup_(volume_freep) struct manifest_volume *vol = NULL;
	struct json_object *av;
	size_t old;
	int r;

	r = json_value_object(c, v);
	if (r < 0)
		return r;
	r = ac_name_get(c, v, "volume", true, &mnt->volume);
	if (r < 0)
		return r;
	r = json_get_string(c, v, "path", true, &mnt->path);
	if (r < 0)
		return r;
	if (mnt->path[0] == '\0')
		return mctx_fail_key(c, "path", -EINVAL, "must not be empty");
	av = json_member(v, "appVolume");
	if (!av)
		return 0;
	vol = calloc(1, sizeof(*vol));
	if (!vol)
		return -ENOMEM;
	old = mctx_push_key(c, "appVolume");
	r = volume_parse(c, av, vol);
	if (r < 0)
		return r;
	mctx_pop(c, old);
	mnt->app_volume = TAKE_PTR(vol);
	return 0;
}

static int mounts_parse(struct mctx *c, struct json_object *o, struct pod_app *pa)
{
	struct json_object *a;
	size_t n, old;
	int r;

	r = json_get_array(c, o, "mounts", false, &a, &n);
	if (r < 0 || !a || n == 0)
		return r;
	pa->mounts = calloc(n, sizeof(struct pod_mount));
	if (!pa->mounts)
		return -ENOMEM;
	old = mctx_push_key(c, "mounts");
	for (size_t i = 0; i < n; i++) {
		size_t o2 = mctx_push_index(c, i);

		pa->n_mounts++;
		r = mount_parse(c, json_object_array_get_idx(a, i), &pa->mounts[i]);
		if (r < 0)
			return r;
		mctx_pop(c, o2);
	}
	mctx_pop(c, old);
	return 0;
}

static int pod_image_parse(struct mctx *c, struct json_object *o, struct pod_image *img)
{
	struct json_object *v = json_member(o, "image");
	size_t old;
	int r;

	if (!v)
		return mctx_fail_key(c, "image", -EINVAL, "is required");
	old = mctx_push_key(c, "image");
	r = json_value_object(c, v);
	if (r < 0)
		return r;
	r = image_id_get(c, v, "id", true, &img->id);
	if (r < 0)
		return r;
	r = ac_identifier_get(c, v, "name", false, &img->name);
	if (r < 0)
		return r;
	r = kv_list_parse(c, v, "labels", KV_LABELS, &img->labels);
	if (r < 0)
		return r;
	mctx_pop(c, old);
	return 0;
}

static int pod_app_parse(struct mctx *c, struct json_object *v, const struct pod_app *prev,
			 size_t n_prev, struct pod_app *pa)
{
	int r;

	r = json_value_object(c, v);
	if (r < 0)
		return r;
	r = ac_name_get(c, v, "name", true, &pa->name);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n_prev; i++)
		if (strcmp(prev[i].name, pa->name) == 0)
			return mctx_fail_key(c, "name", -EINVAL, "duplicate app name %s",
					     mctx_quote(c, pa->name));
	r = pod_image_parse(c, v, &pa->image);
	if (r < 0)
		return r;
	r = app_parse(c, v, "app", &pa->app);
	if (r < 0)
		return r;
	r = json_get_bool(c, v, "readOnlyRootFS", &pa->read_only_rootfs);
	if (r < 0)
		return r;
	r = mounts_parse(c, v, pa);
	if (r < 0)
		return r;
	return kv_list_parse(c, v, "annotations", KV_ANNOTATIONS, &pa->annotations);
}

static int apps_parse(struct mctx *c, struct json_object *o, struct pod_manifest *m)
{
	struct json_object *a;
	size_t n, old;
	int r;

	r = json_get_array(c, o, "apps", true, &a, &n);
	if (r < 0 || n == 0)
		return r;
	m->apps = calloc(n, sizeof(struct pod_app));
	if (!m->apps)
		return -ENOMEM;
	old = mctx_push_key(c, "apps");
	for (size_t i = 0; i < n; i++) {
		size_t o2 = mctx_push_index(c, i);

		m->n_apps++;
		r = pod_app_parse(c, json_object_array_get_idx(a, i), m->apps, i, &m->apps[i]);
		if (r < 0)
			return r;
		mctx_pop(c, o2);
	}
	mctx_pop(c, old);
	return 0;
}

static int volumes_parse(struct mctx *c, struct json_object *o, struct pod_manifest *m)
{
	struct json_object *a;
	size_t n, old;
	int r;

	r = json_get_array(c, o, "volumes", false, &a, &n);
	if (r < 0 || !a || n == 0)
		return r;
	m->volumes = calloc(n, sizeof(struct manifest_volume));
	if (!m->volumes)
		return -ENOMEM;
	old = mctx_push_key(c, "volumes");
	for (size_t i = 0; i < n; i++) {
		size_t o2 = mctx_push_index(c, i);

		m->n_volumes++;
		r = volume_parse(c, json_object_array_get_idx(a, i), &m->volumes[i]);
		if (r < 0)
			return r;
		for (size_t j = 0; j < i; j++)
			if (strcmp(m->volumes[j].name, m->volumes[i].name) == 0)
				return mctx_fail_key(c, "name", -EINVAL, "duplicate volume name %s",
						     mctx_quote(c, m->volumes[i].name));
		mctx_pop(c, o2);
	}
	mctx_pop(c, old);
	return 0;
}

static int exposed_port_parse(struct mctx *c, struct json_object *v, struct pod_exposed_port *p)
{
	struct json_object *pp;
	int64_t x = 0;
	size_t old;
	int r;

	r = json_value_object(c, v);
	if (r < 0)
		return r;
	r = ac_name_get(c, v, "name", true, &p->name);
	if (r < 0)
		return r;
	r = json_get_int(c, v, "hostPort", 0, 65535, &x);
	if (r < 0)
		return r;
	if (r == 0)
		return mctx_fail_key(c, "hostPort", -EINVAL, "is required");
	p->host_port = (uint16_t) x;
	r = json_get_string(c, v, "hostIP", false, &p->host_ip);
	if (r < 0)
		return r;
	if (p->host_ip && p->host_ip[0] == '\0') {
		free(p->host_ip);
		p->host_ip = NULL;
	}
	if (p->host_ip && !ip_address_is_valid(p->host_ip))
		return mctx_fail_key(c, "hostIP", -EINVAL, "%s is not an IP address",
				     mctx_quote(c, p->host_ip));
	pp = json_member(v, "podPort");
	if (!pp)
		return 0;
	p->pod_port = calloc(1, sizeof(struct manifest_port));
	if (!p->pod_port)
		return -ENOMEM;
	old = mctx_push_key(c, "podPort");
	r = port_parse(c, pp, p->pod_port);
	if (r < 0)
		return r;
	mctx_pop(c, old);
	return 0;
}

static int exposed_ports_parse(struct mctx *c, struct json_object *o, struct pod_manifest *m)
{
	struct json_object *a;
	size_t n, old;
	int r;

	r = json_get_array(c, o, "ports", false, &a, &n);
	if (r < 0 || !a || n == 0)
		return r;
	m->ports = calloc(n, sizeof(struct pod_exposed_port));
	if (!m->ports)
		return -ENOMEM;
	old = mctx_push_key(c, "ports");
	for (size_t i = 0; i < n; i++) {
		size_t o2 = mctx_push_index(c, i);

		m->n_ports++;
		r = exposed_port_parse(c, json_object_array_get_idx(a, i), &m->ports[i]);
		if (r < 0)
			return r;
		mctx_pop(c, o2);
	}
	mctx_pop(c, old);
	return 0;
}

static int pod_manifest_parse_object(struct mctx *c, struct json_object *o, struct pod_manifest *m)
{
	int r;

	r = ac_kind_check(c, o, "PodManifest", &m->ac_kind);
	if (r < 0)
		return r;
	r = ac_version_get(c, o, &m->ac_version);
	if (r < 0)
		return r;
	r = apps_parse(c, o, m);
	if (r < 0)
		return r;
	r = volumes_parse(c, o, m);
	if (r < 0)
		return r;
	r = isolators_parse(c, o, "isolators", &m->isolators);
	if (r < 0)
		return r;
	r = kv_list_parse(c, o, "annotations", KV_ANNOTATIONS, &m->annotations);
	if (r < 0)
		return r;
	r = exposed_ports_parse(c, o, m);
	if (r < 0)
		return r;
	r = json_get_string_map(c, o, "userAnnotations", &m->user_annotations);
	if (r < 0)
		return r;
	return json_get_string_map(c, o, "userLabels", &m->user_labels);
}

int pod_manifest_parse(const char *buf, size_t len, struct pod_manifest **ret,
		       struct manifest_error *reterr_error)
{
	_cleanup_(pod_manifest_freep) struct pod_manifest *m = NULL;
	_cleanup_(json_object_putp) struct json_object *o = NULL;
	struct manifest_error local;
	struct mctx c;
	int r;

	assert_return(buf || len == 0, -EINVAL);
	assert_return(ret, -EINVAL);

	mctx_init(&c, reterr_error ?: &local);
	r = json_parse_document(&c, buf ?: "", len, &o);
	if (r < 0)
		return r;
	m = calloc(1, sizeof(*m));
	if (!m)
		return mctx_fail(&c, -ENOMEM, "out of memory");
	r = pod_manifest_parse_object(&c, o, m);
	if (r == -ENOMEM)
		return mctx_fail(&c, r, "out of memory");
	if (r < 0)
		return r;
	*ret = TAKE_PTR(m);
	return 0;
}

int pod_manifest_load(const char *path, struct pod_manifest **ret,
		      struct manifest_error *reterr_error)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int r;

	assert_return(path && ret, -EINVAL);
	r = read_full_file(path, MANIFEST_SIZE_MAX, &buf, &len);
	if (r < 0)
		return r;
	return pod_manifest_parse(buf, len, ret, reterr_error);
}

static void pod_app_done(struct pod_app *pa)
{
	free(pa->name);
	free(pa->image.id);
	free(pa->image.name);
	manifest_kv_list_done(&pa->image.labels);
	if (pa->app) {
		manifest_app_done(pa->app);
		free(pa->app);
	}
	for (size_t i = 0; i < pa->n_mounts; i++) {
		free(pa->mounts[i].volume);
		free(pa->mounts[i].path);
		volume_freep(&pa->mounts[i].app_volume);
	}
	free(pa->mounts);
	manifest_kv_list_done(&pa->annotations);
}

struct pod_manifest *pod_manifest_free(struct pod_manifest *m)
{
	if (!m)
		return NULL;
	free(m->ac_version);
	free(m->ac_kind);
	for (size_t i = 0; i < m->n_apps; i++)
		pod_app_done(&m->apps[i]);
	free(m->apps);
	for (size_t i = 0; i < m->n_volumes; i++)
		manifest_volume_done(&m->volumes[i]);
	free(m->volumes);
	manifest_isolator_list_done(&m->isolators);
	manifest_kv_list_done(&m->annotations);
	for (size_t i = 0; i < m->n_ports; i++) {
		free(m->ports[i].name);
		free(m->ports[i].host_ip);
		if (m->ports[i].pod_port) {
			manifest_port_done(m->ports[i].pod_port);
			free(m->ports[i].pod_port);
		}
	}
	free(m->ports);
	manifest_kv_list_done(&m->user_annotations);
	manifest_kv_list_done(&m->user_labels);
	free(m);
	return NULL;
}
