/* SPDX-License-Identifier: Apache-2.0 */
/* The benchmark guest: one byte on COM1, then an i8042 reset. */
#include "guest.h"

void guest_main(const uint8_t *bp)
{
	(void) bp;
	putc_serial('X');
	i8042_reset();
}
