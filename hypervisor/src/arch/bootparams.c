/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <string.h>

#include "arch/bootparams.h"
#include "cc/macro.h"

#define BP_LOADED_HIGH	  0x01
#define BP_CAN_USE_HEAP	  0x80
#define BP_HDRS_MAGIC	  0x53726448u
#define BP_PROTOCOL	  0x020f
#define BP_LOADER_UNKNOWN 0xff

static void bp_put16(uint8_t *zp, unsigned off, uint16_t v)
{
	memcpy(zp + off, &v, sizeof(v));
}

static void bp_put32(uint8_t *zp, unsigned off, uint32_t v)
{
	memcpy(zp + off, &v, sizeof(v));
}

int bootparams_build(uint8_t zp[BOOTPARAMS_SIZE], const struct kernel_image *img,
		     const struct e820_map *map, uint64_t cmdline_gpa, uint32_t cmdline_len)
{
	assert_return(zp && img && map, -EINVAL);
	assert_return(map->n <= E820_MAX_ENTRIES, -EINVAL);
	memset(zp, 0, BOOTPARAMS_SIZE);
	if (img->kind == KERNEL_BZIMAGE) {
		assert_return(img->setup_hdr_len <= KERNEL_SETUP_HDR_MAX, -EINVAL);
		memcpy(zp + BP_SETUP_SECTS, img->setup_hdr, img->setup_hdr_len);
	} else {
		bp_put16(zp, BP_BOOT_FLAG, 0xAA55);
		bp_put32(zp, BP_HEADER, BP_HDRS_MAGIC);
		bp_put16(zp, BP_VERSION, BP_PROTOCOL);
		bp_put32(zp, BP_KERNEL_ALIGNMENT, 0x1000000);
	}
	zp[BP_TYPE_OF_LOADER] = BP_LOADER_UNKNOWN;
	zp[BP_LOADFLAGS] |= BP_LOADED_HIGH | BP_CAN_USE_HEAP;
	bp_put16(zp, BP_HEAP_END_PTR, 0xfe00);
	bp_put32(zp, BP_CMD_LINE_PTR, (uint32_t) cmdline_gpa);
	bp_put32(zp, BP_EXT_CMD_LINE_PTR, (uint32_t) (cmdline_gpa >> 32));
	bp_put32(zp, BP_CMDLINE_SIZE, cmdline_len);
	zp[BP_E820_ENTRIES] = (uint8_t) map->n;
	memcpy(zp + BP_E820_TABLE, map->entries, map->n * sizeof(struct e820_entry));
	return 0;
}
