/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Finds the e820 pmem region (type 12), maps it (the VMM's identity map stops at 4 GiB, so
 * this adds a PD for the GiB the region starts in), prints its first word, writes a new one
 * and prints what reads back: a read-only pmem memslot drops the write, an rw one keeps it.
 * Then the same with the region's last word, which lies past the end of a small image file:
 * that tail must read as zeros and take (or drop) writes like the rest, never fault.
 */
#include "guest.h"

static uint64_t pd[512] __attribute__((aligned(4096)));

void guest_main(const uint8_t *bp)
{
	unsigned n = bp[0x1e8];
	uint64_t base = 0, size = 0, cr3, gib;
	volatile uint32_t *p;

	for (unsigned i = 0; i < n && i < 128; i++)
		if (rd32(bp + 0x2d0 + i * 20 + 16) == 12) {
			base = rd64(bp + 0x2d0 + i * 20);
			size = rd64(bp + 0x2d0 + i * 20 + 8);
		}
	putkv("pmem_base", base, 16);
	if (!base)
		return;
	gib = base >> 30;
	for (uint64_t j = 0; j < 512; j++)
		pd[j] = (gib << 30) + j * 0x200000 + 0x83;
	__asm__ volatile("mov %%cr3, %0" : "=r"(cr3));
	/* PML4[0] -> PDPT; entry 'gib' of the PDPT -> our PD */
	*(volatile uint64_t *) ((rd64((const void *) cr3) & ~0xfffull) + gib * 8) =
		(uint64_t) pd | 0x3;
	__asm__ volatile("mov %0, %%cr3" : : "r"(cr3) : "memory");
	p = (volatile uint32_t *) base;
	putkv("pmem_before", *p, 8);
	*p = 0xdeadbeef;
	putkv("pmem_after", *p, 8);
	putkv("pmem_size", size, 16);
	if (size < 8 || size > (1ull << 30) - (base & ((1ull << 30) - 1)))
		return; /* the tail is outside the GiB mapped above */
	p = (volatile uint32_t *) (base + size - 4);
	putkv("pmem_tail_before", *p, 8);
	*p = 0x7a11c0de;
	putkv("pmem_tail_after", *p, 8);
	puts_serial("done\n");
}
