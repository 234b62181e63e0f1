/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Two vCPUs: counts the processors in the MP table (as Linux does without ACPI), then starts
 * APIC ID 1 the way Linux does, with INIT and STARTUP IPIs to a real-mode trampoline at
 * 0x8000; the trampoline writes 0xa5 at 0x8100. Prints what it saw, then resets.
 */
#include "guest.h"

#define LAPIC_ICR_LO 0xfee00300ull
#define LAPIC_ICR_HI 0xfee00310ull
#define LAPIC_ID     0xfee00020ull
#define TRAMPOLINE   0x8000ull
#define AP_FLAG	     0x8100ull

static const uint8_t *mp_find(void)
{
	for (uint64_t a = 0x9fc00; a < 0xa0000; a += 16) {
		const uint8_t *p = (const uint8_t *) a;

		if (p[0] == '_' && p[1] == 'M' && p[2] == 'P' && p[3] == '_')
			return p;
	}
	return 0;
}

static unsigned mp_count_cpus(const uint8_t *fp)
{
	const uint8_t *t = (const uint8_t *) (uint64_t) rd32(fp + 4);
	const uint8_t *e = t + 44, *end = t + rd16(t + 4);
	unsigned cpus = 0;
	uint8_t sum = 0;

	for (const uint8_t *p = t; p < end; p++)
		sum = (uint8_t) (sum + *p);
	putkv("mp_checksum", sum, 2);
	while (e < end) {
		if (e[0] == 0) {
			cpus++;
			e += 20;
		} else {
			e += 8;
		}
	}
	return cpus;
}

static void delay(unsigned n)
{
	for (volatile unsigned i = 0; i < n; i++)
		;
}

void guest_main(const uint8_t *bp)
{
	const uint8_t *fp = mp_find();
	volatile uint8_t *flag = (volatile uint8_t *) AP_FLAG;
	unsigned spins = 0;

	(void) bp;
	if (!fp) {
		puts_serial("mp=missing\n");
		return;
	}
	putkv("mp_cpus", mp_count_cpus(fp), 2);
	putkv("bsp_apic_id", mmio_read32(LAPIC_ID) >> 24, 2);
	memcpy((void *) TRAMPOLINE, ap_trampoline,
	       (unsigned long) (ap_trampoline_end - ap_trampoline));
	*flag = 0;
	mmio_write32(LAPIC_ICR_HI, 1u << 24);
	mmio_write32(LAPIC_ICR_LO, 0x4500); /* INIT */
	delay(100);
	mmio_write32(LAPIC_ICR_HI, 1u << 24);
	mmio_write32(LAPIC_ICR_LO, 0x4600 | (TRAMPOLINE >> 12)); /* STARTUP */
	/*
	 * Generous: ~0.2 s natively, but nested KVM under TCG (the KVM test host) runs this loop
	 * a hundred times slower and takes its time to start the AP; a success ends it early.
	 */
	while (*flag != 0xa5 && spins < 200000000u) {
		__builtin_ia32_pause();
		spins++;
	}
	putkv("ap_flag", *flag, 2);
	puts_serial("done\n");
}
