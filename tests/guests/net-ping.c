/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A minimal virtio-net driver: finds the first net device on the command line, reads its MAC,
 * negotiates VERSION_1 only (so plain 12-byte headers, no merged buffers, no offloads), posts
 * receive buffers, sends one broadcast frame of EtherType 0x88b5 whose payload starts with
 * "cc-ping", and waits for a 0x88b5 frame back (skipping anything else the host sends, such as
 * IPv6 router solicitations). Prints on COM1:
 *   net_mac (6 bytes, big-endian), net_setup, net_tx (used entries seen on transmitq),
 *   net_rx_len (frame length without the header), net_rx_data (first 4 payload bytes, LE),
 * then resets the device and the machine.
 */
#include "guest.h"
#include "virtio-guest.h"

#define NUM	  VG_NUM
#define VNET_HDR  12
#define FRAME_MIN 60
#define FRAME_MAX 1514
#define ETHERTYPE 0x88b5
#define SPINS	  200000000ul

static struct vg_ring rings[2]; /* 0 rx, 1 tx */
static uint8_t rx_bufs[NUM][VNET_HDR + FRAME_MAX];
static uint8_t tx_buf[VNET_HDR + FRAME_MIN];
static uint64_t base;

void guest_main(const uint8_t *bp)
{
	const char *cmdline = (const char *) (uint64_t) rd32(bp + 0x228);
	static const char ping[] = "cc-ping";
	uint8_t mac[6];
	uint64_t mac_v = 0;
	int r, d;

	base = vg_find_device(cmdline, 1);
	if (!base) {
		puts_serial("no net\n");
		return;
	}
	for (unsigned i = 0; i < 6; i++) {
		mac[i] = *(volatile uint8_t *) (base + VG_R_CONFIG + i);
		mac_v = mac_v << 8 | mac[i];
	}
	putkv("net_mac", mac_v, 12);
	r = vg_setup(base, rings, 2);
	putkv("net_setup", (uint64_t) r, 2);
	if (r)
		return;
	for (unsigned i = 0; i < NUM; i++)
		vg_post(base, 0, &rings[0], i, rx_bufs[i], sizeof(rx_bufs[i]), 1);

	memset(tx_buf, 0, sizeof(tx_buf)); /* the header: no offload, num_buffers 0 */
	memset(tx_buf + VNET_HDR, 0xff, 6);
	memcpy(tx_buf + VNET_HDR + 6, mac, 6);
	tx_buf[VNET_HDR + 12] = ETHERTYPE >> 8;
	tx_buf[VNET_HDR + 13] = ETHERTYPE & 0xff;
	memcpy(tx_buf + VNET_HDR + 14, ping, sizeof(ping) - 1);
	vg_post(base, 1, &rings[1], 0, tx_buf, sizeof(tx_buf), 0);
	putkv("net_tx", vg_wait_used(&rings[1], SPINS) == 0, 2);

	for (unsigned n = 0; n < NUM; n++) {
		const uint8_t *f;

		d = vg_wait_used(&rings[0], SPINS);
		if (d < 0)
			break;
		f = rx_bufs[d] + VNET_HDR;
		if (f[12] == (ETHERTYPE >> 8) && f[13] == (ETHERTYPE & 0xff)) {
			putkv("net_rx_len", vg_last_len(&rings[0]) - VNET_HDR, 4);
			putkv("net_rx_data", rd32(f + 14), 8);
			break;
		}
	}
	vg_wr(base, VG_R_STATUS, 0);
	puts_serial("done\n");
}
