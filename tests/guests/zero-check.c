/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The zero sweep (cc-vmm --zero-sweep=MS [--merge-pages]) seen from the guest. At 32 MiB it
 * fills 64 pages with data (each page its own), writes 64 more and clears them (all zero: what
 * the sweep gives back), and fills 64 more with one pattern (what page merging maps onto one
 * copy). Then, for about 2 x 10^9 TSC cycles, it races the sweeps: each round sets one word of
 * each cleared page and of each pattern page, waits a little, reads it back and puts the old
 * value back. A sweep that looked at a page while the vCPU could still write it would discard
 * or merge away the word between the write and the read. Then it leaves every page alone for
 * half as long again, so that the sweeps of that quiet time merge the pattern pages whatever
 * the host's load did to the race's timing (a page the race keeps writing merges only between
 * two of its rounds), reads everything back, and prints
 *   rounds     rounds of the race (at least 1)
 *   race_bad   words of the cleared pages that read back wrong (0)
 *   same_race_bad  words of the pattern pages that read back wrong (0)
 *   data_bad   words of the data pages that changed (0)
 *   zero_bad   non-zero words left in the cleared pages (0)
 *   same_bad   words of the pattern pages that are not the pattern's (0)
 * and done.
 */
#include "guest.h"

#define SCRATCH	   0x2000000ull
#define PAGE_WORDS 512u
#define N_DATA	   64u
#define N_ZERO	   64u
#define N_SAME	   64u
#define BUDGET	   2000000000ull

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t) hi << 32 | lo;
}

static uint64_t pattern(unsigned page, unsigned word)
{
	return 0x8000000000000000ull | (uint64_t) page << 32 | word;
}

static uint64_t same(unsigned word)
{
	return 0x5a5a000000000000ull | word;
}

static volatile uint64_t *page_at(unsigned i)
{
	return (volatile uint64_t *) (SCRATCH + (uint64_t) i * PAGE_WORDS * 8);
}

static uint64_t race(uint64_t *same_race_bad)
{
	uint64_t start = rdtsc(), rounds = 0, bad = 0;

	while (rdtsc() - start < BUDGET) {
		rounds++;
		for (unsigned i = 0; i < N_ZERO; i++) {
			volatile uint64_t *p = page_at(N_DATA + i);
			unsigned w = (unsigned) (rounds * 7 + i * 13) % PAGE_WORDS;

			p[w] = rounds;
			for (unsigned spin = 0; spin < 32; spin++)
				__asm__ volatile("pause");
			bad += p[w] != rounds;
			p[w] = 0;
		}
		for (unsigned i = 0; i < N_SAME; i++) {
			volatile uint64_t *p = page_at(N_DATA + N_ZERO + i);
			unsigned w = (unsigned) (rounds * 5 + i * 11) % PAGE_WORDS;

			p[w] = rounds;
			for (unsigned spin = 0; spin < 32; spin++)
				__asm__ volatile("pause");
			*same_race_bad += p[w] != rounds;
			p[w] = same(w);
		}
	}
	putkv("rounds", rounds, 8);
	return bad;
}

void guest_main(const uint8_t *bp)
{
	uint64_t data_bad = 0, zero_bad = 0, same_bad = 0, same_race_bad = 0;

	(void) bp;
	for (unsigned i = 0; i < N_DATA; i++)
		for (unsigned w = 0; w < PAGE_WORDS; w++)
			page_at(i)[w] = pattern(i, w);
	for (unsigned i = 0; i < N_ZERO; i++) {
		for (unsigned w = 0; w < PAGE_WORDS; w++)
			page_at(N_DATA + i)[w] = 0x77;
		for (unsigned w = 0; w < PAGE_WORDS; w++)
			page_at(N_DATA + i)[w] = 0;
	}
	for (unsigned i = 0; i < N_SAME; i++)
		for (unsigned w = 0; w < PAGE_WORDS; w++)
			page_at(N_DATA + N_ZERO + i)[w] = same(w);
	putkv("race_bad", race(&same_race_bad), 8);
	for (uint64_t start = rdtsc(); rdtsc() - start < BUDGET / 2;)
		__asm__ volatile("pause");
	putkv("same_race_bad", same_race_bad, 8);
	for (unsigned i = 0; i < N_DATA; i++)
		for (unsigned w = 0; w < PAGE_WORDS; w++)
			data_bad += page_at(i)[w] != pattern(i, w);
	for (unsigned i = 0; i < N_ZERO; i++)
		for (unsigned w = 0; w < PAGE_WORDS; w++)
			zero_bad += page_at(N_DATA + i)[w] != 0;
	for (unsigned i = 0; i < N_SAME; i++)
		for (unsigned w = 0; w < PAGE_WORDS; w++)
			same_bad += page_at(N_DATA + N_ZERO + i)[w] != same(w);
	putkv("data_bad", data_bad, 8);
	putkv("zero_bad", zero_bad, 8);
	putkv("same_bad", same_bad, 8);
	puts_serial("done\n");
}
