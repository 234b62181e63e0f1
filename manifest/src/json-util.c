/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc/cleanup.h"
#include "json-util.h"
#include "manifest/limits.h"

void mctx_init(struct mctx *c, struct cc_error *err)
{
	memset(c, 0, sizeof(*c));
	c->err = err;
	memset(err, 0, sizeof(*err));
}

static size_t mctx_append(struct mctx *c, const char *s)
{
	size_t old = c->len;
	size_t n = strlen(s);

	if (c->len + n >= sizeof(c->path)) {
		/* Truncate: the path stays NUL-terminated and a prefix of the real one. */
		n = sizeof(c->path) - 1 - c->len;
	}
	/* Map keys are arbitrary: keep control characters out of one-line error reports. */
	for (size_t i = 0; i < n; i++)
		c->path[c->len + i] = ((unsigned char) s[i] < 0x20 || s[i] == 0x7f) ? '?' : s[i];
	c->len += n;
	c->path[c->len] = '\0';
	return old;
}

size_t mctx_push_key(struct mctx *c, const char *key)
{
	size_t old = c->len;

	if (c->len > 0)
		(void) mctx_append(c, ".");
	(void) mctx_append(c, key);
	return old;
}

size_t mctx_push_index(struct mctx *c, size_t i)
{
	char buf[32];

	(void) snprintf(buf, sizeof(buf), "[%zu]", i);
	return mctx_append(c, buf);
}

void mctx_pop(struct mctx *c, size_t old_len)
{
	c->len = old_len;
	c->path[old_len] = '\0';
}

_printf_(3, 0) static int mctx_failv(struct mctx *c, int r, const char *fmt, va_list ap)
{
	c->err->code = r < 0 ? r : -r;
	(void) snprintf(c->err->context, sizeof(c->err->context), "%s", c->len > 0 ? c->path : "$");
	(void) vsnprintf(c->err->msg, sizeof(c->err->msg), fmt, ap);
	return r;
}

int mctx_fail(struct mctx *c, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	r = mctx_failv(c, r, fmt, ap);
	va_end(ap);
	return r;
}

int mctx_fail_key(struct mctx *c, const char *key, int r, const char *fmt, ...)
{
	size_t old = mctx_push_key(c, key);
	va_list ap;

	va_start(ap, fmt);
	r = mctx_failv(c, r, fmt, ap);
	va_end(ap);
	mctx_pop(c, old);
	return r;
}

int mctx_fail_elem(struct mctx *c, const char *key, size_t i, int r, const char *fmt, ...)
{
	size_t old = key ? mctx_push_key(c, key) : c->len;
	va_list ap;

	(void) mctx_push_index(c, i);
	va_start(ap, fmt);
	r = mctx_failv(c, r, fmt, ap);
	va_end(ap);
	mctx_pop(c, old);
	return r;
}

const char *mctx_quote(struct mctx *c, const char *s)
{
	char *buf = c->quote[c->next_quote++ % 2];
	size_t cap = sizeof(c->quote[0]), o = 0;

	buf[o++] = '"';
	for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
		if (o + 8 >= cap) {
			memcpy(buf + o, "...", 3);
			o += 3;
			break;
		}
		if (*p == '"' || *p == '\\') {
			buf[o++] = '\\';
			buf[o++] = (char) *p;
		} else if (*p < 0x20 || *p == 0x7f) {
			o += (size_t) snprintf(buf + o, cap - o, "\\x%02x", *p);
		} else {
			buf[o++] = (char) *p;
		}
	}
	buf[o++] = '"';
	buf[o] = '\0';
	return buf;
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct json_tokener *, json_tokener_free)

/*
 * json-c accepts NaN and Infinity even in strict mode, and turns 1e999 into infinity; JSON
 * has neither. The tree is at most MANIFEST_DEPTH_MAX deep, so the recursion is bounded.
 */
static bool json_has_nonfinite(struct json_object *o)
{
	switch (json_object_get_type(o)) {
	case json_type_double:
		return !isfinite(json_object_get_double(o));
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(o); i++)
			if (json_has_nonfinite(json_object_array_get_idx(o, i)))
				return true;
		return false;
	case json_type_object: {
		json_object_object_foreach (o, k, v) {
			(void) k;
			if (json_has_nonfinite(v))
				return true;
		}
		return false;
	}
	default:
		return false;
	}
}

