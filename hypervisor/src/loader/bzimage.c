/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <string.h>

#include "cc/macro.h"
#include "loader/kernel.h"

/* Offsets in the bzImage file (= in boot_params), from the x86 boot protocol. */
#define BZ_SETUP_SECTS	 0x1f1
#define BZ_BOOT_FLAG	 0x1fe
#define BZ_JUMP		 0x200
#define BZ_HEADER	 0x202
#define BZ_VERSION	 0x206
#define BZ_LOADFLAGS	 0x211
#define BZ_XLOADFLAGS	 0x236
#define BZ_INIT_SIZE	 0x260
#define BZ_HDRS_MAGIC	 0x53726448u /* "HdrS" */
#define BZ_XLF_KERNEL_64 0x1
#define BZ_LOADED_HIGH	 0x1
#define BZ_ENTRY64_OFF	 0x200

static uint16_t bz_u16(const uint8_t *p)
{
	return (uint16_t) (p[0] | p[1] << 8);
}

static uint32_t bz_u32(const uint8_t *p)
{
	return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 |
	       (uint32_t) p[3] << 24;
}

int kernel_parse_bzimage(const void *buf, size_t buf_len, uint64_t file_size,
			 struct kernel_image *ret, const char **reterr_msg)
{
	const uint8_t *b = buf;
	struct kernel_image img = {.kind = KERNEL_BZIMAGE};
	uint64_t setup_sects, pm_off, init_size, hdr_len;

	assert_return(buf && ret && reterr_msg, -EINVAL);
	*reterr_msg = "not a bzImage";
	if (buf_len < BZ_INIT_SIZE + 4 || file_size < buf_len)
		return -ENOEXEC;
	if (bz_u16(b + BZ_BOOT_FLAG) != 0xAA55 || bz_u32(b + BZ_HEADER) != BZ_HDRS_MAGIC)
		return -ENOEXEC;
	*reterr_msg = "bzImage has no 64-bit entry point (boot protocol < 2.12 or !XLF_KERNEL_64)";
	if (bz_u16(b + BZ_VERSION) < 0x020c || !(b[BZ_XLOADFLAGS] & BZ_XLF_KERNEL_64) ||
	    !(b[BZ_LOADFLAGS] & BZ_LOADED_HIGH))
		return -ENOEXEC;
	setup_sects = b[BZ_SETUP_SECTS] ? b[BZ_SETUP_SECTS] : 4;
	pm_off = (setup_sects + 1) * 512;
	*reterr_msg = "bzImage is truncated";
	if (pm_off >= file_size)
		return -ENOEXEC;
	init_size = bz_u32(b + BZ_INIT_SIZE);
	img.entry_gpa = KERNEL_BZ_LOAD_GPA + BZ_ENTRY64_OFF;
	img.n_segments = 1;
	img.segments[0] = (struct kernel_segment){
		.gpa = KERNEL_BZ_LOAD_GPA,
		.file_off = pm_off,
		.filesz = file_size - pm_off,
		.memsz = MAX(file_size - pm_off, init_size),
	};
	/* The setup header runs from 0x1f1 to 0x202 + the byte at 0x201. */
	hdr_len = MIN((uint64_t) (BZ_JUMP + 2 + b[BZ_JUMP + 1] - BZ_SETUP_SECTS),
		      (uint64_t) KERNEL_SETUP_HDR_MAX);
	memcpy(img.setup_hdr, b + BZ_SETUP_SECTS, hdr_len);
	img.setup_hdr_len = (uint32_t) hdr_len;
	*ret = img;
	return 0;
}
