/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Builders for the normalized JSON of manifests. emit_add()/emit_push() take ownership of v
 * (NULL means an allocation failed) and return 0 or -ENOMEM; constructors return NULL on OOM.
 */

#include <json-c/json.h>

#include "manifest/types.h"

int emit_add(struct json_object *o, const char *key, struct json_object *v);
int emit_push(struct json_object *a, struct json_object *v);
/* Adds nothing when s is NULL. */
int emit_add_str(struct json_object *o, const char *key, const char *s);
struct json_object *emit_kv_list_new(const struct manifest_kv_list *l);
struct json_object *emit_map_new(const struct manifest_kv_list *l);
struct json_object *emit_isolators_new(const struct manifest_isolator_list *l);
struct json_object *emit_port_new(const struct manifest_port *p);
struct json_object *emit_app_new(const struct manifest_app *app);
/* Pretty-printed copy of o for the caller to free(). */
int emit_to_string(struct json_object *o, char **ret);