int json_parse_document(struct mctx *c, const char *buf, size_t len, struct json_object **ret)
{
	_cleanup_(json_tokener_freep) struct json_tokener *tok = NULL;
	struct json_object *o;
	enum json_tokener_error e;
	size_t end;

	if (len > MANIFEST_SIZE_MAX)
		return mctx_fail(c, -EFBIG, "document is larger than %u bytes", MANIFEST_SIZE_MAX);
	if (len == 0)
		return mctx_fail(c, -EBADMSG, "document is empty");
	if (memchr(buf, '\0', len))
		return mctx_fail(c, -EBADMSG, "document contains a NUL byte");

	tok = json_tokener_new_ex(MANIFEST_DEPTH_MAX);
	if (!tok)
		return -ENOMEM;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	o = json_tokener_parse_ex(tok, buf, (int) len);
	e = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	if (!o) {
		if (e == json_tokener_continue)
			return mctx_fail(c, -EBADMSG, "invalid JSON: unexpected end of input");
		if (e == json_tokener_error_depth)
			return mctx_fail(c, -EBADMSG, "invalid JSON: nested deeper than %d levels",
					 MANIFEST_DEPTH_MAX);
		return mctx_fail(c, -EBADMSG, "invalid JSON at byte %zu: %s", end,
				 json_tokener_error_desc(e));
	}
	for (size_t i = end; i < len; i++)
		if (!strchr(" \t\r\n", buf[i])) {
			(void) json_object_put(o);
			return mctx_fail(c, -EBADMSG, "invalid JSON at byte %zu: trailing data", i);
		}
	if (json_has_nonfinite(o)) {
		(void) json_object_put(o);
		return mctx_fail(c, -EBADMSG, "invalid JSON: NaN or infinite number");
	}
	if (!json_object_is_type(o, json_type_object)) {
		(void) json_object_put(o);
		return mctx_fail(c, -EINVAL, "expected a JSON object");
	}
	*ret = o;
	return 0;
}

int json_parse_root(struct mctx *c, struct cc_error *err, const char *buf, size_t len,
		    struct json_object **ret)
{
	assert_return(buf || len == 0, -EINVAL);
	mctx_init(c, err);
	return json_parse_document(c, buf ?: "", len, ret);
}

struct json_object *json_member(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v))
		return NULL;
	return v; /* NULL for JSON null */
}

static const char *json_type_word(struct json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_null:
		return "null";
	case json_type_boolean:
		return "a boolean";
	case json_type_double:
		return "a fractional number";
	case json_type_int:
		return "an integer";
	case json_type_object:
		return "an object";
	case json_type_array:
		return "an array";
	case json_type_string:
		return "a string";
	}
	return "unknown";
}

int json_value_string(struct mctx *c, struct json_object *v, char **ret)
{
	const char *s;
	size_t n;
	char *d;

	if (!v || !json_object_is_type(v, json_type_string))
		return mctx_fail(c, -EINVAL, "expected a string, got %s",
				 v ? json_type_word(v) : "null");
	s = json_object_get_string(v);
	n = (size_t) json_object_get_string_len(v);
	if (n > MANIFEST_STRING_MAX)
		return mctx_fail(c, -E2BIG, "string is longer than %u bytes", MANIFEST_STRING_MAX);
	if (memchr(s, '\0', n))
		return mctx_fail(c, -EINVAL, "string contains a NUL character");
	d = strndup(s, n);
	if (!d)
		return -ENOMEM;
	*ret = d;
	return 0;
}

int json_value_bool(struct mctx *c, struct json_object *v, bool *ret)
{
	if (!v || !json_object_is_type(v, json_type_boolean))
		return mctx_fail(c, -EINVAL, "expected a boolean, got %s",
				 v ? json_type_word(v) : "null");
	*ret = json_object_get_boolean(v);
	return 0;
}

int json_value_int(struct mctx *c, struct json_object *v, int64_t min, int64_t max, int64_t *ret)
{
	int64_t x;

	if (!v || !json_object_is_type(v, json_type_int))
		return mctx_fail(c, -EINVAL, "expected an integer, got %s",
				 v ? json_type_word(v) : "null");
	x = json_object_get_int64(v);
	/* json-c saturates out-of-range literals at the int64 limits: never accept those. */
	if (x < min || x > max || x == INT64_MAX || x == INT64_MIN)
		return mctx_fail(c, -EINVAL, "%s is out of range [%" PRId64 ", %" PRId64 "]",
				 json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN), min,
				 max);
	*ret = x;
	return 0;
}

int json_value_array(struct mctx *c, struct json_object *v, size_t *ret_n)
{
	size_t n;

	if (!v || !json_object_is_type(v, json_type_array))
		return mctx_fail(c, -EINVAL, "expected an array, got %s",
				 v ? json_type_word(v) : "null");
	n = json_object_array_length(v);
	if (n > MANIFEST_ARRAY_MAX)
		return mctx_fail(c, -E2BIG, "array has more than %u elements", MANIFEST_ARRAY_MAX);
	*ret_n = n;
	return 0;
}

int json_value_object(struct mctx *c, struct json_object *v)
{
	if (!v || !json_object_is_type(v, json_type_object))
		return mctx_fail(c, -EINVAL, "expected an object, got %s",
				 v ? json_type_word(v) : "null");
	return 0;
}

int json_value_object_size(struct mctx *c, struct json_object *v, size_t *ret_n)
{
	size_t n;
	int r;

	r = json_value_object(c, v);
	if (r < 0)
		return r;
	n = (size_t) json_object_object_length(v);
	if (n > MANIFEST_ARRAY_MAX)
		return mctx_fail(c, -E2BIG, "object has more than %u members", MANIFEST_ARRAY_MAX);
	*ret_n = n;
	return 0;
}

