/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cc/cleanup.h"
#include "isolator-parse.h"
#include "parse-common.h"
#include "validate.h"

static int event_handler_parse(struct mctx *c, struct json_object *v, void *items, size_t i,
			       _unused_ void *userdata)
{
	struct manifest_event_handler *all = items, *eh = &all[i];
	int r;

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
		if (strcmp(all[j].name, eh->name) == 0)
			return mctx_fail_key(c, "name", -EINVAL,
					     "only one %s event handler is allowed",
					     mctx_quote(c, eh->name));
	return json_get_strv(c, v, "exec", false, &eh->exec);
}

static int mount_point_parse(struct mctx *c, struct json_object *v, void *items, size_t i,
			     _unused_ void *userdata)
{
	struct manifest_mount_point *mp = &((struct manifest_mount_point *) items)[i];
	int r;

	r = json_value_object(c, v);
	if (r < 0)
		return r;
	r = ac_name_get(c, v, "name", true, &mp->name);
	if (r < 0)
		return r;
	r = json_get_nonempty_string(c, v, "path", &mp->path);
	if (r < 0)
		return r;
	return json_get_bool(c, v, "readOnly", &mp->read_only);
}

static int port_elem_parse(struct mctx *c, struct json_object *v, void *items, size_t i,
			   _unused_ void *userdata)
{
	return port_parse(c, v, &((struct manifest_port *) items)[i]);
}

static int gid_parse(struct mctx *c, struct json_object *v, void *items, size_t i,
		     _unused_ void *userdata)
{
	int64_t x;
	int r;

	r = json_value_int(c, v, 0, UINT32_MAX, &x);
	if (r < 0)
		return r;
	((uint32_t *) items)[i] = (uint32_t) x;
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
	r = JSON_PARSE_ARRAY(c, o, "supplementaryGIDs", false, app->supplementary_gids,
			     app->n_supplementary_gids, gid_parse, NULL);
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
	r = JSON_PARSE_ARRAY(c, o, "eventHandlers", false, app->event_handlers,
			     app->n_event_handlers, event_handler_parse, NULL);
	if (r < 0)
		return r;
	r = isolators_parse(c, o, "isolators", &app->isolators);
	if (r < 0)
		return r;
	r = JSON_PARSE_ARRAY(c, o, "mountPoints", false, app->mount_points, app->n_mount_points,
			     mount_point_parse, NULL);
	if (r < 0)
		return r;
	r = JSON_PARSE_ARRAY(c, o, "ports", false, app->ports, app->n_ports, port_elem_parse, NULL);
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
