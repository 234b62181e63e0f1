/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Guest RAM the guest has written but left all zero (in a Linux guest most likely tables
 * sized at boot and barely filled, the unused depths of zeroed kernel stacks, slabs and
 * buffers cleared at allocation). Each such page costs the host a page, and reads the same once
 * discarded (MADV_DONTNEED on anonymous memory: the next read is the host's zero page, the next
 * write a fresh zeroed page). So a sweep gives them back without the guest's help.
 *
 * The sweep looks only at the resident pages (mincore) of the map's pieces, which must be
 * anonymous private memory (balloon-map.h: never a file mapping, where a discard would bring
 * back the file's bytes). It is only correct while nothing writes that memory: the caller
 * pauses every vCPU and runs it on the thread that runs the devices.
 */

#include <stdbool.h>
#include <stdint.h>

#include "density/balloon-map.h"

struct same_pages;

struct zero_sweep_result {
	uint64_t scanned_pages;	 /* pages of the map whose residency was asked */
	uint64_t resident_pages; /* resident pages looked at */
	uint64_t zero_pages;	 /* of those, all zero: handed to the sink in runs */
	/* Zero pages in the runs the sink accepted; reads of never-written pages, which map the
	 * host's shared zero page and cost nothing, count too. */
	uint64_t given_back_pages;
	uint64_t merged_pages; /* non-zero pages mapped onto a pattern (same-pages.h) */
	bool page_lost;	       /* a failed merge lost a guest page: the VM must stop */
};

/* A 4 KiB page of zeroes. p is 8-byte aligned. */
bool zero_page_check(const void *p);

/* Where a sweep goes on: piece index and page within it. {0} starts from the beginning. */
struct zero_sweep_cursor {
	unsigned piece;
	uint64_t page;
};

/*
 * Hand every run of resident all-zero pages of the map's pieces to sink->discard (counted in
 * sink->discarded, or sink->failed when it fails), from the cursor on. A run is resident zero
 * pages only: an absent page may be in swap. Stops at the end of the 1024-page chunk in which
 * budget resident pages have been looked at, or 16 x budget pages of the map scanned, so that
 * the caller can let the guest run between slices of a large VM's sweep. Returns 1 when the map is
 * done (the cursor back at its start), 0 when the budget ran out (the cursor where to go on), or
 * -errno when mincore() fails (a piece that is not mapped; the cursor back at its start).
 *
 * With merge (NULL: none), every resident page that is not zero goes to same_pages_visit(),
 * and the pages it merged are never part of a run; a cursor at the map's start begins a new
 * sweep for it (same_pages_sweep_start()). -errno with ret->page_lost when a merge
 * lost a page.
 */
int zero_pages_sweep(const struct balloon_map *map, struct zero_sweep_cursor *cursor,
		     uint64_t budget, struct balloon_sink *sink, struct same_pages *merge,
		     struct zero_sweep_result *ret);
