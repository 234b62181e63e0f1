/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "manifest/limits.h"
#include "parse-common.h"
#include "validate.h"

int ac_name_get(struct mctx *c, struct json_object *o, const char *key, bool required, char **ret)
{
	int r;

	r = json_get_string(c, o, key, required, ret);
	if (r < 0 || !*ret)
		return r;
	if (!ac_name_is_valid(*ret))
		return mctx_fail_key(c, key, -EINVAL,
				     "%s is not a valid AC Name (lower-case letters, digits and "
				     "dashes, starting and ending with a letter or digit)",
				     mctx_quote(c, *ret));
	return 0;
}

int ac_identifier_get(struct mctx *c, struct json_object *o, const char *key, bool required,
		      char **ret)
{
	int r;

	r = json_get_string(c, o, key, required, ret);
	if (r < 0 || !*ret)
		return r;
	if (!ac_identifier_is_valid(*ret))
		return mctx_fail_key(c, key, -EINVAL,
				     "%s is not a valid AC Identifier (lower-case letters, digits "
				     "and -._~/, starting and ending with a letter or digit)",
				     mctx_quote(c, *ret));
	return 0;
}

int image_id_get(struct mctx *c, struct json_object *o, const char *key, bool required, char **ret)
{
	int r;

	r = json_get_string(c, o, key, required, ret);
	if (r < 0 || !*ret)
		return r;
	if (!image_id_is_valid(*ret))
		return mctx_fail_key(c, key, -EINVAL, "%s is not a valid image ID (sha512-<hex>)",
				     mctx_quote(c, *ret));
	return 0;
}

int ac_version_get(struct mctx *c, struct json_object *o, char **ret)
{
	int r;

	r = json_get_string(c, o, "acVersion", true, ret);
	if (r < 0)
		return r;
	if (!semver_is_valid(*ret))
		return mctx_fail_key(c, "acVersion", -EINVAL, "%s is not a valid non-zero SemVer",
				     mctx_quote(c, *ret));
	return 0;
}

int ac_kind_check(struct mctx *c, struct json_object *o, const char *want, char **ret)
{
	int r;

	r = json_get_string(c, o, "acKind", true, ret);
	if (r < 0)
		return r;
	if (strcmp(*ret, want) != 0)
		return mctx_fail_key(c, "acKind", -EINVAL, "%s is not %s", mctx_quote(c, *ret),
				     mctx_quote(c, want));
	return 0;
}

int manifest_doc_parse(const struct manifest_doc_kind *k, const char *buf, size_t len, void **ret,
		       struct cc_error *reterr_error)
{
	_cleanup_(json_object_putp) struct json_object *o = NULL;
	struct cc_error local;
	struct mctx c;
	void *m;
	int r;

	r = json_parse_root(&c, reterr_error ?: &local, buf, len, &o);
	if (r < 0)
		return r;
	m = calloc(1, k->size);
	if (!m)
		return mctx_fail(&c, -ENOMEM, "out of memory");
	r = k->parse_object(&c, o, m);
	if (r < 0) {
		k->free(m);
		return r == -ENOMEM ? mctx_fail(&c, r, "out of memory") : r;
	}
	*ret = m;
	return 0;
}

static int kv_check_value(struct mctx *c, const struct manifest_kv *kv, enum kv_kind kind)
{
	if (kind != KV_ANNOTATIONS)
		return 0;
	if (strcmp(kv->name, "created") == 0 && !rfc3339_is_valid(kv->value))
		return mctx_fail_key(c, "value", -EINVAL, "%s is not a valid RFC 3339 date",
				     mctx_quote(c, kv->value));
	if ((strcmp(kv->name, "homepage") == 0 || strcmp(kv->name, "documentation") == 0) &&
	    !http_url_is_valid(kv->value))
		return mctx_fail_key(c, "value", -EINVAL, "%s is not an http or https URL",
				     mctx_quote(c, kv->value));
	return 0;
}

