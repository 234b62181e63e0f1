/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A minimal virtio-console driver: find the device through the virtio_mmio.device= entries of
 * the command line (as Linux does), negotiate VERSION_1, set up transmitq0 only, send one
 * two-descriptor chain, poll the used ring, then reset the device and the machine.
 * Prints "vcon_*=hex" results on COM1; the message itself goes out through the console.
 */
#include "guest.h"
#include "virtio-guest.h"

static struct vg_ring ring; /* transmitq0 */

static const char part1[] = "hello from ";
static const char part2[] = "the virtio console\n";

static uint64_t base;

static int setup(void)
{
	int r = vg_negotiate(base);

	if (r)
		return r; /* 1: no VERSION_1, 2: FEATURES_OK refused */
	r = vg_queue_setup(base, 1, &ring);
	if (r)
		return 2 + r;
	return vg_driver_ok(base) ? 5 : 0;
}

static void send(void)
{
	ring.descs[0] = (struct vg_desc){(uint64_t) part1, sizeof(part1) - 1, VG_DESC_NEXT, 1};
	ring.descs[1] = (struct vg_desc){(uint64_t) part2, sizeof(part2) - 1, 0, 0};
	vg_kick(base, 1, &ring, 0);
}

void guest_main(const uint8_t *bp)
{
	const char *cmdline = (const char *) (uint64_t) rd32(bp + 0x228);
	uint32_t isr;
	int r;

	base = vg_find_device(cmdline, 3);
	putkv("vcon_base", base, 8);
	if (!base)
		return;
	r = setup();
	putkv("vcon_setup", (uint64_t) r, 2);
	if (r != 0)
		return;
	send();
	(void) vg_wait_used(&ring, 100000000ul);
	putkv("vcon_used", ring.used.idx, 4);
	putkv("vcon_id", ring.used.ring[0].id, 4);
	isr = vg_wait_isr(base, 1, 1000000ul);
	putkv("vcon_isr", isr, 2);
	vg_wr(base, VG_R_ISR_ACK, isr);
	vg_wr(base, VG_R_STATUS, 0);
	putkv("vcon_reset_status", vg_rd(base, VG_R_STATUS), 2);
	puts_serial("done\n");
}
