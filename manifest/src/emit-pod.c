/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <json-c/json.h>

#include "cc/cleanup.h"
#include "emit.h"
#include "json-util.h"
#include "manifest/pod-manifest.h"

static int add_tristate(struct json_object *o, const char *key, enum manifest_tristate t)
{
	if (t == MANIFEST_UNSET)
		return 0;
	return emit_add(o, key, json_object_new_boolean(t == MANIFEST_TRUE));
}

static struct json_object *volume_new(const struct manifest_volume *v)
{
	struct json_object *o = json_object_new_object();
	int r;

	if (!o)
		return NULL;
	r = emit_add_str(o, "name", v->name);
	if (r >= 0)
		r = emit_add_str(o, "kind", manifest_volume_kind_to_string(v->kind));
	if (r >= 0)
		r = emit_add_str(o, "source", v->kind == MANIFEST_VOLUME_HOST ? v->source : NULL);
	if (r >= 0)
		r = add_tristate(o, "readOnly", v->read_only);
	if (r >= 0)
		r = add_tristate(o, "recursive", v->recursive);
	if (r >= 0 && v->kind == MANIFEST_VOLUME_EMPTY) {
		r = emit_add_str(o, "mode", v->mode_str);
		if (r >= 0)
			r = emit_add(o, "uid", json_object_new_int64(v->uid));
		if (r >= 0)
			r = emit_add(o, "gid", json_object_new_int64(v->gid));
	}
	if (r < 0) {
		(void) json_object_put(o);
		return NULL;
	}
	return o;
}

static struct json_object *pod_app_new(const struct pod_app *pa)
{
	struct json_object *o = json_object_new_object(), *img = NULL, *a;
	int r;

	if (!o)
		return NULL;
	r = emit_add_str(o, "name", pa->name);
	if (r >= 0)
		r = emit_add(o, "image", img = json_object_new_object());
	if (r >= 0)
		r = emit_add_str(img, "id", pa->image.id);
	if (r >= 0)
		r = emit_add_str(img, "name", pa->image.name);
	if (r >= 0 && pa->image.labels.n > 0)
		r = emit_add(img, "labels", emit_kv_list_new(&pa->image.labels));
	if (r >= 0 && pa->app)
		r = emit_add(o, "app", emit_app_new(pa->app));
	if (r >= 0)
		r = emit_add(o, "readOnlyRootFS", json_object_new_boolean(pa->read_only_rootfs));
	if (r >= 0 && pa->n_mounts > 0) {
		r = emit_add(o, "mounts", a = json_object_new_array());
		for (size_t i = 0; r >= 0 && i < pa->n_mounts; i++) {
			struct json_object *m = json_object_new_object();

			r = emit_push(a, m);
			if (r >= 0)
				r = emit_add_str(m, "volume", pa->mounts[i].volume);
			if (r >= 0)
				r = emit_add_str(m, "path", pa->mounts[i].path);
			if (r >= 0 && pa->mounts[i].app_volume)
				r = emit_add(m, "appVolume", volume_new(pa->mounts[i].app_volume));
		}
	}
	if (r >= 0 && pa->annotations.n > 0)
		r = emit_add(o, "annotations", emit_kv_list_new(&pa->annotations));
	if (r < 0) {
		(void) json_object_put(o);
		return NULL;
	}
	return o;
}

static struct json_object *exposed_port_new(const struct pod_exposed_port *p)
{
	struct json_object *o = json_object_new_object();
	int r;

	if (!o)
		return NULL;
	r = emit_add_str(o, "name", p->name);
	if (r >= 0)
		r = emit_add(o, "hostPort", json_object_new_int(p->host_port));
	if (r >= 0)
		r = emit_add_str(o, "hostIP", p->host_ip);
	if (r >= 0 && p->pod_port)
		r = emit_add(o, "podPort", emit_port_new(p->pod_port));
	if (r < 0) {
		(void) json_object_put(o);
		return NULL;
	}
	return o;
}

int pod_manifest_to_json(const struct pod_manifest *m, char **ret)
{
	_cleanup_(json_object_putp) struct json_object *o = json_object_new_object();
	struct json_object *a;
	int r;

	assert_return(m && ret, -EINVAL);
	if (!o)
		return -ENOMEM;
	r = emit_add_str(o, "acVersion", m->ac_version);
	if (r >= 0)
		r = emit_add_str(o, "acKind", m->ac_kind);
	if (r >= 0)
		r = emit_add(o, "apps", a = json_object_new_array());
	for (size_t i = 0; r >= 0 && i < m->n_apps; i++)
		r = emit_push(a, pod_app_new(&m->apps[i]));
	if (r >= 0)
		r = emit_add(o, "volumes", a = json_object_new_array());
	for (size_t i = 0; r >= 0 && i < m->n_volumes; i++)
		r = emit_push(a, volume_new(&m->volumes[i]));
	if (r >= 0)
		r = emit_add(o, "isolators", emit_isolators_new(&m->isolators));
	if (r >= 0)
		r = emit_add(o, "annotations", emit_kv_list_new(&m->annotations));
	if (r >= 0)
		r = emit_add(o, "ports", a = json_object_new_array());
	for (size_t i = 0; r >= 0 && i < m->n_ports; i++)
		r = emit_push(a, exposed_port_new(&m->ports[i]));
	if (r >= 0 && m->user_annotations.n > 0)
		r = emit_add(o, "userAnnotations", emit_map_new(&m->user_annotations));
	if (r >= 0 && m->user_labels.n > 0)
		r = emit_add(o, "userLabels", emit_map_new(&m->user_labels));
	if (r < 0)
		return r;
	return emit_to_string(o, ret);
}
