/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A minimal virtio-vsock driver: finds the vsock device on the command line, reads its CID,
 * connects to host port 5000 from guest port 1234 (REQUEST), sends "ping" once the host
 * answered (RESPONSE) and waits for data back. Prints on COM1:
 *   vs_cid, vs_setup, vs_op1 (2 = RESPONSE), vs_port1 (the host port it came from),
 *   vs_rw_len and vs_rw_data (the first RW packet from the host: length, first 4 bytes LE),
 * then resets the device (which drops the connection) and the machine.
 */
#include "guest.h"
#include "virtio-guest.h"

#define NUM	   VG_NUM
#define HDR	   44
#define RX_PAYLOAD 64
#define PEER_PORT  5000
#define OUR_PORT   1234
#define SPINS	   200000000ul

#define OP_REQUEST  1
#define OP_RESPONSE 2
#define OP_RW	    5

static struct vg_ring rings[2]; /* 0 rx, 1 tx */
static uint8_t rx_bufs[NUM][HDR + RX_PAYLOAD];
static uint8_t tx_buf[HDR + 4];
static uint64_t base, cid;

static void put_le(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t) (v >> (8 * i));
}

static void send(uint16_t op, const char *data, uint32_t len)
{
	memset(tx_buf, 0, sizeof(tx_buf));
	put_le(tx_buf + 0, cid, 8);	   /* src_cid */
	put_le(tx_buf + 8, 2, 8);	   /* dst_cid: the host */
	put_le(tx_buf + 16, OUR_PORT, 4);  /* src_port */
	put_le(tx_buf + 20, PEER_PORT, 4); /* dst_port */
	put_le(tx_buf + 24, len, 4);	   /* len */
	put_le(tx_buf + 28, 1, 2);	   /* type: stream */
	put_le(tx_buf + 30, op, 2);	   /* op */
	put_le(tx_buf + 36, 65536, 4);	   /* buf_alloc */
	memcpy(tx_buf + HDR, data, len);
	vg_post(base, 1, &rings[1], 0, tx_buf, HDR + len, 0);
	(void) vg_wait_used(&rings[1], SPINS); /* tx_buf is reused */
}

void guest_main(const uint8_t *bp)
{
	const char *cmdline = (const char *) (uint64_t) rd32(bp + 0x228);
	int r, d;

	base = vg_find_device(cmdline, 19);
	if (!base) {
		puts_serial("no vsock\n");
		return;
	}
	for (unsigned i = 0; i < 8; i++)
		cid |= (uint64_t) * (volatile uint8_t *) (base + VG_R_CONFIG + i) << (8 * i);
	putkv("vs_cid", cid, 8);
	r = vg_setup(base, rings, 2);
	putkv("vs_setup", (uint64_t) r, 2);
	if (r)
		return;
	for (unsigned i = 0; i < NUM; i++)
		vg_post(base, 0, &rings[0], i, rx_bufs[i], sizeof(rx_bufs[i]), 1);

	send(OP_REQUEST, "", 0);
	d = vg_wait_used(&rings[0], SPINS);
	if (d < 0) {
		puts_serial("no answer\n");
		return;
	}
	putkv("vs_op1", rd16(rx_bufs[d] + 30), 2);
	putkv("vs_port1", rd32(rx_bufs[d] + 16), 8);
	if (rd16(rx_bufs[d] + 30) != OP_RESPONSE)
		return;

	send(OP_RW, "ping", 4);
	/* Skip credit updates until data comes (at most a few packets). */
	for (unsigned n = 0; n < NUM - 1; n++) {
		d = vg_wait_used(&rings[0], SPINS);
		if (d < 0)
			break;
		if (rd16(rx_bufs[d] + 30) == OP_RW) {
			putkv("vs_rw_len", rd32(rx_bufs[d] + 24), 4);
			putkv("vs_rw_data", rd32(rx_bufs[d] + HDR), 8);
			break;
		}
	}
	vg_wr(base, VG_R_STATUS, 0);
	puts_serial("done\n");
}
