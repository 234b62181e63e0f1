/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cc/cleanup.h"
#include "isolator-parse.h"
#include "parse-common.h"
#include "validate.h"

static int event_handlers_parse(struct mctx *c, struct json_object *o, struct manifest_app *app)
{
	struct json_object *a;
	size_t n, old;
	int r;

	r = json_get_array(c, o, "eventHandlers", false, &a, &n);
	if (r < 0 || !a || n == 0)
		return r;
	app->event_handlers = calloc(n, sizeof(struct manifest_event_handler));
	if (!app->event_handlers)
		return -ENOMEM;
	old = mctx_push_key(c, "eventHandlers");
	for (size_t i = 0; i < n; i++) {
		struct manifest_event_handler *eh = &app->event_handlers[i];
		struct json_object *v = json_object_array_get_idx(a, i);
		size_t o2 = mctx_push_index(c, i);

		app->n_event_handlers++;
		r = json_value_object(c, v);
		if (r < 0)
			return r;
		r = json_get_string(c, v, "name", true, &eh->name);
		if (r < 0)
			return r;
		if (strcmp(eh->name, "pre-start") != 0 && strcmp(eh->name, "post-stop") != 0)
			return mctx_fail_key(c, "name", -EINVAL,
					     "%s is not an event handler name (\"pre-start\" or "
					     "\"post-stop\")",
					     mctx_quote(c, eh->name));
		for (size_t j = 0; j < i; j++)
			if (strcmp(app->event_handlers[j].name, eh->name) == 0)
				return mctx_fail_key(c, "name", -EINVAL,
						     "only one %s event handler is allowed",
						     mctx_quote(c, eh->name));
		r = json_get_strv(c, v, "exec", false, &eh->exec);
		if (r < 0)
			return r;
		mctx_pop(c, o2);
	}
	mctx_pop(c, old);
	return 0;
}

static int mount_points_parse(struct mctx *c, struct json_object *o, struct manifest_app *app)
{
	struct json_object *a;
	size_t n, old;
	int r;

	r = json_get_array(c, o, "mountPoints", false, &a, &n);
	if (r < 0 || !a || n == 0)
		return r;
	app->mount_points = calloc(n, sizeof(struct manifest_mount_point));
	if (!app->mount_points)
		return -ENOMEM;
	old = mctx_push_key(c, "mountPoints");
	for (size_t i = 0; i < n; i++) {
		struct manifest_mount_point *mp = &app->mount_points[i];
		struct json_object *v = json_object_array_get_idx(a, i);
		size_t o2 = mctx_push_index(c, i);

		app->n_mount_points++;
		r = json_value_object(c, v);
		if (r < 0)
			return r;
		r = ac_name_get(c, v, "name", true, &mp->name);
		if (r < 0)
			return r;
		r = json_get_string(c, v, "path", true, &mp->path);
		if (r < 0)
			return r;
		if (mp->path[0] == '\0')
			return mctx_fail_key(c, "path", -EINVAL, "must not be empty");
		r = json_get_bool(c, v, "readOnly", &mp->read_only);
		if (r < 0)
			return r;
		mctx_pop(c, o2);
	}
	mctx_pop(c, old);
	return 0;
}

static int ports_parse(struct mctx *c, struct json_object *o, struct manifest_app *app)
{
	struct json_object *a;
	size_t n, old;
	int r;

	r = json_get_array(c, o, "ports", false, &a, &n);
	if (r < 0 || !a || n == 0)
		return r;
	app->ports = calloc(n, sizeof(struct manifest_port));
	if (!app->ports)
		return -ENOMEM;
	old = mctx_push_key(c, "ports");
	for (size_t i = 0; i < n; i++) {
		size_t o2 = mctx_push_index(c, i);

		app->n_ports++;
		r = port_parse(c, json_object_array_get_idx(a, i), &app->ports[i]);
		if (r < 0)
			return r;
		mctx_pop(c, o2);
	}
	mctx_pop(c, old);
	return 0;
}

static int gids_parse(struct mctx *c, struct json_object *o, struct manifest_app *app)
{
	struct json_object *a;
	size_t n, old;
	int r;

	r = json_get_array(c, o, "supplementaryGIDs", false, &a, &n);
	if (r < 0 || !a || n == 0)
		return r;
	app->supplementary_gids = calloc(n, sizeof(uint32_t));
	if (!app->supplementary_gids)
		return -ENOMEM;
	old = mctx_push_key(c, "supplementaryGIDs");
	for (size_t i = 0; i < n; i++) {
		size_t o2 = mctx_push_index(c, i);
		int64_t x;

		r = json_value_int(c, json_object_array_get_idx(a, i), 0, UINT32_MAX, &x);
		if (r < 0)
			return r;
		app->supplementary_gids[app->n_supplementary_gids++] = (uint32_t) x;
		mctx_pop(c, o2);
	}
	mctx_pop(c, old);
	return 0;
}

static int app_parse_fields(struct mctx *c, struct json_object *o, struct manifest_app *app)
{
	int r;

	r = json_value_object(c, o);
	if (r < 0)
		return r;
	r = json_get_strv(c, o, "exec", false, &app->exec);
	if (r < 0)
		return r;
	r = json_get_string(c, o, "user", true, &app->user);
	if (r < 0)
		return r;
	if (app->user[0] == '\0')
		return mctx_fail_key(c, "user", -EINVAL, "is required");
	r = json_get_string(c, o, "group", true, &app->group);
	if (r < 0)
		return r;
	if (app->group[0] == '\0')
		return mctx_fail_key(c, "group", -EINVAL, "is required");
	r = gids_parse(c, o, app);
	if (r < 0)
		return r;
	r = json_get_string(c, o, "workingDirectory", false, &app->working_directory);
	if (r < 0)
		return r;
	if (app->working_directory && app->working_directory[0] == '\0') {
		free(app->working_directory);
		app->working_directory = NULL;
	}
	if (app->working_directory && app->working_directory[0] != '/')
		return mctx_fail_key(c, "workingDirectory", -EINVAL, "%s is not an absolute path",
				     mctx_quote(c, app->working_directory));
	r = kv_list_parse(c, o, "environment", KV_ENVIRONMENT, &app->environment);
	if (r < 0)
		return r;
	r = event_handlers_parse(c, o, app);
	if (r < 0)
		return r;
	r = isolators_parse(c, o, "isolators", &app->isolators);
	if (r < 0)
		return r;
	r = mount_points_parse(c, o, app);
	if (r < 0)
		return r;
	r = ports_parse(c, o, app);
	if (r < 0)
		return r;
	r = json_get_string_map(c, o, "userAnnotations", &app->user_annotations);
	if (r < 0)
		return r;
	return json_get_string_map(c, o, "userLabels", &app->user_labels);
}

static void app_freep(struct manifest_app **a)
{
	if (*a) {
		manifest_app_done(*a);
		free(*a);
	}
}

int app_parse(struct mctx *c, struct json_object *o, const char *key, struct manifest_app **ret)
{
	_cleanup_(app_freep) struct manifest_app *app = NULL;
	struct json_object *v = json_member(o, key);
	size_t old;
	int r;

	if (!v)
		return 0;
	app = calloc(1, sizeof(*app));
	if (!app)
		return -ENOMEM;
	old = mctx_push_key(c, key);
	r = app_parse_fields(c, v, app);
	if (r < 0)
		return r;
	mctx_pop(c, old);
	*ret = TAKE_PTR(app);
	return 0;
}
