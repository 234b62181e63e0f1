/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The pod VM's memory and vCPUs (docs/stage1.md "VM sizing"):
 *   memory = VM_SIZE_OVERHEAD_MIB + the apps' budget, at least VM_SIZE_MIN_MIB, rounded up
 *            to 2 MiB; the budget is the pod's resource/memory limit when set, else the sum
 *            of the apps' resource/memory limits (apps without one add nothing);
 *   vCPUs  = ceil(pod resource/cpu limit) when set, else ceil(sum of the apps' cpu limits),
 *            1 when there is none; at most host_cpus and VM_MAX_CPUS (cc-vmm's limit,
 *            cc/vm-limits.h).
 * A request larger than the host or cc-vmm (memory over host_mem_mib, vCPUs over host_cpus
 * or VM_MAX_CPUS) is capped with a warning naming the cap.
 */

#include <stdint.h>

#include "manifest/image-manifest.h"
#include "manifest/pod-manifest.h"
#include "cc/error.h"
#include "cc/warnings.h"
#include "cc/vm-limits.h"

#define VM_SIZE_OVERHEAD_MIB 128u
#define VM_SIZE_MIN_MIB	     128u

struct vm_size {
	uint64_t mem_mib;
	unsigned cpus;
};

/*
 * images[i] is app i's image manifest or NULL (used only when the pod app has no app object);
 * images itself may be NULL. host_cpus >= 1; host_mem_mib 0: unknown (no memory cap).
 */
int vm_size_compute(const struct pod_manifest *pod, const struct image_manifest *const *images,
		    unsigned host_cpus, uint64_t host_mem_mib, struct vm_size *ret,
		    struct cc_warnings *warnings, struct cc_error *reterr);
