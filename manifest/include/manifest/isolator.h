/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * appc isolators with typed values. Known names are validated like appc/spec's schema
 * package; unknown names are kept with their raw JSON value (MANIFEST_ISOLATOR_UNKNOWN).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum manifest_isolator_type {
	MANIFEST_ISOLATOR_UNKNOWN,
	MANIFEST_ISOLATOR_RESOURCE_CPU,
	MANIFEST_ISOLATOR_RESOURCE_MEMORY,
	MANIFEST_ISOLATOR_RESOURCE_BLOCK_BANDWIDTH,
	MANIFEST_ISOLATOR_RESOURCE_BLOCK_IOPS,
	MANIFEST_ISOLATOR_RESOURCE_NETWORK_BANDWIDTH,
	MANIFEST_ISOLATOR_CAPABILITIES_RETAIN,
	MANIFEST_ISOLATOR_CAPABILITIES_REMOVE,
	MANIFEST_ISOLATOR_SECCOMP_RETAIN,
	MANIFEST_ISOLATOR_SECCOMP_REMOVE,
	MANIFEST_ISOLATOR_NO_NEW_PRIVILEGES,
	MANIFEST_ISOLATOR_OOM_SCORE_ADJ,
	MANIFEST_ISOLATOR_CPU_SHARES,
	MANIFEST_ISOLATOR_SELINUX_CONTEXT,
	MANIFEST_ISOLATOR_APPARMOR_PROFILE,
	MANIFEST_ISOLATOR_SYSCTL,
	_MANIFEST_ISOLATOR_TYPE_MAX,
	_MANIFEST_ISOLATOR_TYPE_INVALID = -22,
};

/* resource isolators: quantities as written ("500m", "1Gi"); NULL when absent. */
struct manifest_resource {
	bool is_default;
	char *request;
	char *limit;
};

/* capabilities-* and seccomp-*: a non-empty set; errno only for seccomp ("" or NULL: none). */
struct manifest_name_set {
	char **names;
	size_t n;
	char *errno_name;
};

struct manifest_selinux {
	char *user;
	char *role;
	char *type;
	char *level;
};

struct manifest_sysctl {
	char **keys;
	char **values;
	size_t n;
};

struct manifest_isolator {
	char *name; /* AC Identifier */
	enum manifest_isolator_type type;
	char *raw_json; /* the value as compact JSON, for every type */
	union {
		struct manifest_resource resource;
		struct manifest_name_set set;
		bool no_new_privileges;
		int32_t oom_score_adj; /* -1000..1000 */
		int32_t cpu_shares;    /* 2..262144 */
		struct manifest_selinux selinux;
		char *apparmor_profile;
		struct manifest_sysctl sysctl;
	} v;
};

struct manifest_isolator_list {
	struct manifest_isolator *items;
	size_t n;
};

/* The type for an isolator name; MANIFEST_ISOLATOR_UNKNOWN for names the schema does not know. */
enum manifest_isolator_type manifest_isolator_type_from_name(const char *name);
const char *manifest_isolator_type_to_name(enum manifest_isolator_type t);

/*
 * The isolator of that name, the last one when several are listed (as appc's
 * Isolators.GetByName), or NULL.
 */
const struct manifest_isolator *manifest_isolators_find(const struct manifest_isolator_list *l,
							const char *name);
const struct manifest_isolator *manifest_isolators_find_type(const struct manifest_isolator_list *l,
							     enum manifest_isolator_type t);

/*
 * The effective limit and request of a resource isolator: a missing request defaults to the
 * limit. resource/cpu in millicores, the others in bytes (bandwidths: bytes/s; iops: ops/s).
 * -ENODATA when the isolator has no limit, -ERANGE on overflow, -EINVAL when the isolator is
 * not a resource isolator.
 */
int manifest_resource_get_limit(const struct manifest_isolator *iso, uint64_t *ret);
int manifest_resource_get_request(const struct manifest_isolator *iso, uint64_t *ret);

void manifest_isolator_done(struct manifest_isolator *iso);
void manifest_isolator_list_done(struct manifest_isolator_list *l);
