/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The e820 memory map handed to the guest in boot_params. */

#include <stdint.h>

#define E820_MAX_ENTRIES 128

enum e820_type {
	E820_RAM = 1,
	E820_RESERVED = 2,
	E820_PMEM = 12, /* legacy persistent memory ("PRAM"), Linux's e820_pmem */
};

struct e820_entry {
	uint64_t addr;
	uint64_t size;
	uint32_t type;
} __attribute__((packed));

struct e820_map {
	struct e820_entry entries[E820_MAX_ENTRIES];
	unsigned n;
};

/* Appends; entries must come in ascending, non-overlapping order. -EINVAL, -ENOSPC. */
int e820_add(struct e820_map *map, uint64_t addr, uint64_t size, enum e820_type type);

/*
 * The map for a guest with RAM [0, low_end) and [4 GiB, 4 GiB + high_size), and an optional
 * pmem region (pmem_size 0: none): RAM below the EBDA, the EBDA and BIOS area reserved, RAM
 * from 1 MiB, high RAM, pmem.
 */
int e820_build(struct e820_map *map, uint64_t low_end, uint64_t high_size, uint64_t pmem_gpa,
	       uint64_t pmem_size);
