/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <string.h>

#include "arch/bootparams.h"
#include "arch/e820.h"
#include "arch/layout.h"
#include "arch/longmode.h"
#include "arch/mptable.h"
#include "vm/vm-internal.h"

#define BDA_EBDA_SEGMENT 0x40e
#define BDA_BASE_MEM_KB	 0x413

static int vm_boot_mptable(struct vm *vm)
{
	uint8_t buf[LAYOUT_EBDA_END - LAYOUT_EBDA_GPA];
	size_t len;
	int r;

	r = mptable_build(buf, sizeof(buf), LAYOUT_EBDA_GPA, vm->cfg.n_cpus, &len);
	if (r < 0)
		return r;
	r = gmem_write(&vm->gm, LAYOUT_EBDA_GPA, buf, len);
	/* The BIOS data area points at the EBDA, where Linux looks for the MP table first. */
	if (r >= 0)
		r = gmem_write_u16(&vm->gm, BDA_EBDA_SEGMENT, (uint16_t) (LAYOUT_EBDA_GPA >> 4));
	if (r >= 0)
		r = gmem_write_u16(&vm->gm, BDA_BASE_MEM_KB, (uint16_t) (LAYOUT_EBDA_GPA >> 10));
	return r;
}

int vm_boot_data_setup(struct vm *vm, struct cc_error *reterr)
{
	uint8_t zp[BOOTPARAMS_SIZE];
	struct e820_map map;
	size_t cmdline_len = strlen(vm->cmdline);
	int r;

	if (cmdline_len >= LAYOUT_CMDLINE_MAX)
		return cc_error_set_status(reterr, VMM_EXIT_USAGE, E2BIG,
					   "kernel command line too long (%zu bytes, max %u): %m",
					   cmdline_len, LAYOUT_CMDLINE_MAX - 1);
	r = longmode_tables_write(&vm->gm);
	if (r >= 0)
		r = gmem_write(&vm->gm, LAYOUT_CMDLINE_GPA, vm->cmdline, cmdline_len + 1);
	if (r >= 0)
		r = e820_build(&map, vm->low_size, vm->high_size, vm->pmem_gpa, vm->pmem_size);
	if (r >= 0)
		r = bootparams_build(zp, &vm->kernel, &map, LAYOUT_CMDLINE_GPA,
				     (uint32_t) cmdline_len);
	if (r >= 0)
		r = gmem_write(&vm->gm, LAYOUT_ZERO_PAGE_GPA, zp, sizeof(zp));
	if (r >= 0)
		r = vm_boot_mptable(vm);
	if (r < 0)
		return cc_error_set_status(reterr, VMM_EXIT_FAILURE, r,
					   "cannot write the boot data: %m");
	return 0;
}
