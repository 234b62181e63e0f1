/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Typed appc (0.8.11) schema objects shared by image and pod manifests. Every string is
 * NUL-terminated, non-NULL when the field is required, and NULL when an optional field is
 * absent. Arrays come with their length; an absent array has n == 0 and a NULL pointer.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "manifest/isolator.h"

/* A {name, value} pair: labels, annotations, environment variables. */
struct manifest_kv {
	char *name;
	char *value;
};

struct manifest_kv_list {
	struct manifest_kv *items;
	size_t n;
};

struct manifest_strv {
	char **items;
	size_t n;
};

/* "pre-start" or "post-stop", at most one of each per app. */
struct manifest_event_handler {
	char *name;
	struct manifest_strv exec;
};

struct manifest_mount_point {
	char *name; /* AC Name */
	char *path;
	bool read_only;
};

struct manifest_port {
	char *name; /* AC Name */
	char *protocol;
	uint16_t port;	/* 1..65535 */
	uint32_t count; /* >= 1 (0 in the JSON means 1); port + count <= 65536 */
	bool socket_activated;
};

struct manifest_app {
	struct manifest_strv exec;
	char *user;
	char *group;
	uint32_t *supplementary_gids;
	size_t n_supplementary_gids;
	char *working_directory; /* NULL: absent ("/") */
	struct manifest_kv_list environment;
	struct manifest_event_handler *event_handlers;
	size_t n_event_handlers;
	struct manifest_isolator_list isolators;
	struct manifest_mount_point *mount_points;
	size_t n_mount_points;
	struct manifest_port *ports;
	size_t n_ports;
	struct manifest_kv_list user_annotations;
	struct manifest_kv_list user_labels;
};

enum manifest_volume_kind {
	MANIFEST_VOLUME_HOST,
	MANIFEST_VOLUME_EMPTY,
	_MANIFEST_VOLUME_KIND_MAX,
	_MANIFEST_VOLUME_KIND_INVALID = -22,
};

/* A tri-state for optional booleans. */
enum manifest_tristate {
	MANIFEST_UNSET = -1,
	MANIFEST_FALSE = 0,
	MANIFEST_TRUE = 1,
};

struct manifest_volume {
	char *name; /* AC Name */
	enum manifest_volume_kind kind;
	char *source; /* host: absolute path; empty: NULL */
	enum manifest_tristate read_only;
	enum manifest_tristate recursive;
	/* empty only; defaults filled in: mode 0755, uid 0, gid 0 */
	char *mode_str; /* as written, e.g. "0755" */
	uint32_t mode;
	uint32_t uid;
	uint32_t gid;
};

const char *manifest_volume_kind_to_string(enum manifest_volume_kind k);

/* Free the members of an object (not the object itself); NULL-safe. */
void manifest_kv_list_done(struct manifest_kv_list *l);
void manifest_strv_done(struct manifest_strv *v);
void manifest_app_done(struct manifest_app *a);
void manifest_volume_done(struct manifest_volume *v);
void manifest_port_done(struct manifest_port *p);

/* Lookup in a kv list; NULL when absent. */
const char *manifest_kv_list_get(const struct manifest_kv_list *l, const char *name);