static int kv_parse(struct mctx *c, struct json_object *v, void *items, size_t i, void *userdata)
{
	static const char *const what[] = {"label", "annotation", "environment variable"};
	const struct manifest_kv_list seen = {items, i};
	struct manifest_kv *kv = &seen.items[i];
	enum kv_kind kind = *(const enum kv_kind *) userdata;
	int r;

	r = json_value_object(c, v);
	if (r < 0)
		return r;
	if (kind == KV_ENVIRONMENT) {
		r = json_get_string(c, v, "name", true, &kv->name);
		if (r < 0)
			return r;
		if (!env_name_is_valid(kv->name))
			return mctx_fail_key(c, "name", -EINVAL,
					     "%s is not a valid environment variable name",
					     mctx_quote(c, kv->name));
	} else {
		r = ac_identifier_get(c, v, "name", true, &kv->name);
		if (r < 0)
			return r;
	}
	if (kind == KV_LABELS && strcmp(kv->name, "name") == 0)
		return mctx_fail_key(c, "name", -EINVAL, "\"name\" is not allowed as a label name");
	for (size_t j = 0; j < seen.n; j++)
		if (strcmp(seen.items[j].name, kv->name) == 0)
			return mctx_fail_key(c, "name", -EINVAL, "duplicate %s %s", what[kind],
					     mctx_quote(c, kv->name));
	r = json_get_string(c, v, "value", false, &kv->value);
	if (r < 0)
		return r;
	if (!kv->value) {
		/* appc's decoder leaves a missing value empty. */
		kv->value = strdup("");
		if (!kv->value)
			return -ENOMEM;
	}
	return kv_check_value(c, kv, kind);
}

static int labels_check_os_arch(struct mctx *c, const struct manifest_kv_list *l)
{
	const char *os = manifest_kv_list_get(l, "os");
	const char *arch = manifest_kv_list_get(l, "arch");
	bool os_ok;

	if (!os)
		return 0;
	os_ok = os_arch_is_valid(os, NULL);
	for (size_t i = 0; i < l->n; i++) {
		size_t old;
		int r;

		if (strcmp(l->items[i].name, os_ok ? "arch" : "os") != 0)
			continue;
		if (os_ok && os_arch_is_valid(os, arch))
			return 0;
		old = mctx_push_index(c, i);
		if (os_ok)
			r = mctx_fail_key(c, "value", -EINVAL, "bad arch %s for os %s",
					  mctx_quote(c, arch), mctx_quote(c, os));
		else
			r = mctx_fail_key(c, "value", -EINVAL,
					  "bad os %s (must be one of darwin, freebsd, linux)",
					  mctx_quote(c, os));
		mctx_pop(c, old);
		return r;
	}
	return 0;
}

int kv_list_parse(struct mctx *c, struct json_object *o, const char *key, enum kv_kind kind,
		  struct manifest_kv_list *ret)
{
	size_t old;
	int r;

	r = JSON_PARSE_ARRAY(c, o, key, false, ret->items, ret->n, kv_parse, &kind);
	if (r < 0 || kind != KV_LABELS || ret->n == 0)
		return r;
	old = mctx_push_key(c, key);
	r = labels_check_os_arch(c, ret);
	mctx_pop(c, old);
	return r;
}

int port_parse(struct mctx *c, struct json_object *v, struct manifest_port *p)
{
	int64_t x;
	int r;

	r = json_value_object(c, v);
	if (r < 0)
		return r;
	r = ac_name_get(c, v, "name", true, &p->name);
	if (r < 0)
		return r;
	r = json_get_nonempty_string(c, v, "protocol", &p->protocol);
	if (r < 0)
		return r;
	r = json_get_int(c, v, "port", 1, 65535, &x);
	if (r < 0)
		return r;
	if (r == 0)
		return mctx_fail_key(c, "port", -EINVAL, "is required");
	p->port = (uint16_t) x;
	x = 0;
	r = json_get_int(c, v, "count", 0, 65535, &x);
	if (r < 0)
		return r;
	if (p->port + x > 65536)
		return mctx_fail_key(c, "count", -EINVAL,
				     "port range %u+%" PRId64 " ends beyond port 65535", p->port,
				     x);
	p->count = x == 0 ? 1 : (uint32_t) x;
	return json_get_bool(c, v, "socketActivated", &p->socket_activated);
}

