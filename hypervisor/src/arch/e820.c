/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <string.h>

#include "arch/e820.h"
#include "arch/layout.h"
#include "cc/macro.h"

int e820_add(struct e820_map *map, uint64_t addr, uint64_t size, enum e820_type type)
{
	uint64_t end;

	assert_return(map, -EINVAL);
	if (size == 0 || add_overflows_u64(addr, size, &end))
		return -EINVAL;
	if (map->n > 0) {
		const struct e820_entry *last = &map->entries[map->n - 1];

		if (addr < last->addr + last->size)
			return -EINVAL;
	}
	if (map->n >= E820_MAX_ENTRIES)
		return -ENOSPC;
	map->entries[map->n++] = (struct e820_entry){.addr = addr, .size = size, .type = type};
	return 0;
}

int e820_build(struct e820_map *map, uint64_t low_end, uint64_t high_size, uint64_t pmem_gpa,
	       uint64_t pmem_size)
{
	int r;

	assert_return(map, -EINVAL);
	assert_return(low_end > LAYOUT_HIGH_MEM_GPA && low_end <= LAYOUT_MMIO_HOLE_GPA, -EINVAL);
	memset(map, 0, sizeof(*map));
	r = e820_add(map, 0, LAYOUT_EBDA_GPA, E820_RAM);
	if (r >= 0)
		r = e820_add(map, LAYOUT_EBDA_GPA, LAYOUT_EBDA_END - LAYOUT_EBDA_GPA,
			     E820_RESERVED);
	if (r >= 0)
		r = e820_add(map, LAYOUT_BIOS_GPA, LAYOUT_BIOS_END - LAYOUT_BIOS_GPA,
			     E820_RESERVED);
	if (r >= 0)
		r = e820_add(map, LAYOUT_HIGH_MEM_GPA, low_end - LAYOUT_HIGH_MEM_GPA, E820_RAM);
	if (r >= 0 && high_size > 0)
		r = e820_add(map, LAYOUT_4G, high_size, E820_RAM);
	if (r >= 0 && pmem_size > 0)
		r = e820_add(map, pmem_gpa, pmem_size, E820_PMEM);
	return r;
}
