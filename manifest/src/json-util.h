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
	struct cc_error *err; /* never NULL */
	char path[CC_ERROR_CONTEXT_MAX];
	size_t len;
	char quote[2][96];
	unsigned next_quote;
};

void mctx_init(struct mctx *c, struct cc_error *err);
/* Append ".key" (or "key" at the root) / "[i]"; return the previous length for mctx_pop(). */
size_t mctx_push_key(struct mctx *c, const char *key);
size_t mctx_push_index(struct mctx *c, size_t i);
void mctx_pop(struct mctx *c, size_t old_len);
/* Record an error at the current path; returns r (a negative errno). */
int mctx_fail(struct mctx *c, int r, const char *fmt, ...) _printf_(3, 4);
/* Same, at the member key of the current path. */
int mctx_fail_key(struct mctx *c, const char *key, int r, const char *fmt, ...) _printf_(4, 5);
/* Same, at element i of the member key (NULL: of the current path). */
int mctx_fail_elem(struct mctx *c, const char *key, size_t i, int r, const char *fmt, ...)
	_printf_(5, 6);
/* s quoted and escaped for a message, truncated; valid until two more calls. */
const char *mctx_quote(struct mctx *c, const char *s);

/* Parse a whole document with the size, depth and syntax limits of manifest/limits.h. */
int json_parse_document(struct mctx *c, const char *buf, size_t len, struct json_object **ret);

/* The start of every public parser: check buf, set c up on err, parse buf (NULL when len is 0). */
int json_parse_root(struct mctx *c, struct cc_error *err, const char *buf, size_t len,
		    struct json_object **ret);

/* The member, or NULL when it is absent or JSON null (Go's decoder treats both alike). */
struct json_object *json_member(struct json_object *o, const char *key);

/* Value-level readers: the current path names v. */
int json_value_string(struct mctx *c, struct json_object *v, char **ret);
int json_value_bool(struct mctx *c, struct json_object *v, bool *ret);
int json_value_int(struct mctx *c, struct json_object *v, int64_t min, int64_t max, int64_t *ret);
int json_value_array(struct mctx *c, struct json_object *v, size_t *ret_n);
int json_value_object(struct mctx *c, struct json_object *v);
/* An object of at most MANIFEST_ARRAY_MAX members; *ret_n is their number. */
int json_value_object_size(struct mctx *c, struct json_object *v, size_t *ret_n);
/* A copy of the member name k of at most MANIFEST_STRING_MAX bytes; the current path names it. */
int json_key_dup(struct mctx *c, const char *k, char **ret);

/* Member readers. Absent optional members leave *ret untouched and return 0. */
int json_get_string(struct mctx *c, struct json_object *o, const char *key, bool required,
		    char **ret);
/* A required string member that must not be empty. */
int json_get_nonempty_string(struct mctx *c, struct json_object *o, const char *key, char **ret);
int json_get_bool(struct mctx *c, struct json_object *o, const char *key, bool *ret);
int json_get_tristate(struct mctx *c, struct json_object *o, const char *key,
		      enum manifest_tristate *ret);
/* Returns 1 when present, 0 when absent. */
int json_get_int(struct mctx *c, struct json_object *o, const char *key, int64_t min, int64_t max,
		 int64_t *ret);
/* Returns the array (borrowed) or NULL when absent; required absent arrays fail. */
int json_get_array(struct mctx *c, struct json_object *o, const char *key, bool required,
		   struct json_object **ret, size_t *ret_n);
/*
 * Element reader for json_parse_array(): v is element i of items (the current path names it);
 * elements 0..i-1 are already parsed.
 */
typedef int (*json_elem_parse_fn)(struct mctx *c, struct json_object *v, void *items, size_t i,
				  void *userdata);
/*
 * An array member of o parsed into a calloc'd array of elem_size elements, each read by parse.
 * Absent (when not required) or empty: *ret_items and *ret_n stay untouched. *ret_n counts each
 * element before it is parsed and *ret_items is set even on failure, so the owner frees a
 * partly parsed array.
 */
int json_parse_array(struct mctx *c, struct json_object *o, const char *key, bool required,
		     size_t elem_size, void **ret_items, size_t *ret_n, json_elem_parse_fn parse,
		     void *userdata);
/* json_parse_array() into a typed array pointer items and its size_t count n. */
#define JSON_PARSE_ARRAY(c, o, key, required, items, n, parse, userdata)                          \
	({                                                                                        \
		void *_items = NULL;                                                              \
		int _r = json_parse_array((c), (o), (key), (required), sizeof(*(items)), &_items, \
					  &(n), (parse), (userdata));                             \
		if (_items)                                                                       \
			(items) = _items;                                                         \
		_r;                                                                               \
	})
int json_get_strv(struct mctx *c, struct json_object *o, const char *key, bool required,
		  struct manifest_strv *ret);
/* A free-form {"key": "string"} map (userAnnotations, userLabels). */
int json_get_string_map(struct mctx *c, struct json_object *o, const char *key,
			struct manifest_kv_list *ret);
