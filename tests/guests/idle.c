/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Says "ready" and halts with interrupts off, so the vCPU sleeps in the kernel: the VM stays up
 * (for smaps and memory measurements, and SIGTERM tests) without using CPU.
 */
#include "guest.h"

void guest_main(const uint8_t *bp)
{
	(void) bp;
	puts_serial("ready\n");
	halt_forever();
}
