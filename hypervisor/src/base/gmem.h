/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Guest physical memory. Device code reaches guest memory only through these accessors:
 * every access is checked against the region table, with overflow-safe arithmetic, and an
 * access that straddles two regions or leaves them is refused with -EFAULT. Never compute
 * "base + gpa" by hand.
 *
 * Variable names carry their address space: *_gpa (guest physical), *_hva (host virtual).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GMEM_MAX_REGIONS 16

enum gmem_region_flags {
	GMEM_READONLY = 1u << 0, /* guest writes fault (e.g. a read-only pmem image) */
};

struct gmem_region {
	uint64_t gpa;
	uint64_t size;
	void *hva;
	uint32_t flags;
};

struct gmem {
	struct gmem_region regions[GMEM_MAX_REGIONS];
	unsigned n_regions;
};

void gmem_init(struct gmem *gm);
/* Adds a region. -EINVAL for a zero size or overflow, -EEXIST on overlap, -ENOSPC when full. */
int gmem_add_region(struct gmem *gm, uint64_t gpa, uint64_t size, void *hva, uint32_t flags);

/*
 * Host pointer for [gpa, gpa+len) when the whole range lies inside one region.
 * Returns 0 and sets *ret_hva, or -EFAULT. len == 0 is allowed (any gpa inside a region or
 * at its end).
 */
int gmem_ptr(const struct gmem *gm, uint64_t gpa, uint64_t len, void **ret_hva);
/* Like gmem_ptr(), but also refuses read-only regions with -EFAULT. */
int gmem_ptr_rw(const struct gmem *gm, uint64_t gpa, uint64_t len, void **ret_hva);

/* Copy to and from guest memory; the range may span adjacent regions. */
int gmem_read(const struct gmem *gm, uint64_t gpa, void *buf, size_t len);
int gmem_write(const struct gmem *gm, uint64_t gpa, const void *buf, size_t len);

/* Little-endian scalar accessors (x86 is little-endian; virtio 1.x is too). */
int gmem_read_u16(const struct gmem *gm, uint64_t gpa, uint16_t *ret);
int gmem_read_u32(const struct gmem *gm, uint64_t gpa, uint32_t *ret);
int gmem_read_u64(const struct gmem *gm, uint64_t gpa, uint64_t *ret);
int gmem_write_u16(const struct gmem *gm, uint64_t gpa, uint16_t v);
int gmem_write_u32(const struct gmem *gm, uint64_t gpa, uint32_t v);
int gmem_write_u64(const struct gmem *gm, uint64_t gpa, uint64_t v);
