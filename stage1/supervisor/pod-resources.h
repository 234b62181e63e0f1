/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * cc/resources: the append-only record of every host resource a pod creates outside its pod
 * dir, one "<kind> <name>\n" line each, appended (and fsync'd) BEFORE the resource is created
 * so that gc can remove it after any crash, kill -9 included. Removal is idempotent: a resource
 * that no longer exists counts as removed.
 */

#include <stddef.h>

#define POD_RESOURCES_PATH "cc/resources"
/* The record is read with this cap; a longer one is refused (-EFBIG). */
#define POD_RESOURCES_SIZE_MAX (64u * 1024u)
#define POD_RESOURCE_NAME_MAX  64u

enum pod_resource_kind {
	POD_RESOURCE_TAP,	   /* a persistent tap device, by interface name */
	POD_RESOURCE_NETNS,	   /* a named network namespace, /run/netns/<name> */
	POD_RESOURCE_JOURNAL_LINK, /* /var/log/journal/<machine id> -> the pod's journal */
	POD_RESOURCE_MACHINE,	   /* a systemd-machined registration, by machine name */
	POD_RESOURCE_CGROUP,	   /* the VMM's cgroup, by its path under the cgroup2 root */
	_POD_RESOURCE_KIND_MAX,
	_POD_RESOURCE_KIND_INVALID = -22,
};

struct pod_resource {
	enum pod_resource_kind kind;
	char name[POD_RESOURCE_NAME_MAX + 1];
};

const char *pod_resource_kind_to_string(enum pod_resource_kind k);
enum pod_resource_kind pod_resource_kind_from_string(const char *s);

/*
 * Whether name is acceptable for kind (interface name rules for taps, a file name for netns and
 * machines, 32 lower-case hex digits for journal links, a relative path of such file names for
 * cgroups: vmm_cgroup_path_valid()).
 */
int pod_resource_name_valid(enum pod_resource_kind kind, const char *name);

/*
 * Append one record to cc/resources under the pod dir dir_fd (creating it 0600), durably
 * (fsync), in a single write. -EINVAL for an invalid name.
 */
int pod_resources_append(int dir_fd, enum pod_resource_kind kind, const char *name);

/*
 * The same with the kind as a string, in the shape of a "record this before creating it"
 * callback (ccnet_record_fn of stage1/net): userdata points to the pod dir fd (an int).
 * -EINVAL for an unknown kind or an invalid name.
 */
int pod_resources_record(void *userdata, const char *kind, const char *name);

/*
 * Parse a record. -EBADMSG for a malformed line (unknown kind, bad name, no newline at the
 * end of a non-empty record, ...); *reterr_line is then its 1-based number.
 */
int pod_resources_parse(const char *buf, size_t len, struct pod_resource **ret, size_t *ret_n,
			unsigned *reterr_line);
/* Load cc/resources under dir_fd; a missing file is an empty record. */
int pod_resources_load(int dir_fd, struct pod_resource **ret, size_t *ret_n, unsigned *reterr_line);

/* Remove one resource; 0 if it was removed or was already gone. */
int pod_resource_remove(const struct pod_resource *r);
