/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* appc image manifests (acKind "ImageManifest"): parse, validate, print. */

#include <stddef.h>
#include <stdint.h>

#include "manifest/error.h"
#include "manifest/types.h"

struct manifest_dependency {
	char *image_name; /* AC Identifier */
	char *image_id;	  /* sha512-<hex> or NULL */
	struct manifest_kv_list labels;
	uint64_t size; /* 0: absent */
};

struct image_manifest {
	char *ac_kind;
	char *ac_version;
	char *name; /* AC Identifier */
	struct manifest_kv_list labels;
	struct manifest_app *app; /* NULL when the image has no app */
	struct manifest_kv_list annotations;
	struct manifest_dependency *dependencies;
	size_t n_dependencies;
	struct manifest_strv path_whitelist;
};

/*
 * Parse and validate len bytes of JSON. On failure returns a negative errno (-EINVAL: schema
 * violation, -EBADMSG: not JSON or nested too deep, -EFBIG: larger than MANIFEST_SIZE_MAX,
 * -E2BIG: a string or array over its limit, -ENOMEM) and fills *reterr_error if non-NULL.
 */
int image_manifest_parse(const char *buf, size_t len, struct image_manifest **ret,
			 struct cc_error *reterr_error);
/* Same, from a file (read with a MANIFEST_SIZE_MAX cap; I/O errors are returned as-is). */
int image_manifest_load(const char *path, struct image_manifest **ret,
			struct cc_error *reterr_error);
/* Normalized JSON (fixed key order, defaults spelled out, pretty printed); free() it. */
int image_manifest_to_json(const struct image_manifest *m, char **ret);

struct image_manifest *image_manifest_free(struct image_manifest *m);
static inline void image_manifest_freep(struct image_manifest **m)
{
	*m = image_manifest_free(*m);
}
