/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Readers for the schema pieces image and pod manifests share. */

#include <json-c/json.h>

#include "json-util.h"
#include "manifest/types.h"

enum kv_kind {
	KV_LABELS,	/* AC Identifier names, no "name", unique, known os/arch */
	KV_ANNOTATIONS, /* AC Identifier names, unique, created/homepage/documentation checked */
	KV_ENVIRONMENT, /* environment variable names, unique */
};

/* A [{name, value}] member of o; absent: empty list. */
int kv_list_parse(struct mctx *c, struct json_object *o, const char *key, enum kv_kind kind,
		  struct manifest_kv_list *ret);
/* An "app" object member of o; absent: *ret stays NULL. */
int app_parse(struct mctx *c, struct json_object *o, const char *key, struct manifest_app **ret);
/* Value-level readers: the current path names v. */
int port_parse(struct mctx *c, struct json_object *v, struct manifest_port *ret);
int volume_parse(struct mctx *c, struct json_object *v, struct manifest_volume *ret);
/* A required or optional AC Name / AC Identifier / image ID member. */
int ac_name_get(struct mctx *c, struct json_object *o, const char *key, bool required, char **ret);
int ac_identifier_get(struct mctx *c, struct json_object *o, const char *key, bool required,
		      char **ret);
int image_id_get(struct mctx *c, struct json_object *o, const char *key, bool required, char **ret);
int ac_version_get(struct mctx *c, struct json_object *o, char **ret);
/* Check acKind equals want. */
int ac_kind_check(struct mctx *c, struct json_object *o, const char *want, char **ret);

/* A kind of top-level manifest for manifest_doc_parse(). */
struct manifest_doc_kind {
	size_t size; /* of the manifest struct */
	int (*parse_object)(struct mctx *c, struct json_object *o, void *m); /* m is zeroed */
	void (*free)(void *m);
};
/* A whole document of kind k, into a new manifest; -ENOMEM is reported as "out of memory". */
int manifest_doc_parse(const struct manifest_doc_kind *k, const char *buf, size_t len, void **ret,
		       struct cc_error *reterr_error);
/* manifest_doc_parse() of a file, read with the MANIFEST_SIZE_MAX cap. */
int manifest_doc_load(const struct manifest_doc_kind *k, const char *path, void **ret,
		      struct cc_error *reterr_error);
