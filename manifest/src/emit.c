/* SPDX-License-Identifier: Apache-2.0 */
/* Normalized JSON output: fixed key order, defaults spelled out, absent optionals omitted. */
#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "cc/cleanup.h"
#include "emit.h"
#include "json-util.h"
#include "manifest/image-manifest.h"
#include "manifest/pod-manifest.h"

/* Each helper returns 0 or -ENOMEM; "o" owns whatever was added before a failure. */
int emit_add(struct json_object *o, const char *key, struct json_object *v)
{
	if (!v)
		return -ENOMEM;
	if (json_object_object_add(o, key, v) < 0) {
		(void) json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

int emit_push(struct json_object *a, struct json_object *v)
{
	if (!v)
		return -ENOMEM;
	if (json_object_array_add(a, v) < 0) {
		(void) json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

int emit_add_str(struct json_object *o, const char *key, const char *s)
{
	return s ? emit_add(o, key, json_object_new_string(s)) : 0;
}

static struct json_object *strv_new(char *const *v, size_t n)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < n; i++)
		if (emit_push(a, json_object_new_string(v[i])) < 0) {
			(void) json_object_put(a);
			return NULL;
		}
	return a;
}

struct json_object *emit_kv_list_new(const struct manifest_kv_list *l)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < l->n; i++) {
		struct json_object *kv = json_object_new_object();

		if (emit_push(a, kv) < 0 || emit_add_str(kv, "name", l->items[i].name) < 0 ||
		    emit_add_str(kv, "value", l->items[i].value) < 0) {
			(void) json_object_put(a);
			return NULL;
		}
	}
	return a;
}

struct json_object *emit_map_new(const struct manifest_kv_list *l)
{
	struct json_object *o = json_object_new_object();

	for (size_t i = 0; o && i < l->n; i++)
		if (emit_add_str(o, l->items[i].name, l->items[i].value) < 0) {
			(void) json_object_put(o);
			return NULL;
		}
	return o;
}

struct json_object *emit_isolators_new(const struct manifest_isolator_list *l)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < l->n; i++) {
		struct json_object *iso = json_object_new_object();

		if (emit_push(a, iso) < 0 || emit_add_str(iso, "name", l->items[i].name) < 0 ||
		    emit_add(iso, "value", json_tokener_parse(l->items[i].raw_json)) < 0) {
			(void) json_object_put(a);
			return NULL;
		}
	}
	return a;
}

struct json_object *emit_port_new(const struct manifest_port *p)
{
	struct json_object *o = json_object_new_object();

	if (!o || emit_add_str(o, "name", p->name) < 0 ||
	    emit_add_str(o, "protocol", p->protocol) < 0 ||
	    emit_add(o, "port", json_object_new_int(p->port)) < 0 ||
	    emit_add(o, "count", json_object_new_int64(p->count)) < 0 ||
	    emit_add(o, "socketActivated", json_object_new_boolean(p->socket_activated)) < 0) {
		(void) json_object_put(o);
		return NULL;
	}
	return o;
}

static int app_add_lists(struct json_object *o, const struct manifest_app *app)
{
	struct json_object *a;
	int r = 0;

	if (app->n_event_handlers > 0) {
		r = emit_add(o, "eventHandlers", a = json_object_new_array());
		for (size_t i = 0; r >= 0 && i < app->n_event_handlers; i++) {
			struct json_object *eh = json_object_new_object();
			const struct manifest_event_handler *e = &app->event_handlers[i];

			r = emit_push(a, eh);
			if (r >= 0)
				r = emit_add_str(eh, "name", e->name);
			if (r >= 0)
				r = emit_add(eh, "exec", strv_new(e->exec.items, e->exec.n));
		}
	}
	if (r >= 0 && app->n_mount_points > 0) {
		r = emit_add(o, "mountPoints", a = json_object_new_array());
		for (size_t i = 0; r >= 0 && i < app->n_mount_points; i++) {
			struct json_object *mp = json_object_new_object();

			r = emit_push(a, mp);
			if (r >= 0)
				r = emit_add_str(mp, "name", app->mount_points[i].name);
			if (r >= 0)
				r = emit_add_str(mp, "path", app->mount_points[i].path);
			if (r >= 0)
				r = emit_add(
					mp, "readOnly",
					json_object_new_boolean(app->mount_points[i].read_only));
		}
	}
	if (r >= 0 && app->n_ports > 0) {
		r = emit_add(o, "ports", a = json_object_new_array());
		for (size_t i = 0; r >= 0 && i < app->n_ports; i++)
			r = emit_push(a, emit_port_new(&app->ports[i]));
	}
	return r;
}

