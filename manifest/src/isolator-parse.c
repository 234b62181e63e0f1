/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "isolator-parse.h"
#include "manifest/quantity.h"
#include "validate.h"

static int resource_quantity_parse(struct mctx *c, struct json_object *v, const char *key,
				   char **ret)
{
	struct json_object *q = json_member(v, key);
	uint64_t bytes;
	size_t start, end;
	int r;

	if (!q)
		return 0;
	if (json_object_is_type(q, json_type_int) || json_object_is_type(q, json_type_double)) {
		/* Like k8s' Quantity.UnmarshalJSON, a bare JSON number is read as its literal. */
		*ret = strdup(json_object_to_json_string_ext(q, JSON_C_TO_STRING_PLAIN));
		if (!*ret)
			return -ENOMEM;
	} else {
		r = json_get_string(c, v, key, false, ret);
		if (r < 0)
			return r;
		/* ... and surrounding white space is dropped (strings.TrimSpace). */
		start = strspn(*ret, " \t\n\r\v\f");
		end = strlen(*ret);
		while (end > start && strchr(" \t\n\r\v\f", (*ret)[end - 1]))
			end--;
		memmove(*ret, *ret + start, end - start);
		(*ret)[end - start] = '\0';
	}
	if (!quantity_is_valid(*ret))
		return mctx_fail_key(c, key, -EINVAL, "%s is not a valid quantity",
				     mctx_quote(c, *ret));
	/* The syntax is valid, so -EINVAL here means a negative value. */
	if (quantity_to_bytes(*ret, &bytes) == -EINVAL)
		return mctx_fail_key(c, key, -EINVAL, "%s must not be negative",
				     mctx_quote(c, *ret));
	return 0;
}

static int resource_parse(struct mctx *c, struct json_object *v, struct manifest_isolator *iso)
{
	struct manifest_resource *res = &iso->v.resource;
	bool needs_default = iso->type == MANIFEST_ISOLATOR_RESOURCE_BLOCK_BANDWIDTH ||
			     iso->type == MANIFEST_ISOLATOR_RESOURCE_BLOCK_IOPS ||
			     iso->type == MANIFEST_ISOLATOR_RESOURCE_NETWORK_BANDWIDTH;
	int r;

	r = json_value_object(c, v);
	if (r < 0)
		return r;
	r = json_get_bool(c, v, "default", &res->is_default);
	if (r < 0)
		return r;
	r = resource_quantity_parse(c, v, "request", &res->request);
	if (r < 0)
		return r;
	r = resource_quantity_parse(c, v, "limit", &res->limit);
	if (r < 0)
		return r;
	if (needs_default) {
		if (!res->is_default)
			return mctx_fail_key(c, "default", -EINVAL, "must be true");
		if (res->request)
			return mctx_fail_key(c, "request", -EINVAL,
					     "is not supported by this resource");
	} else if (res->is_default) {
		return mctx_fail_key(c, "default", -EINVAL, "must be false");
	}
	return 0;
}

static int name_set_parse(struct mctx *c, struct json_object *v, struct manifest_isolator *iso)
{
	struct manifest_name_set *set = &iso->v.set;
	bool seccomp = iso->type == MANIFEST_ISOLATOR_SECCOMP_RETAIN ||
		       iso->type == MANIFEST_ISOLATOR_SECCOMP_REMOVE;
	struct manifest_strv sv = {};
	int r;

	r = json_value_object(c, v);
	if (r < 0)
		return r;
	r = json_get_strv(c, v, "set", false, &sv);
	set->names = sv.items;
	set->n = sv.n;
	if (r < 0)
		return r;
	if (set->n == 0)
		return mctx_fail_key(c, "set", -EINVAL, "must be a non-empty list");
	for (size_t i = 0; i < set->n; i++)
		if (set->names[i][0] == '\0')
			return mctx_fail_elem(c, "set", i, -EINVAL, "must not be empty");
	if (!seccomp)
		return 0;
	r = json_get_string(c, v, "errno", false, &set->errno_name);
	if (r < 0)
		return r;
	if (set->errno_name && set->errno_name[0] && !errno_name_is_valid(set->errno_name))
		return mctx_fail_key(c, "errno", -EINVAL,
				     "%s is not a valid errno name (E followed by upper-case "
				     "letters or digits)",
				     mctx_quote(c, set->errno_name));
	return 0;
}

