/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <sys/resource.h>

#include "cc/macro.h"
#include "vmm-bound.h"

#define MIB (UINT64_C(1) << 20)

int vmm_bound_compute(const struct vm_size *size, uint64_t image_bytes, struct vmm_bound *ret)
{
	uint64_t mem, stacks, data;

	assert_return(size && ret, -EINVAL);
	if (size->mem_mib == 0 || size->cpus == 0)
		return -EINVAL;
	mem = size->mem_mib + VMM_BOUND_OVERHEAD_MIB + size->mem_mib / VMM_BOUND_RAM_DIV;
	if (mem < size->mem_mib || mem > UINT64_MAX / MIB)
		return -EOVERFLOW;
	mem *= MIB;
	stacks = ((uint64_t) size->cpus + 1) * VMM_BOUND_STACK_MIB * MIB;
	data = mem + image_bytes;
	if (data < mem || data + stacks < data)
		return -EOVERFLOW;
	*ret = (struct vmm_bound){
		.memory_max = mem,
		.pids_max = (uint64_t) size->cpus + VMM_BOUND_PIDS_EXTRA,
		.data_max = data + stacks,
	};
	return 0;
}

int vmm_bound_rlimit_apply(pid_t pid, const struct vmm_bound *b)
{
	struct rlimit rl;

	assert_return(b && pid > 0, -EINVAL);
	rl = (struct rlimit){.rlim_cur = b->data_max, .rlim_max = b->data_max};
	return RET_NERRNO(prlimit(pid, RLIMIT_DATA, &rl, NULL));
}
