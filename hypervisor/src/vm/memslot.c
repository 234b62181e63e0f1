/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>

#include "vm/memslot.h"

int memslot_split(uint64_t gpa, uint64_t size, const struct memslot_range *holes, unsigned n_holes,
		  struct memslot_range *out, unsigned max)
{
	uint64_t pos = gpa, end = gpa + size;
	unsigned n = 0;

	while (pos < end) {
		uint64_t next_hole = end, hole_end = end;

		/* the lowest hole that ends after pos */
		for (unsigned i = 0; i < n_holes; i++) {
			uint64_t hs = holes[i].gpa, he = holes[i].gpa + holes[i].size;

			if (he > pos && hs < next_hole && hs < end) {
				next_hole = hs > pos ? hs : pos;
				hole_end = he < end ? he : end;
			}
		}
		if (next_hole > pos) {
			if (n >= max)
				return -ENOSPC;
			out[n++] = (struct memslot_range){.gpa = pos, .size = next_hole - pos};
		}
		pos = hole_end;
	}
	return (int) n;
}
