/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cc/macro.h"
#include "manifest/isolator.h"
#include "manifest/quantity.h"

static const char *const isolator_names[_MANIFEST_ISOLATOR_TYPE_MAX] = {
	[MANIFEST_ISOLATOR_UNKNOWN] = NULL,
	[MANIFEST_ISOLATOR_RESOURCE_CPU] = "resource/cpu",
	[MANIFEST_ISOLATOR_RESOURCE_MEMORY] = "resource/memory",
	[MANIFEST_ISOLATOR_RESOURCE_BLOCK_BANDWIDTH] = "resource/block-bandwidth",
	[MANIFEST_ISOLATOR_RESOURCE_BLOCK_IOPS] = "resource/block-iops",
	[MANIFEST_ISOLATOR_RESOURCE_NETWORK_BANDWIDTH] = "resource/network-bandwidth",
	[MANIFEST_ISOLATOR_CAPABILITIES_RETAIN] = "os/linux/capabilities-retain-set",
	[MANIFEST_ISOLATOR_CAPABILITIES_REMOVE] = "os/linux/capabilities-remove-set",
	[MANIFEST_ISOLATOR_SECCOMP_RETAIN] = "os/linux/seccomp-retain-set",
	[MANIFEST_ISOLATOR_SECCOMP_REMOVE] = "os/linux/seccomp-remove-set",
	[MANIFEST_ISOLATOR_NO_NEW_PRIVILEGES] = "os/linux/no-new-privileges",
	[MANIFEST_ISOLATOR_OOM_SCORE_ADJ] = "os/linux/oom-score-adj",
	[MANIFEST_ISOLATOR_CPU_SHARES] = "os/linux/cpu-shares",
	[MANIFEST_ISOLATOR_SELINUX_CONTEXT] = "os/linux/selinux-context",
	[MANIFEST_ISOLATOR_APPARMOR_PROFILE] = "os/linux/apparmor-profile",
	[MANIFEST_ISOLATOR_SYSCTL] = "os/unix/sysctl",
};

enum manifest_isolator_type manifest_isolator_type_from_name(const char *name)
{
	if (!name)
		return _MANIFEST_ISOLATOR_TYPE_INVALID;
	for (int t = 1; t < _MANIFEST_ISOLATOR_TYPE_MAX; t++)
		if (strcmp(isolator_names[t], name) == 0)
			return (enum manifest_isolator_type) t;
	return MANIFEST_ISOLATOR_UNKNOWN;
}

const char *manifest_isolator_type_to_name(enum manifest_isolator_type t)
{
	if (t < 0 || t >= _MANIFEST_ISOLATOR_TYPE_MAX)
		return NULL;
	return isolator_names[t];
}

const struct manifest_isolator *manifest_isolators_find(const struct manifest_isolator_list *l,
							const char *name)
{
	if (!l || !name)
		return NULL;
	for (size_t i = l->n; i > 0; i--)
		if (strcmp(l->items[i - 1].name, name) == 0)
			return &l->items[i - 1];
	return NULL;
}

const struct manifest_isolator *manifest_isolators_find_type(const struct manifest_isolator_list *l,
							     enum manifest_isolator_type t)
{
	if (!l || t <= MANIFEST_ISOLATOR_UNKNOWN || t >= _MANIFEST_ISOLATOR_TYPE_MAX)
		return NULL;
	return manifest_isolators_find(l, isolator_names[t]);
}

static bool isolator_is_resource(const struct manifest_isolator *iso)
{
	return iso->type >= MANIFEST_ISOLATOR_RESOURCE_CPU &&
	       iso->type <= MANIFEST_ISOLATOR_RESOURCE_NETWORK_BANDWIDTH;
}

static int resource_convert(const struct manifest_isolator *iso, const char *q, uint64_t *ret)
{
	if (!q)
		return -ENODATA;
	if (iso->type == MANIFEST_ISOLATOR_RESOURCE_CPU)
		return quantity_to_millis(q, ret);
	return quantity_to_bytes(q, ret);
}

int manifest_resource_get_limit(const struct manifest_isolator *iso, uint64_t *ret)
{
	assert_return(iso && ret, -EINVAL);
	assert_return(isolator_is_resource(iso), -EINVAL);
	return resource_convert(iso, iso->v.resource.limit, ret);
}

int manifest_resource_get_request(const struct manifest_isolator *iso, uint64_t *ret)
{
	assert_return(iso && ret, -EINVAL);
	assert_return(isolator_is_resource(iso), -EINVAL);
	if (iso->v.resource.request)
		return resource_convert(iso, iso->v.resource.request, ret);
	return resource_convert(iso, iso->v.resource.limit, ret);
}

static void strv_free(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

void manifest_isolator_done(struct manifest_isolator *iso)
{
	if (!iso)
		return;
	switch (iso->type) {
	case MANIFEST_ISOLATOR_RESOURCE_CPU:
	case MANIFEST_ISOLATOR_RESOURCE_MEMORY:
	case MANIFEST_ISOLATOR_RESOURCE_BLOCK_BANDWIDTH:
	case MANIFEST_ISOLATOR_RESOURCE_BLOCK_IOPS:
	case MANIFEST_ISOLATOR_RESOURCE_NETWORK_BANDWIDTH:
		free(iso->v.resource.request);
		free(iso->v.resource.limit);
		break;
	case MANIFEST_ISOLATOR_CAPABILITIES_RETAIN:
	case MANIFEST_ISOLATOR_CAPABILITIES_REMOVE:
	case MANIFEST_ISOLATOR_SECCOMP_RETAIN:
	case MANIFEST_ISOLATOR_SECCOMP_REMOVE:
		strv_free(iso->v.set.names, iso->v.set.n);
		free(iso->v.set.errno_name);
		break;
	case MANIFEST_ISOLATOR_SELINUX_CONTEXT:
		free(iso->v.selinux.user);
		free(iso->v.selinux.role);
		free(iso->v.selinux.type);
		free(iso->v.selinux.level);
		break;
	case MANIFEST_ISOLATOR_APPARMOR_PROFILE:
		free(iso->v.apparmor_profile);
		break;
	case MANIFEST_ISOLATOR_SYSCTL:
		strv_free(iso->v.sysctl.keys, iso->v.sysctl.n);
		strv_free(iso->v.sysctl.values, iso->v.sysctl.n);
		break;
	default:
		break;
	}
	free(iso->name);
	free(iso->raw_json);
	memset(iso, 0, sizeof(*iso));
}

void manifest_isolator_list_done(struct manifest_isolator_list *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++)
		manifest_isolator_done(&l->items[i]);
	free(l->items);
	l->items = NULL;
	l->n = 0;
}