int json_key_dup(struct mctx *c, const char *k, char **ret)
{
	if (strlen(k) > MANIFEST_STRING_MAX)
		return mctx_fail(c, -E2BIG, "key is longer than %u bytes", MANIFEST_STRING_MAX);
	*ret = strdup(k);
	return *ret ? 0 : -ENOMEM;
}

int json_get_string(struct mctx *c, struct json_object *o, const char *key, bool required,
		    char **ret)
{
	struct json_object *v = json_member(o, key);
	size_t old;
	int r;

	if (!v) {
		if (required)
			return mctx_fail_key(c, key, -EINVAL, "is required");
		return 0;
	}
	old = mctx_push_key(c, key);
	r = json_value_string(c, v, ret);
	mctx_pop(c, old);
	return r;
}

int json_get_nonempty_string(struct mctx *c, struct json_object *o, const char *key, char **ret)
{
	int r;

	r = json_get_string(c, o, key, true, ret);
	if (r < 0)
		return r;
	if ((*ret)[0] == '\0')
		return mctx_fail_key(c, key, -EINVAL, "must not be empty");
	return 0;
}

int json_get_bool(struct mctx *c, struct json_object *o, const char *key, bool *ret)
{
	struct json_object *v = json_member(o, key);
	size_t old;
	int r;

	if (!v)
		return 0;
	old = mctx_push_key(c, key);
	r = json_value_bool(c, v, ret);
	mctx_pop(c, old);
	return r;
}

int json_get_tristate(struct mctx *c, struct json_object *o, const char *key,
		      enum manifest_tristate *ret)
{
	bool b;
	int r;

	*ret = MANIFEST_UNSET;
	if (!json_member(o, key))
		return 0;
	r = json_get_bool(c, o, key, &b);
	if (r < 0)
		return r;
	*ret = b ? MANIFEST_TRUE : MANIFEST_FALSE;
	return 0;
}

int json_get_int(struct mctx *c, struct json_object *o, const char *key, int64_t min, int64_t max,
		 int64_t *ret)
{
	struct json_object *v = json_member(o, key);
	size_t old;
	int r;

	if (!v)
		return 0;
	old = mctx_push_key(c, key);
	r = json_value_int(c, v, min, max, ret);
	mctx_pop(c, old);
	return r < 0 ? r : 1;
}

int json_get_array(struct mctx *c, struct json_object *o, const char *key, bool required,
		   struct json_object **ret, size_t *ret_n)
{
	struct json_object *v = json_member(o, key);
	size_t old;
	int r;

	*ret = NULL;
	*ret_n = 0;
	if (!v) {
		if (required)
			return mctx_fail_key(c, key, -EINVAL, "is required");
		return 0;
	}
	old = mctx_push_key(c, key);
	r = json_value_array(c, v, ret_n);
	mctx_pop(c, old);
	if (r < 0)
		return r;
	*ret = v;
	return 0;
}

int json_parse_array(struct mctx *c, struct json_object *o, const char *key, bool required,
		     size_t elem_size, void **ret_items, size_t *ret_n, json_elem_parse_fn parse,
		     void *userdata)
{
	struct json_object *a;
	size_t n, old;
	void *items;
	int r;

	r = json_get_array(c, o, key, required, &a, &n);
	if (r < 0 || !a || n == 0)
		return r;
	items = calloc(n, elem_size);
	if (!items)
		return -ENOMEM;
	*ret_items = items;
	old = mctx_push_key(c, key);
	for (size_t i = 0; i < n; i++) {
		size_t o2 = mctx_push_index(c, i);

		(*ret_n)++;
		r = parse(c, json_object_array_get_idx(a, i), items, i, userdata);
		if (r < 0)
			return r;
		mctx_pop(c, o2);
	}
	mctx_pop(c, old);
	return 0;
}

static int strv_elem_parse(struct mctx *c, struct json_object *v, void *items, size_t i,
			   _unused_ void *userdata)
{
	char **strv = items;

	return json_value_string(c, v, &strv[i]);
}

int json_get_strv(struct mctx *c, struct json_object *o, const char *key, bool required,
		  struct manifest_strv *ret)
{
	return JSON_PARSE_ARRAY(c, o, key, required, ret->items, ret->n, strv_elem_parse, NULL);
}

int json_get_string_map(struct mctx *c, struct json_object *o, const char *key,
			struct manifest_kv_list *ret)
{
	struct json_object *v = json_member(o, key);
	size_t n, old;
	int r;

	if (!v)
		return 0;
	old = mctx_push_key(c, key);
	r = json_value_object_size(c, v, &n);
	if (r < 0)
		return r;
	if (n > 0) {
		ret->items = calloc(n, sizeof(struct manifest_kv));
		if (!ret->items)
			return -ENOMEM;
	}
	json_object_object_foreach (v, k, val) {
		struct manifest_kv *kv = &ret->items[ret->n];
		size_t o2 = mctx_push_key(c, k);

		r = json_key_dup(c, k, &kv->name);
		if (r < 0)
			return r;
		ret->n++;
		r = json_value_string(c, val, &kv->value);
		if (r < 0)
			return r;
		mctx_pop(c, o2);
	}
	mctx_pop(c, old);
	return 0;
}
