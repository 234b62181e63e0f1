/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <string.h>

#include "density/balloon-map.h"
#include "cc/macro.h"

static bool balloon_aligned(uint64_t v)
{
	return (v & (BALLOON_PAGE_SIZE - 1)) == 0;
}

/* [a, a + alen) and [b, b + blen) overlap (both without overflow). */
static bool balloon_overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

void balloon_map_init(struct balloon_map *map)
{
	memset(map, 0, sizeof(*map));
}

int balloon_map_add(struct balloon_map *map, uint64_t gpa, uint64_t size, void *hva)
{
	uint64_t h = (uint64_t) (uintptr_t) hva;

	assert_return(map && hva, -EINVAL);
	if (size == 0 || !balloon_aligned(gpa) || !balloon_aligned(size) || !balloon_aligned(h) ||
	    gpa + size < gpa || h + size < h)
		return -EINVAL;
	for (unsigned i = 0; i < map->n; i++) {
		const struct balloon_piece *p = &map->pieces[i];

		if (balloon_overlap(gpa, size, p->gpa, p->size) ||
		    balloon_overlap(h, size, (uint64_t) (uintptr_t) p->hva, p->size))
			return -EEXIST;
	}
	if (map->n >= BALLOON_MAP_MAX)
		return -ENOSPC;
	map->pieces[map->n++] = (struct balloon_piece){.gpa = gpa, .size = size, .hva = hva};
	return 0;
}

/* Cut [start, end) out of piece i of m; may append the tail as a new piece. */
static int balloon_piece_cut(struct balloon_map *m, unsigned i, uint64_t start, uint64_t end)
{
	struct balloon_piece *p = &m->pieces[i];
	uint64_t pend = p->gpa + p->size;

	if (end <= p->gpa || start >= pend)
		return 0;
	if (start > p->gpa && end < pend) {
		if (m->n >= BALLOON_MAP_MAX)
			return -ENOSPC;
		m->pieces[m->n++] = (struct balloon_piece){
			.gpa = end,
			.size = pend - end,
			.hva = p->hva + (end - p->gpa),
		};
		p->size = start - p->gpa;
	} else if (start > p->gpa) {
		p->size = start - p->gpa;
	} else if (end < pend) {
		p->hva += end - p->gpa;
		p->size = pend - end;
		p->gpa = end;
	} else {
		p->size = 0; /* dropped below */
	}
	return 0;
}

int balloon_map_remove(struct balloon_map *map, uint64_t gpa, uint64_t size)
{
	struct balloon_map m;
	uint64_t start, end;
	unsigned n_before, k = 0;
	int r;

	assert_return(map, -EINVAL);
	if (size == 0)
		return 0;
	start = gpa & ~(BALLOON_PAGE_SIZE - 1);
	end = gpa + size < gpa ? UINT64_MAX : gpa + size;
	end = end > UINT64_MAX - BALLOON_PAGE_SIZE ? UINT64_MAX : ALIGN_UP(end, BALLOON_PAGE_SIZE);
	m = *map;
	n_before = m.n;
	for (unsigned i = 0; i < n_before; i++) {
		r = balloon_piece_cut(&m, i, start, end);
		if (r < 0)
			return r;
	}
	for (unsigned i = 0; i < m.n; i++)
		if (m.pieces[i].size > 0)
			m.pieces[k++] = m.pieces[i];
	m.n = k;
	*map = m;
	return 0;
}

/* The clipping walk behind both discard functions; key is a gpa or an hva. */
static uint64_t balloon_map_discard(const struct balloon_map *map, bool by_hva, uint64_t key,
				    uint64_t len, struct balloon_sink *sink)
{
	uint64_t done = 0;
	bool hit = false;

	if (len == 0 || !balloon_aligned(key) || !balloon_aligned(len) || key + len < key) {
		sink->refused++;
		return 0;
	}
	for (unsigned i = 0; i < map->n; i++) {
		const struct balloon_piece *p = &map->pieces[i];
		uint64_t ps = by_hva ? (uint64_t) (uintptr_t) p->hva : p->gpa;
		uint64_t lo = MAX(key, ps), hi = MIN(key + len, ps + p->size);

		if (lo >= hi)
			continue;
		hit = true;
		if (sink->discard(p->hva + (lo - ps), (size_t) (hi - lo), sink->opaque) < 0) {
			sink->failed++;
			continue;
		}
		done += hi - lo;
	}
	if (!hit)
		sink->refused++;
	sink->discarded += done;
	return done;
}

uint64_t balloon_map_discard_gpa(const struct balloon_map *map, uint64_t gpa, uint64_t len,
				 struct balloon_sink *sink)
{
	return balloon_map_discard(map, false, gpa, len, sink);
}

uint64_t balloon_map_discard_hva(const struct balloon_map *map, const void *hva, uint64_t len,
				 struct balloon_sink *sink)
{
	return balloon_map_discard(map, true, (uint64_t) (uintptr_t) hva, len, sink);
}

size_t balloon_pfns_discard(const struct balloon_map *map, const uint8_t *buf, size_t len,
			    struct balloon_sink *sink)
{
	uint64_t run_start = 0, run_pages = 0;
	size_t n = len / 4;

	for (size_t i = 0; i < n; i++) {
		uint64_t pfn = (uint64_t) buf[4 * i] | (uint64_t) buf[4 * i + 1] << 8 |
			       (uint64_t) buf[4 * i + 2] << 16 | (uint64_t) buf[4 * i + 3] << 24;

		if (run_pages > 0 && pfn == run_start + run_pages) {
			run_pages++;
			continue;
		}
		if (run_pages > 0)
			(void) balloon_map_discard_gpa(map, run_start << BALLOON_PAGE_SHIFT,
						       run_pages << BALLOON_PAGE_SHIFT, sink);
		run_start = pfn;
		run_pages = 1;
	}
	if (run_pages > 0)
		(void) balloon_map_discard_gpa(map, run_start << BALLOON_PAGE_SHIFT,
					       run_pages << BALLOON_PAGE_SHIFT, sink);
	if (len % 4)
		sink->refused++;
	return n;
}
