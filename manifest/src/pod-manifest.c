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

static int mount_parse(struct mctx *c, struct json_object *v, void *items, size_t i,
		       _unused_ void *userdata)
{
	_cleanup_(volume_freep) struct manifest_volume *vol = NULL;
	struct pod_mount *mnt = &((struct pod_mount *) items)[i];
	struct json_object *av;
	size_t old;
	int r;

	r = json_value_object(c, v);
	if (r < 0)
		return r;
	r = ac_name_get(c, v, "volume", true, &mnt->volume);
	if (r < 0)
		return r;
	r = json_get_nonempty_string(c, v, "path", &mnt->path);
	if (r < 0)
		return r;
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

static int pod_app_parse(struct mctx *c, struct json_object *v, void *items, size_t n_prev,
			 _unused_ void *userdata)
{
	struct pod_app *prev = items, *pa = &prev[n_prev];
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
	r = JSON_PARSE_ARRAY(c, v, "mounts", false, pa->mounts, pa->n_mounts, mount_parse, NULL);
	if (r < 0)
		return r;
	return kv_list_parse(c, v, "annotations", KV_ANNOTATIONS, &pa->annotations);
}

static int pod_volume_parse(struct mctx *c, struct json_object *v, void *items, size_t i,
			    _unused_ void *userdata)
{
	struct manifest_volume *vols = items;
	int r;

	r = volume_parse(c, v, &vols[i]);
	if (r < 0)
		return r;
	for (size_t j = 0; j < i; j++)
		if (strcmp(vols[j].name, vols[i].name) == 0)
			return mctx_fail_key(c, "name", -EINVAL, "duplicate volume name %s",
					     mctx_quote(c, vols[i].name));
	return 0;
}

static int exposed_port_parse(struct mctx *c, struct json_object *v, void *items, size_t i,
			      _unused_ void *userdata)
{
	struct pod_exposed_port *p = &((struct pod_exposed_port *) items)[i];
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

static int pod_manifest_parse_object(struct mctx *c, struct json_object *o, void *mv)
{
	struct pod_manifest *m = mv;
	int r;

	r = ac_kind_check(c, o, "PodManifest", &m->ac_kind);
	if (r < 0)
		return r;
	r = ac_version_get(c, o, &m->ac_version);
	if (r < 0)
		return r;
	r = JSON_PARSE_ARRAY(c, o, "apps", true, m->apps, m->n_apps, pod_app_parse, NULL);
	if (r < 0)
		return r;
	r = JSON_PARSE_ARRAY(c, o, "volumes", false, m->volumes, m->n_volumes, pod_volume_parse,
			     NULL);
	if (r < 0)
		return r;
	r = isolators_parse(c, o, "isolators", &m->isolators);
	if (r < 0)
		return r;
	r = kv_list_parse(c, o, "annotations", KV_ANNOTATIONS, &m->annotations);
	if (r < 0)
		return r;
	r = JSON_PARSE_ARRAY(c, o, "ports", false, m->ports, m->n_ports, exposed_port_parse, NULL);
	if (r < 0)
		return r;
	r = json_get_string_map(c, o, "userAnnotations", &m->user_annotations);
	if (r < 0)
		return r;
	return json_get_string_map(c, o, "userLabels", &m->user_labels);
}

static void pod_manifest_free_any(void *m)
{
	pod_manifest_free(m);
}

static const struct manifest_doc_kind pod_manifest_kind = {
	.size = sizeof(struct pod_manifest),
	.parse_object = pod_manifest_parse_object,
	.free = pod_manifest_free_any,
};

int pod_manifest_parse(const char *buf, size_t len, struct pod_manifest **ret,
		       struct cc_error *reterr_error)
{
	void *m;
	int r;

	assert_return(ret, -EINVAL);
	r = manifest_doc_parse(&pod_manifest_kind, buf, len, &m, reterr_error);
	if (r >= 0)
		*ret = m;
	return r;
}

int pod_manifest_load(const char *path, struct pod_manifest **ret, struct cc_error *reterr_error)
{
	void *m;
	int r;

	assert_return(path && ret, -EINVAL);
	r = manifest_doc_load(&pod_manifest_kind, path, &m, reterr_error);
	if (r >= 0)
		*ret = m;
	return r;
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