static int selinux_parse(struct mctx *c, struct json_object *v, struct manifest_selinux *se)
{
	struct {
		const char *key;
		char **dst;
		bool colon_ok;
	} fields[] = {
		{"user", &se->user, false},
		{"role", &se->role, false},
		{"type", &se->type, false},
		{"level", &se->level, true},
	};
	int r;

	r = json_value_object(c, v);
	if (r < 0)
		return r;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		r = json_get_string(c, v, fields[i].key, true, fields[i].dst);
		if (r < 0)
			return r;
		if ((*fields[i].dst)[0] == '\0' ||
		    (!fields[i].colon_ok && strchr(*fields[i].dst, ':')))
			return mctx_fail_key(c, fields[i].key, -EINVAL, "invalid %s value %s",
					     fields[i].key, mctx_quote(c, *fields[i].dst));
	}
	return 0;
}

static int sysctl_parse(struct mctx *c, struct json_object *v, struct manifest_sysctl *sc)
{
	size_t n;
	int r;

	r = json_value_object_size(c, v, &n);
	if (r < 0)
		return r;
	sc->keys = calloc(n ? n : 1, sizeof(char *));
	sc->values = calloc(n ? n : 1, sizeof(char *));
	if (!sc->keys || !sc->values)
		return -ENOMEM;
	json_object_object_foreach (v, k, val) {
		size_t old = mctx_push_key(c, k);

		r = json_key_dup(c, k, &sc->keys[sc->n]);
		if (r < 0)
			return r;
		sc->n++;
		r = json_value_string(c, val, &sc->values[sc->n - 1]);
		if (r < 0)
			return r;
		mctx_pop(c, old);
	}
	return 0;
}

static int isolator_value_parse(struct mctx *c, struct json_object *v,
				struct manifest_isolator *iso)
{
	int64_t x;
	int r;

	switch (iso->type) {
	case MANIFEST_ISOLATOR_RESOURCE_CPU:
	case MANIFEST_ISOLATOR_RESOURCE_MEMORY:
	case MANIFEST_ISOLATOR_RESOURCE_BLOCK_BANDWIDTH:
	case MANIFEST_ISOLATOR_RESOURCE_BLOCK_IOPS:
	case MANIFEST_ISOLATOR_RESOURCE_NETWORK_BANDWIDTH:
		return resource_parse(c, v, iso);
	case MANIFEST_ISOLATOR_CAPABILITIES_RETAIN:
	case MANIFEST_ISOLATOR_CAPABILITIES_REMOVE:
	case MANIFEST_ISOLATOR_SECCOMP_RETAIN:
	case MANIFEST_ISOLATOR_SECCOMP_REMOVE:
		return name_set_parse(c, v, iso);
	case MANIFEST_ISOLATOR_NO_NEW_PRIVILEGES:
		return json_value_bool(c, v, &iso->v.no_new_privileges);
	case MANIFEST_ISOLATOR_OOM_SCORE_ADJ:
		r = json_value_int(c, v, -1000, 1000, &x);
		if (r < 0)
			return r;
		iso->v.oom_score_adj = (int32_t) x;
		return 0;
	case MANIFEST_ISOLATOR_CPU_SHARES:
		r = json_value_int(c, v, 2, 262144, &x);
		if (r < 0)
			return r;
		iso->v.cpu_shares = (int32_t) x;
		return 0;
	case MANIFEST_ISOLATOR_SELINUX_CONTEXT:
		return selinux_parse(c, v, &iso->v.selinux);
	case MANIFEST_ISOLATOR_APPARMOR_PROFILE:
		r = json_value_object(c, v);
		if (r < 0)
			return r;
		r = json_get_string(c, v, "profile", true, &iso->v.apparmor_profile);
		if (r < 0)
			return r;
		if (iso->v.apparmor_profile[0] == '\0')
			return mctx_fail_key(c, "profile", -EINVAL, "must not be empty");
		return 0;
	case MANIFEST_ISOLATOR_SYSCTL:
		return sysctl_parse(c, v, &iso->v.sysctl);
	default:
		return 0;
	}
}

