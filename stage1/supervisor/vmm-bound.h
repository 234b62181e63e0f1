/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The host-side bound on the whole VMM process (docs/stage1.md, "Host resources and gc",
 * "The VMM's bound"), sized from the VM:
 *
 *   memory.max      = guest RAM + VMM_BOUND_OVERHEAD_MIB + guest RAM / VMM_BOUND_RAM_DIV
 *                     (the VMM's own heap, 9p and vsock buffers, the kernel's page tables
 *                     and KVM structures for that RAM, and a working set of file pages:
 *                     the DAX-mapped image, the kernel, files read over 9p)
 *   memory.swap.max = 0 (the bound is RAM, never RAM + host swap)
 *   pids.max        = vCPUs + VMM_BOUND_PIDS_EXTRA (the event-loop thread and helpers)
 *
 * and, where no cgroup v2 memory controller can be delegated, RLIMIT_DATA: a bound on
 * private writable mappings (virtual size, not resident memory), so it also counts the
 * image's private mapping and every thread's stack reservation:
 *
 *   RLIMIT_DATA     = memory.max + image size + (vCPUs + 1) * VMM_BOUND_STACK_MIB
 */

#include <stdint.h>
#include <sys/types.h>

#include "stage1/vmsize.h"

#define VMM_BOUND_OVERHEAD_MIB 64u
#define VMM_BOUND_RAM_DIV      32u
#define VMM_BOUND_PIDS_EXTRA   16u
#define VMM_BOUND_STACK_MIB    16u

struct vmm_bound {
	uint64_t memory_max; /* bytes */
	uint64_t pids_max;
	uint64_t data_max; /* bytes, RLIMIT_DATA of the fallback */
};

/*
 * The bound for a VM of size (mem_mib >= 1, cpus >= 1) whose pmem image is image_bytes long.
 * -EINVAL for a zero size, -EOVERFLOW when a figure does not fit in 64 bits.
 */
int vmm_bound_compute(const struct vm_size *size, uint64_t image_bytes, struct vmm_bound *ret);

/* Set pid's RLIMIT_DATA (soft and hard) to b->data_max. */
int vmm_bound_rlimit_apply(pid_t pid, const struct vmm_bound *b);