struct json_object *emit_app_new(const struct manifest_app *app)
{
	struct json_object *o = json_object_new_object(), *gids;
	int r;

	if (!o)
		return NULL;
	r = emit_add(o, "exec", strv_new(app->exec.items, app->exec.n));
	if (r >= 0)
		r = emit_add_str(o, "user", app->user);
	if (r >= 0)
		r = emit_add_str(o, "group", app->group);
	if (r >= 0 && app->n_supplementary_gids > 0) {
		r = emit_add(o, "supplementaryGIDs", gids = json_object_new_array());
		for (size_t i = 0; r >= 0 && i < app->n_supplementary_gids; i++)
			r = emit_push(gids, json_object_new_int64(app->supplementary_gids[i]));
	}
	if (r >= 0)
		r = emit_add_str(o, "workingDirectory", app->working_directory ?: "/");
	if (r >= 0 && app->environment.n > 0)
		r = emit_add(o, "environment", emit_kv_list_new(&app->environment));
	if (r >= 0 && app->isolators.n > 0)
		r = emit_add(o, "isolators", emit_isolators_new(&app->isolators));
	if (r >= 0)
		r = app_add_lists(o, app);
	if (r >= 0 && app->user_annotations.n > 0)
		r = emit_add(o, "userAnnotations", emit_map_new(&app->user_annotations));
	if (r >= 0 && app->user_labels.n > 0)
		r = emit_add(o, "userLabels", emit_map_new(&app->user_labels));
	if (r < 0) {
		(void) json_object_put(o);
		return NULL;
	}
	return o;
}

int emit_to_string(struct json_object *o, char **ret)
{
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
								  JSON_C_TO_STRING_SPACED |
								  JSON_C_TO_STRING_NOSLASHESCAPE);
	char *d;

	if (!s)
		return -ENOMEM;
	d = strdup(s);
	if (!d)
		return -ENOMEM;
	*ret = d;
	return 0;
}

int image_manifest_to_json(const struct image_manifest *m, char **ret)
{
	_cleanup_(json_object_putp) struct json_object *o = json_object_new_object();
	int r;

	assert_return(m && ret, -EINVAL);
	if (!o)
		return -ENOMEM;
	r = emit_add_str(o, "acKind", m->ac_kind);
	if (r >= 0)
		r = emit_add_str(o, "acVersion", m->ac_version);
	if (r >= 0)
		r = emit_add_str(o, "name", m->name);
	if (r >= 0 && m->labels.n > 0)
		r = emit_add(o, "labels", emit_kv_list_new(&m->labels));
	if (r >= 0 && m->app)
		r = emit_add(o, "app", emit_app_new(m->app));
	if (r >= 0 && m->annotations.n > 0)
		r = emit_add(o, "annotations", emit_kv_list_new(&m->annotations));
	if (r >= 0 && m->n_dependencies > 0) {
		struct json_object *a;

		r = emit_add(o, "dependencies", a = json_object_new_array());
		for (size_t i = 0; r >= 0 && i < m->n_dependencies; i++) {
			const struct manifest_dependency *d = &m->dependencies[i];
			struct json_object *dep = json_object_new_object();

			r = emit_push(a, dep);
			if (r >= 0)
				r = emit_add_str(dep, "imageName", d->image_name);
			if (r >= 0)
				r = emit_add_str(dep, "imageID", d->image_id);
			if (r >= 0 && d->labels.n > 0)
				r = emit_add(dep, "labels", emit_kv_list_new(&d->labels));
			if (r >= 0 && d->size > 0)
				r = emit_add(dep, "size", json_object_new_int64((int64_t) d->size));
		}
	}
	if (r >= 0 && m->path_whitelist.n > 0)
		r = emit_add(o, "pathWhitelist",
			     strv_new(m->path_whitelist.items, m->path_whitelist.n));
	if (r < 0)
		return r;
	return emit_to_string(o, ret);
}
