/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "density/same-pages.h"
#include "density/zero-pages.h"
#include "cc/macro.h"

#define SWEEP_CHUNK_PAGES     1024u /* mincore() vector per call: 4 MiB of RAM */
#define SWEEP_SCAN_PER_BUDGET 16u   /* pages of address space a slice may scan per budget page */

bool zero_page_check(const void *p)
{
	const uint64_t *w = p;
	uint64_t acc = 0;

	/* Most pages in use differ from zero in their first bytes. */
	if (w[0] | w[1] | w[2] | w[3])
		return false;
	for (unsigned i = 4; i < BALLOON_PAGE_SIZE / sizeof(*w); i += 4) {
		acc |= w[i] | w[i + 1] | w[i + 2] | w[i + 3];
		if (acc)
			return false;
	}
	return true;
}

/* Resident zero pages [start, start + len). */
struct sweep_run {
	uint8_t *start; /* NULL: no run open */
	size_t len;
	uint64_t zero_pages;
};

static void sweep_run_flush(struct sweep_run *run, struct balloon_sink *sink,
			    struct zero_sweep_result *res)
{
	if (!run->start)
		return;
	if (sink->discard(run->start, run->len, sink->opaque) < 0) {
		sink->failed++;
	} else {
		sink->discarded += run->len;
		res->given_back_pages += run->zero_pages;
	}
	*run = (struct sweep_run){0};
}

/*
 * One page of a chunk: extend the open run of zero pages, or end it and hand the page to the
 * merger. -errno only when a failed merge lost the page (res->page_lost).
 */
static int sweep_page(uint8_t *page, bool resident, struct sweep_run *run,
		      struct balloon_sink *sink, struct same_pages *merge,
		      struct zero_sweep_result *res)
{
	int r;

	/* An absent page ends a run: it may be swapped out (mincore() says absent for a page in
	 * swap), and a discard would drop its data. */
	if (!resident) {
		sweep_run_flush(run, sink, res);
		return 0;
	}
	res->resident_pages++;
	/* A merged page is never discarded: that would bring back its pattern, not zeroes. */
	if (same_pages_is_merged(merge, page)) {
		sweep_run_flush(run, sink, res);
		r = same_pages_revisit(merge, page);
		if (r < 0) {
			res->page_lost = true;
			return r;
		}
		res->merged_pages += r == SAME_PAGES_REMERGED;
		res->zero_pages += r == SAME_PAGES_ZEROED;
		res->given_back_pages += r == SAME_PAGES_ZEROED;
		return 0;
	}
	if (!zero_page_check(page)) {
		sweep_run_flush(run, sink, res);
		if (!merge)
			return 0;
		r = same_pages_visit(merge, page);
		if (r < 0) {
			res->page_lost = true;
			return r;
		}
		res->merged_pages += (uint64_t) r;
		return 0;
	}
	res->zero_pages++;
	if (!run->start)
		run->start = page;
	run->len = (size_t) (page + BALLOON_PAGE_SIZE - run->start);
	run->zero_pages++;
	return 0;
}

/*
 * Sweep piece p from page *pos on, a chunk at a time, until its end, until budget resident
 * pages have been looked at, or until SWEEP_SCAN_PER_BUDGET x budget pages have been asked
 * about (both checked at chunk ends). *pos is where to go on.
 */
static int sweep_piece(const struct balloon_piece *p, uint64_t *pos, uint64_t budget,
		       struct balloon_sink *sink, struct same_pages *merge,
		       struct zero_sweep_result *res)
{
	unsigned char vec[SWEEP_CHUNK_PAGES];
	struct sweep_run run = {0};
	uint64_t n_pages = p->size / BALLOON_PAGE_SIZE;
	int r = 0;

	while (r >= 0 && *pos < n_pages && res->resident_pages < budget &&
	       res->scanned_pages < budget * SWEEP_SCAN_PER_BUDGET) {
		unsigned n = (unsigned) MIN((uint64_t) SWEEP_CHUNK_PAGES, n_pages - *pos);
		uint8_t *base = p->hva + *pos * BALLOON_PAGE_SIZE;

		if (mincore(base, (size_t) n * BALLOON_PAGE_SIZE, vec) < 0) {
			r = -errno;
			break;
		}
		for (unsigned i = 0; r >= 0 && i < n; i++)
			r = sweep_page(base + (size_t) i * BALLOON_PAGE_SIZE, vec[i] & 1, &run,
				       sink, merge, res);
		*pos += n;
		res->scanned_pages += n;
	}
	/* A run never outlives the call: the next slice runs after the guest has. */
	sweep_run_flush(&run, sink, res);
	return r;
}

int zero_pages_sweep(const struct balloon_map *map, struct zero_sweep_cursor *cursor,
		     uint64_t budget, struct balloon_sink *sink, struct same_pages *merge,
		     struct zero_sweep_result *ret)
{
	assert_return(map && cursor && budget > 0 && sink && sink->discard && ret, -EINVAL);
	*ret = (struct zero_sweep_result){0};
	if (merge && cursor->piece == 0 && cursor->page == 0)
		same_pages_sweep_start(merge);
	while (cursor->piece < map->n) {
		int r = sweep_piece(&map->pieces[cursor->piece], &cursor->page, budget, sink, merge,
				    ret);

		if (r < 0) {
			*cursor = (struct zero_sweep_cursor){0};
			return r;
		}
		if (cursor->page < map->pieces[cursor->piece].size / BALLOON_PAGE_SIZE)
			return 0; /* the budget ran out inside this piece */
		cursor->piece++;
		cursor->page = 0;
	}
	*cursor = (struct zero_sweep_cursor){0};
	return 1;
}
