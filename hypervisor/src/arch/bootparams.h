/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The zero page (struct boot_params of the x86 boot protocol) for the 64-bit entry. Built
 * into a plain 4 KiB buffer so that tests can inspect it; the caller copies it to
 * LAYOUT_ZERO_PAGE_GPA.
 */

#include <stdint.h>

#include "arch/e820.h"
#include "loader/kernel.h"

#define BOOTPARAMS_SIZE 4096

/* Offsets into boot_params (Documentation/arch/x86/zero-page.rst). */
#define BP_EXT_CMD_LINE_PTR 0x0c8
#define BP_E820_ENTRIES	    0x1e8
#define BP_SETUP_SECTS	    0x1f1
#define BP_BOOT_FLAG	    0x1fe
#define BP_HEADER	    0x202
#define BP_VERSION	    0x206
#define BP_TYPE_OF_LOADER   0x210
#define BP_LOADFLAGS	    0x211
#define BP_HEAP_END_PTR	    0x224
#define BP_CMD_LINE_PTR	    0x228
#define BP_KERNEL_ALIGNMENT 0x230
#define BP_CMDLINE_SIZE	    0x238
#define BP_E820_TABLE	    0x2d0

int bootparams_build(uint8_t zp[BOOTPARAMS_SIZE], const struct kernel_image *img,
		     const struct e820_map *map, uint64_t cmdline_gpa, uint32_t cmdline_len);
