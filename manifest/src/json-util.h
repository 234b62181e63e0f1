/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * json-c helpers for the manifest parsers: a parse context that tracks the JSON path of the
 * value being read, bounded parsing, and typed getters that report "<path>: <rule>" errors.
 */

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cc/macro.h"
#include "manifest/error.h"
#include "manifest/types.h"

static inline void json_object_putp(struct json_object **o)
{
	if (*o)
		(void) json_object_put(*o);
}

struct mctx {
	struct manifest_error *err; /* never NULL */
	char path[MANIFEST_ERROR_PATH_MAX];
	size_t len;
	char quote[2][96];
	unsigned next_quote;
};

void mctx_init(struct mctx *c, struct manifest_error *err);
/* Append ".key" (or "key" at the root) / "[i]"; return the previous length for mctx_pop(). */
size_t mctx_push_key(struct mctx *c, const char *key);
size_t mctx_push_index(struct mctx *c, size_t i);
void mctx_pop(struct mctx *c, size_t old_len);
/* Record an error at the current path; returns r (a negative errno). */
int mctx_fail(struct mctx *c, int r, const char *fmt, ...) _printf_(3, 4);
/* Same, at the member key of the current path. */
int mctx_fail_key(struct mctx *c, const char *key, int r, const char *fmt, ...) _printf_(4, 5);
/* s quoted and escaped for a message, truncated; valid until two more calls. */
const char *mctx_quote(struct mctx *c, const char *s);

/* Parse a whole document with the size, depth and syntax limits of manifest/limits.h. */
int json_parse_document(struct mctx *c, const char *buf, size_t len, struct json_object **ret);

/* The member, or NULL when it is absent or JSON null (Go's decoder treats both alike). */
struct json_object *json_member(struct json_object *o, const char *key);

/* Value-level readers: the current path names v. */
int json_value_string(struct mctx *c, struct json_object *v, char **ret);
int json_value_bool(struct mctx *c, struct json_object *v, bool *ret);
int json_value_int(struct mctx *c, struct json_object *v, int64_t min, int64_t max, int64_t *ret);
int json_value_array(struct mctx *c, struct json_object *v, size_t *ret_n);
int json_value_object(struct mctx *c, struct json_object *v);

/* Member readers. Absent optional members leave *ret untouched and return 0. */
int json_get_string(struct mctx *c, struct json_object *o, const char *key, bool required,
		    char **ret);
int json_get_bool(struct mctx *c, struct json_object *o, const char *key, bool *ret);
int json_get_tristate(struct mctx *c, struct json_object *o, const char *key,
		      enum manifest_tristate *ret);
/* Returns 1 when present, 0 when absent. */
int json_get_int(struct mctx *c, struct json_object *o, const char *key, int64_t min, int64_t max,
		 int64_t *ret);
/* Returns the array (borrowed) or NULL when absent; required absent arrays fail. */
int json_get_array(struct mctx *c, struct json_object *o, const char *key, bool required,
		   struct json_object **ret, size_t *ret_n);
int json_get_strv(struct mctx *c, struct json_object *o, const char *key, bool required,
		  struct manifest_strv *ret);
/* A free-form {"key": "string"} map (userAnnotations, userLabels). */
int json_get_string_map(struct mctx *c, struct json_object *o, const char *key,
			struct manifest_kv_list *ret);