static int volume_check_kind(struct mctx *c, struct json_object *v, struct manifest_volume *vol)
{
	static const char *const host_forbidden[] = {"mode", "uid", "gid"};

	if (vol->kind == MANIFEST_VOLUME_EMPTY) {
		if (vol->source && vol->source[0])
			return mctx_fail_key(c, "source", -EINVAL,
					     "must not be set for an empty volume");
		return 0;
	}
	if (!vol->source || vol->source[0] == '\0')
		return mctx_fail_key(c, "source", -EINVAL, "is required for a host volume");
	if (vol->source[0] != '/')
		return mctx_fail_key(c, "source", -EINVAL, "%s is not an absolute path",
				     mctx_quote(c, vol->source));
	for (size_t i = 0; i < sizeof(host_forbidden) / sizeof(host_forbidden[0]); i++)
		if (json_member(v, host_forbidden[i]))
			return mctx_fail_key(c, host_forbidden[i], -EINVAL,
					     "must not be set for a host volume");
	return 0;
}

int volume_parse(struct mctx *c, struct json_object *v, struct manifest_volume *vol)
{
	_cleanup_free_ char *kind = NULL;
	int64_t x;
	int r;

	vol->kind = _MANIFEST_VOLUME_KIND_INVALID;
	r = json_value_object(c, v);
	if (r < 0)
		return r;
	r = ac_name_get(c, v, "name", true, &vol->name);
	if (r < 0)
		return r;
	r = json_get_string(c, v, "kind", true, &kind);
	if (r < 0)
		return r;
	if (strcmp(kind, "host") == 0)
		vol->kind = MANIFEST_VOLUME_HOST;
	else if (strcmp(kind, "empty") == 0)
		vol->kind = MANIFEST_VOLUME_EMPTY;
	else
		return mctx_fail_key(c, "kind", -EINVAL,
				     "%s is not a volume kind (\"host\" or \"empty\")",
				     mctx_quote(c, kind));
	r = json_get_string(c, v, "source", false, &vol->source);
	if (r < 0)
		return r;
	r = json_get_tristate(c, v, "readOnly", &vol->read_only);
	if (r < 0)
		return r;
	r = json_get_tristate(c, v, "recursive", &vol->recursive);
	if (r < 0)
		return r;
	r = volume_check_kind(c, v, vol);
	if (r < 0 || vol->kind == MANIFEST_VOLUME_HOST)
		return r;
	/* empty: defaults as appc fills them in */
	r = json_get_string(c, v, "mode", false, &vol->mode_str);
	if (r < 0)
		return r;
	if (!vol->mode_str) {
		vol->mode_str = strdup("0755");
		if (!vol->mode_str)
			return -ENOMEM;
	}
	if (!octal_mode_parse(vol->mode_str, &vol->mode))
		return mctx_fail_key(c, "mode", -EINVAL, "%s is not an octal file mode",
				     mctx_quote(c, vol->mode_str));
	x = 0;
	r = json_get_int(c, v, "uid", 0, UINT32_MAX, &x);
	if (r < 0)
		return r;
	vol->uid = (uint32_t) x;
	x = 0;
	r = json_get_int(c, v, "gid", 0, UINT32_MAX, &x);
	if (r < 0)
		return r;
	vol->gid = (uint32_t) x;
	return 0;
}

int manifest_doc_load(const struct manifest_doc_kind *k, const char *path, void **ret,
		      struct cc_error *reterr_error)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int r;

	r = read_full_file(path, MANIFEST_SIZE_MAX, &buf, &len);
	if (r < 0)
		return r;
	return manifest_doc_parse(k, buf, len, ret, reterr_error);
}
