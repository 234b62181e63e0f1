/* SPDX-License-Identifier: Apache-2.0 */
/* Ends the VM by a triple fault: an empty IDT, then an exception. */
#include "guest.h"

void guest_main(const uint8_t *bp)
{
	struct __attribute__((packed)) {
		uint16_t limit;
		uint64_t base;
	} idt = {0, 0};

	(void) bp;
	puts_serial("faulting\n");
	__asm__ volatile("lidt %0" : : "m"(idt));
	__asm__ volatile("ud2");
	puts_serial("survived\n");
	halt_forever();
}
