/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Kernel page sharing (cc-vmm --share-kernel-pages DIR) seen from the guest. Like a kernel
 * patching its text at boot, it writes one word of a page of its read-only segment (an array
 * of .rodata), then writes the init-start boot marker, after which the VMM maps that page onto
 * the host-wide file's slot. It waits about 10^9 TSC cycles for that, then checks the page
 * (every word as it left it), writes another word (the private copy again) and reads it back:
 *   shared_bad  words of the page that are not what the guest left (0)
 *   cow_bad     1 when the write after the wait did not read back (0)
 * and done. With "late" first on its command line it writes the systemd-exec marker before
 * init-start, as a guest past its init would: the VMM must then close the file unshared.
 */
#include "guest.h"

#define WORDS  512u
#define WAIT   1000000000ull
#define FILLER 0x1111111111111111ull

/* Two pages of the text segment, in the file (not zero: not padding the kernel would free). */
static const uint64_t patched[2][WORDS] __attribute__((aligned(4096))) = {
	[0 ... 1] = {[0 ... WORDS - 1] = FILLER},
};

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t) hi << 32 | lo;
}

static uint64_t want(unsigned w)
{
	return w == 7 ? 0xabcdef0123ull : FILLER;
}

void guest_main(const uint8_t *bp)
{
	volatile uint64_t *p = (volatile uint64_t *) (uintptr_t) patched[0];
	uint64_t start, bad = 0;

	const char *cmdline = (const char *) (uint64_t) rd32(bp + 0x228);

	p[7] = want(7);
	if (cmdline[0] == 'l' && cmdline[1] == 'a' && cmdline[2] == 't' && cmdline[3] == 'e')
		outb(0x0cc0, 2); /* systemd-exec */
	outb(0x0cc0, 1);	 /* init-start */
	start = rdtsc();
	while (rdtsc() - start < WAIT)
		__asm__ volatile("pause");
	for (unsigned w = 0; w < WORDS; w++)
		bad += p[w] != want(w);
	putkv("shared_bad", bad, 8);
	p[8] = 0x55;
	putkv("cow_bad", p[8] != 0x55 || p[7] != want(7), 8);
	puts_serial("done\n");
}
