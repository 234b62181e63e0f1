/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Dumps the 64-bit entry state and boot_params as "key=value" lines on COM1 for the kvm test
 * to check against what Linux's 64-bit boot protocol expects, then resets.
 */
#include "guest.h"

static uint8_t bss_probe[4096];
static volatile uint32_t data_probe = 0xc0ffee11;

static uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;

	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return (uint64_t) hi << 32 | lo;
}

static void dump_regs(void)
{
	uint64_t cr0, cr3, cr4;
	uint16_t cs, ds, ss, tr;

	__asm__ volatile("mov %%cr0, %0" : "=r"(cr0));
	__asm__ volatile("mov %%cr3, %0" : "=r"(cr3));
	__asm__ volatile("mov %%cr4, %0" : "=r"(cr4));
	__asm__ volatile("mov %%cs, %0" : "=r"(cs));
	__asm__ volatile("mov %%ds, %0" : "=r"(ds));
	__asm__ volatile("mov %%ss, %0" : "=r"(ss));
	__asm__ volatile("str %0" : "=r"(tr));
	putkv("cs", cs, 4);
	putkv("ds", ds, 4);
	putkv("ss", ss, 4);
	putkv("tr", tr, 4);
	putkv("cr0", cr0, 8);
	putkv("cr3", cr3, 8);
	putkv("cr4", cr4, 8);
	putkv("efer", rdmsr(0xc0000080), 8);
	putkv("rflags", entry_rflags, 8);
	putkv("rsi", entry_rsi, 8);
}

static void dump_boot_params(const uint8_t *bp)
{
	const char *cmdline = (const char *) (uint64_t) rd32(bp + 0x228);
	unsigned n = bp[0x1e8];

	putkv("hdr", rd32(bp + 0x202), 8);
	putkv("boot_flag", rd16(bp + 0x1fe), 4);
	putkv("loader", bp[0x210], 2);
	putkv("cmdline_size", rd32(bp + 0x238), 8);
	puts_serial("cmdline=");
	puts_serial(cmdline);
	putc_serial('\n');
	putkv("e820_entries", n, 2);
	for (unsigned i = 0; i < n && i < 128; i++) {
		const uint8_t *e = bp + 0x2d0 + i * 20;

		puts_serial("e820=");
		puthex(rd64(e), 16);
		putc_serial(' ');
		puthex(rd64(e + 8), 16);
		putc_serial(' ');
		puthex(rd32(e + 16), 2);
		putc_serial('\n');
	}
}

void guest_main(const uint8_t *bp)
{
	unsigned nonzero = 0;

	dump_regs();
	dump_boot_params(bp);
	for (unsigned i = 0; i < sizeof(bss_probe); i++)
		nonzero += bss_probe[i] != 0;
	putkv("bss_nonzero", nonzero, 4);
	putkv("data", data_probe, 8);
	puts_serial("done\n");
}