static int isolator_parse(struct mctx *c, struct json_object *o, void *items, size_t i,
			  _unused_ void *userdata)
{
	struct manifest_isolator *iso = &((struct manifest_isolator *) items)[i];
	struct json_object *v;
	const char *raw;
	size_t old;
	int r;

	r = json_value_object(c, o);
	if (r < 0)
		return r;
	r = json_get_string(c, o, "name", true, &iso->name);
	if (r < 0)
		return r;
	if (!ac_identifier_is_valid(iso->name))
		return mctx_fail_key(c, "name", -EINVAL, "%s is not a valid AC Identifier",
				     mctx_quote(c, iso->name));
	v = json_member(o, "value");
	if (!v)
		return mctx_fail_key(c, "value", -EINVAL, "is required");
	raw = json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);
	iso->raw_json = strdup(raw ? raw : "null");
	if (!iso->raw_json)
		return -ENOMEM;
	/* Set the type only now: manifest_isolator_done() frees the union by type. */
	iso->type = manifest_isolator_type_from_name(iso->name);
	old = mctx_push_key(c, "value");
	r = isolator_value_parse(c, v, iso);
	if (r >= 0)
		mctx_pop(c, old);
	return r;
}

static bool isolator_multiple_allowed(enum manifest_isolator_type t)
{
	switch (t) {
	case MANIFEST_ISOLATOR_SECCOMP_RETAIN:
	case MANIFEST_ISOLATOR_SECCOMP_REMOVE:
	case MANIFEST_ISOLATOR_OOM_SCORE_ADJ:
	case MANIFEST_ISOLATOR_CPU_SHARES:
	case MANIFEST_ISOLATOR_SELINUX_CONTEXT:
	case MANIFEST_ISOLATOR_APPARMOR_PROFILE:
	case MANIFEST_ISOLATOR_SYSCTL:
		return false;
	default:
		return true;
	}
}

/*
 * Only the seccomp sets conflict (ace.md and appc's Conflicts()). The spec sets no such rule
 * for the capability sets and appc accepts both in one app: stage1 decides which applies.
 */
static enum manifest_isolator_type isolator_conflict(enum manifest_isolator_type t)
{
	switch (t) {
	case MANIFEST_ISOLATOR_SECCOMP_RETAIN:
		return MANIFEST_ISOLATOR_SECCOMP_REMOVE;
	case MANIFEST_ISOLATOR_SECCOMP_REMOVE:
		return MANIFEST_ISOLATOR_SECCOMP_RETAIN;
	default:
		return MANIFEST_ISOLATOR_UNKNOWN;
	}
}

static int isolators_check(struct mctx *c, const struct manifest_isolator_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct manifest_isolator *iso = &l->items[i];
		enum manifest_isolator_type conflict = isolator_conflict(iso->type);

		for (size_t j = 0; j < i; j++) {
			const struct manifest_isolator *prev = &l->items[j];
			bool dup = strcmp(prev->name, iso->name) == 0 &&
				   !isolator_multiple_allowed(iso->type);

			if (dup)
				return mctx_fail_elem(c, NULL, i, -EINVAL,
						      "only one %s isolator is allowed",
						      mctx_quote(c, iso->name));
			if (conflict != MANIFEST_ISOLATOR_UNKNOWN && prev->type == conflict)
				return mctx_fail_elem(
					c, NULL, i, -EINVAL, "%s conflicts with %s at index %zu",
					mctx_quote(c, iso->name), mctx_quote(c, prev->name), j);
		}
	}
	return 0;
}

int isolators_parse(struct mctx *c, struct json_object *o, const char *key,
		    struct manifest_isolator_list *ret)
{
	size_t old;
	int r;

	r = JSON_PARSE_ARRAY(c, o, key, false, ret->items, ret->n, isolator_parse, NULL);
	if (r < 0 || ret->n == 0)
		return r;
	old = mctx_push_key(c, key);
	r = isolators_check(c, ret);
	mctx_pop(c, old);
	return r;
}
