/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Guest RAM pages whose bytes repeat many times within one VM, each copy costing the host a
 * page. In a Linux guest most of them are arrays of identical `struct page`s: those of the
 * DAX image's range (64 identical 64-byte entries per page until a page of the image is
 * mapped) and, with our kernel, those of free RAM. Merging maps every copy MAP_PRIVATE from
 * one page of a memfd that holds the bytes, a pattern: reads share that page, and the guest's
 * first write to a copy (or the VMM's) takes a private copy again, as for any private file
 * mapping.
 *
 * Learning: every page the sweep hands over is hashed into a small table (one slot per hash
 * bucket, a count that grows on the same hash and shrinks on another: a content that repeats
 * keeps its slot; the counts start over with each sweep). On its SAME_PAGES_MIN_COPIES-th
 * sighting in one sweep the page's bytes become a pattern (written once; a pattern never
 * changes while pages map it). Merging: a page whose hash and bytes equal a pattern's is
 * mapped onto it.
 *
 * Within one VM only: no page is shared between VMs, so a merge is no side channel between
 * pods; inside the VM it is one between the pod's own apps, as the guest's own page sharing
 * would be (docs/vmm.md, "Merging repeated pages").
 *
 * A merged page must never be discarded with MADV_DONTNEED by anything that expects zeroes
 * back (the zero sweep): on a private file mapping a discard brings back the pattern, not
 * zeroes. same_pages_is_merged() says which pages those are, and same_pages_revisit() looks
 * at them instead: one the guest has written since (a private copy, /proc/self/pagemap says)
 * is given back as anonymous memory when all zero, or merged again when it has a pattern's
 * bytes again. The balloon's discards of free pages are fine: the guest expects nothing of a
 * free page's bytes.
 *
 * Only correct while nothing writes guest RAM: the caller pauses every vCPU and runs this on
 * the thread that runs the devices.
 */

#include <stdbool.h>
#include <stdint.h>

#define SAME_PAGES_MIN_COPIES	16u /* sightings of one hash before its bytes become a pattern */
#define SAME_PAGES_MAX_PATTERNS 32u
#define SAME_PAGES_TABLE_SLOTS	1024u /* 16 KiB of counts */

struct same_pages;

struct same_pages_stats {
	uint64_t merged_pages; /* pages mapped onto a pattern now (a private copy or not) */
	unsigned patterns;
	uint64_t failed; /* merges that mmap() refused (the page was put back as it was) */
};

/*
 * Merging for the host range [base, base + size) (page-aligned: guest RAM), at most
 * max_merged pages in all (each merged page is a mapping of its own: this bounds the VMA count
 * the VMM's process reaches, far below vm.max_map_count). mergeable: give every merged page
 * MADV_MERGEABLE again, as RAM had (KSM on request). It opens /proc/self/pagemap and a memfd,
 * so it must run before the sandbox. -EINVAL for a bad range, or -errno.
 */
int same_pages_new(void *base, uint64_t size, uint64_t max_merged, bool mergeable,
		   struct same_pages **ret);
void same_pages_free(struct same_pages *sp);

/* A page of the range that is mapped onto a pattern. */
bool same_pages_is_merged(const struct same_pages *sp, const void *page);

/*
 * Look at one resident page of the range that is neither zero nor merged (vCPUs paused): learn
 * its hash, and merge it when it equals a pattern. 1 merged, 0 not, or -errno when a failed
 * merge could not put the page back: that guest page is lost, and the VM must stop (-EINVAL:
 * not such a page).
 */
int same_pages_visit(struct same_pages *sp, void *page);

#define SAME_PAGES_REMERGED 1 /* a private copy with a pattern's bytes, merged again */
#define SAME_PAGES_ZEROED   2 /* a private copy of zeroes, anonymous memory again */
/*
 * Look at one merged page (vCPUs paused): nothing to do while it is the pattern's page; a
 * private copy the guest wrote is merged again when it has a pattern's bytes, or mapped
 * anonymous again when all zero. SAME_PAGES_REMERGED, SAME_PAGES_ZEROED, 0, or -errno as
 * same_pages_visit() (a page lost; -EINVAL: not a merged page).
 */
int same_pages_revisit(struct same_pages *sp, void *page);

/* A sweep starts: forget the counts of the last (a pattern needs its copies in one sweep). */
void same_pages_sweep_start(struct same_pages *sp);

void same_pages_get_stats(const struct same_pages *sp, struct same_pages_stats *ret);
