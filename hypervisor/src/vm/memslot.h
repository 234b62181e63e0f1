/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Splitting a RAM range around holes (the file-mapped kernel ranges, which get memslots of
 * their own). Pure, for unit tests.
 */

#include <stdint.h>

struct memslot_range {
	uint64_t gpa;
	uint64_t size;
};

/*
 * Writes the parts of [gpa, gpa + size) not covered by any hole to out (ascending order).
 * Holes may come in any order and must not overlap each other. Returns the number of ranges,
 * or -ENOSPC when more than max are needed.
 */
int memslot_split(uint64_t gpa, uint64_t size, const struct memslot_range *holes, unsigned n_holes,
		  struct memslot_range *out, unsigned max);
