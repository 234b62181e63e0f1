/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <inttypes.h>

#include "stage1/vmsize.h"

#define MIB (UINT64_C(1) << 20)
/* Far above any host; keeps the arithmetic below in range. */
#define BUDGET_MAX_MIB (UINT64_C(1) << 30)

/* A resource limit, or 0 when the isolator is absent or has none. */
static int limit_of(const struct manifest_isolator_list *l, enum manifest_isolator_type t,
		    uint64_t *ret)
{
	const struct manifest_isolator *iso = manifest_isolators_find_type(l, t);
	int r;

	*ret = 0;
	if (!iso)
		return 0;
	r = manifest_resource_get_limit(iso, ret);
	if (r == -ENODATA) {
		*ret = 0;
		return 0;
	}
	return r;
}

/* Sum of the apps' limits of type t (saturating at UINT64_MAX). */
static int apps_sum(const struct pod_manifest *pod, const struct image_manifest *const *images,
		    enum manifest_isolator_type t, uint64_t *ret, struct cc_error *reterr)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < pod->n_apps; i++) {
		const struct manifest_app *app =
			pod_app_effective_app(&pod->apps[i], images ? images[i] : NULL);
		uint64_t v;
		int r;

		if (!app)
			continue;
		r = limit_of(&app->isolators, t, &v);
		if (r < 0)
			return cc_error_set(reterr, r, "app %s: invalid %s limit",
					    pod->apps[i].name, manifest_isolator_type_to_name(t));
		if (add_overflows_u64(sum, v, &sum))
			sum = UINT64_MAX;
	}
	*ret = sum;
	return 0;
}

static int budget(const struct pod_manifest *pod, const struct image_manifest *const *images,
		  enum manifest_isolator_type t, uint64_t *ret, struct cc_error *reterr)
{
	int r = limit_of(&pod->isolators, t, ret);

	if (r < 0)
		return cc_error_set(reterr, r, "pod: invalid %s limit",
				    manifest_isolator_type_to_name(t));
	if (*ret > 0)
		return 0;
	return apps_sum(pod, images, t, ret, reterr);
}

int vm_size_compute(const struct pod_manifest *pod, const struct image_manifest *const *images,
		    unsigned host_cpus, uint64_t host_mem_mib, struct vm_size *ret,
		    struct cc_warnings *warnings, struct cc_error *reterr)
{
	uint64_t mem_bytes, millis, mem_mib, cpus, max_cpus;
	int r;

	assert_return(pod && ret && host_cpus >= 1, -EINVAL);

	r = budget(pod, images, MANIFEST_ISOLATOR_RESOURCE_MEMORY, &mem_bytes, reterr);
	if (r < 0)
		return r;
	mem_mib = mem_bytes / MIB + (mem_bytes % MIB ? 1 : 0);
	if (mem_mib > BUDGET_MAX_MIB)
		mem_mib = BUDGET_MAX_MIB;
	mem_mib += VM_SIZE_OVERHEAD_MIB;
	if (mem_mib < VM_SIZE_MIN_MIB)
		mem_mib = VM_SIZE_MIN_MIB;
	mem_mib = (mem_mib + 1) & ~UINT64_C(1);
	if (host_mem_mib > 0 && mem_mib > host_mem_mib) {
		uint64_t capped = host_mem_mib & ~UINT64_C(1);

		if (cc_warnings_add(warnings,
				    "the pod's memory (%" PRIu64 " MiB with the VM overhead) is "
				    "capped at the host's %" PRIu64 " MiB",
				    mem_mib, capped) < 0)
			return -ENOMEM;
		mem_mib = capped;
	}

	r = budget(pod, images, MANIFEST_ISOLATOR_RESOURCE_CPU, &millis, reterr);
	if (r < 0)
		return r;
	cpus = millis / 1000 + (millis % 1000 ? 1 : 0);
	if (cpus == 0)
		cpus = 1;
	/* A clamp, not an error: the cpu isolators are quotas (CPUQuota= in the guest), which
	 * fewer vCPUs still honour; the pod runs as it would on a smaller host. */
	max_cpus = host_cpus < VM_MAX_CPUS ? host_cpus : VM_MAX_CPUS;
	if (cpus > max_cpus) {
		if (cc_warnings_add(warnings,
				    "the pod's %" PRIu64 " vCPUs are capped at %" PRIu64 " (%s)",
				    cpus, max_cpus,
				    max_cpus == host_cpus ? "the host's CPUs"
							  : "cc-vmm's limit per VM") < 0)
			return -ENOMEM;
		cpus = max_cpus;
	}
	*ret = (struct vm_size){.mem_mib = mem_mib, .cpus = (unsigned) cpus};
	return 0;
}
