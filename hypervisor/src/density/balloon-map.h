/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Which guest RAM the balloon may give back, and the parsing of what the guest asks for.
 *
 * A balloon map lists the pieces of guest RAM a discard may touch; the VM builds it
 * (vm_ram_map()). The balloon's includes the kernel's segments mapped MAP_PRIVATE from the
 * vmlinux file: a discard there brings back the file's bytes, which is fine for pages the
 * guest freed. The zero sweep's has them cut out: it discards pages in use. pmem and anything
 * else outside the map are never touched.
 *
 * Everything the guest sends is clipped against the map: a page-aligned range is discarded
 * where it overlaps the map's pieces, never outside them; an unaligned range, or one that
 * overlaps no piece at all, is refused whole. Pure code: the discard itself is a callback.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BALLOON_PAGE_SHIFT 12 /* virtio-balloon PFNs are 4 KiB, whatever the host's page */
#define BALLOON_PAGE_SIZE  (1ull << BALLOON_PAGE_SHIFT)
#define BALLOON_MAP_MAX	   40 /* 2 RAM regions split by up to 16 kernel segments, and more */

struct balloon_piece {
	uint64_t gpa;
	uint64_t size;
	uint8_t *hva;
};

struct balloon_map {
	struct balloon_piece pieces[BALLOON_MAP_MAX];
	unsigned n;
};

/* Called for each host range to discard (page-aligned, inside one piece); returns 0 or -errno. */
typedef int (*balloon_discard_fn)(void *hva, size_t len, void *opaque);

struct balloon_sink {
	balloon_discard_fn discard;
	void *opaque;
	uint64_t discarded; /* bytes handed to discard() that it accepted */
	uint64_t refused;   /* ranges (PFN runs or reported buffers) refused whole */
	uint64_t failed;    /* discard() calls that failed */
};

void balloon_map_init(struct balloon_map *map);
/*
 * Add RAM [gpa, gpa + size) at hva. -EINVAL unless gpa, size and hva are page-aligned and
 * size > 0 without overflow; -EEXIST if it overlaps a piece (by gpa or by hva); -ENOSPC when
 * full.
 */
int balloon_map_add(struct balloon_map *map, uint64_t gpa, uint64_t size, void *hva);
/*
 * Remove [gpa, gpa + size) from the map (rounded out to whole pages), splitting pieces.
 * -ENOSPC if a split needs a slot the map does not have (the map is then unchanged).
 */
int balloon_map_remove(struct balloon_map *map, uint64_t gpa, uint64_t size);

/*
 * Discard the guest range [gpa, gpa + len) (inflate) or the host range [hva, hva + len) (a
 * reported buffer, which virtq_pop() already turned into host addresses), clipped to the map.
 * Returns the bytes discarded, or 0 when the range was refused (counted in sink->refused).
 */
uint64_t balloon_map_discard_gpa(const struct balloon_map *map, uint64_t gpa, uint64_t len,
				 struct balloon_sink *sink);
uint64_t balloon_map_discard_hva(const struct balloon_map *map, const void *hva, uint64_t len,
				 struct balloon_sink *sink);

/*
 * An inflate buffer: an array of little-endian 32-bit PFNs (4 KiB pages). Runs of consecutive
 * PFNs are discarded as one range. A trailing partial entry is refused. Returns the number of
 * whole PFNs parsed.
 */
size_t balloon_pfns_discard(const struct balloon_map *map, const uint8_t *buf, size_t len,
			    struct balloon_sink *sink);
