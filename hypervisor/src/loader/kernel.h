/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Kernel images. Parsing is pure (a buffer in, a load plan out) so that crafted images can be
 * unit-tested; kernel_load() then places the plan into guest RAM.
 *
 * ELF64 (vmlinux or any minimal ELF64): every PT_LOAD lands at its p_paddr; the guest enters
 * at e_entry in 64-bit mode. A segment whose p_paddr and p_offset are page-aligned is mmap'd
 * MAP_PRIVATE from the file over guest RAM (its full pages: kernel text stays the host's page
 * cache, shared by every VM); its partial last page and its bss are plain anonymous RAM, so
 * zeroing the bss never dirties a file page. Other segments are copied.
 *
 * bzImage: the protected-mode part is copied to 16 MiB and entered at its 64-bit entry
 * (load address + 0x200); its setup header goes into boot_params.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KERNEL_MAX_SEGMENTS  16
#define KERNEL_MIN_GPA	     0x100000ull /* below: boot data (zero page, page tables, MP) */
#define KERNEL_BZ_LOAD_GPA   0x1000000ull
#define KERNEL_SETUP_HDR_OFF 0x1f1
#define KERNEL_SETUP_HDR_MAX 0x7f /* setup header bytes copied into boot_params */
#define KERNEL_HEADER_READ   8192 /* bytes read to recognise and parse a kernel */

enum kernel_kind {
	KERNEL_ELF64,
	KERNEL_BZIMAGE,
};

struct kernel_segment {
	uint64_t gpa;
	uint64_t file_off;
	uint64_t filesz;
	uint64_t memsz;
	bool writable; /* PF_W: the kernel's data, not its text and read-only data */
};

struct kernel_image {
	enum kernel_kind kind;
	uint64_t entry_gpa;
	unsigned n_segments;
	struct kernel_segment segments[KERNEL_MAX_SEGMENTS];
	uint8_t setup_hdr[KERNEL_SETUP_HDR_MAX]; /* bzImage only */
	uint32_t setup_hdr_len;
};

/* A range of guest RAM, host-contiguous, that kernel segments may land in. */
struct kernel_ram {
	uint64_t gpa;
	uint64_t size;
	void *hva;
};

/*
 * Parse the first buf_len bytes of a file of file_size bytes. -ENOEXEC with *reterr_msg set
 * for anything we cannot boot (not ELF, truncated, overlapping segments, ...).
 */
int kernel_parse(const void *buf, size_t buf_len, uint64_t file_size, struct kernel_image *ret,
		 const char **reterr_msg);
int kernel_parse_elf(const void *buf, size_t buf_len, uint64_t file_size, struct kernel_image *ret,
		     const char **reterr_msg);
int kernel_parse_bzimage(const void *buf, size_t buf_len, uint64_t file_size,
			 struct kernel_image *ret, const char **reterr_msg);

/* -ENOEXEC with *reterr_msg unless every segment lies inside one RAM range, above boot data. */
int kernel_check_ram(const struct kernel_image *img, const struct kernel_ram *ram, unsigned n_ram,
		     const char **reterr_msg);

/* True when segment s is mmap'd from the file (its full pages), false when it is copied. */
int kernel_segment_mappable(const struct kernel_segment *s);

/* The guest address n bytes at file offset off land at: -ERANGE unless one segment holds them. */
int kernel_gpa_of(const struct kernel_image *img, uint64_t off, uint64_t n, uint64_t *ret_gpa);

/*
 * Place the image in guest RAM from fd (the opened kernel file). *ret_n_mapped gets the number
 * of file-mapped ranges written to ret_mapped (gpa/size pairs, each wants its own memslot).
 */
int kernel_load(int fd, const struct kernel_image *img, const struct kernel_ram *ram,
		unsigned n_ram, struct kernel_ram *ret_mapped, unsigned *ret_n_mapped);
