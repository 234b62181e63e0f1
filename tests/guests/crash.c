/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A guest KVM cannot run: it jumps into the MMIO hole, where there is no memory to fetch
 * instructions from, so KVM gives up with an internal (emulation) error.
 */
#include "guest.h"

void guest_main(const uint8_t *bp)
{
	void (*nowhere)(void) = (void (*)(void)) 0xc0002000ull;

	(void) bp;
	puts_serial("jumping\n");
	nowhere();
	puts_serial("survived\n");
	halt_forever();
}
