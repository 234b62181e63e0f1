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

#define NUM	   8
#define HDR	   44
#define RX_PAYLOAD 64
#define PEER_PORT  5000
#define OUR_PORT   1234

#define R_MAGIC		0x000
#define R_VERSION	0x004
#define R_DEVICE_ID	0x008
#define R_DEV_FEAT	0x010
#define R_DEV_FEAT_SEL	0x014
#define R_DRV_FEAT	0x020
#define R_DRV_FEAT_SEL	0x024
#define R_QUEUE_SEL	0x030
#define R_QUEUE_NUM_MAX 0x034
#define R_QUEUE_NUM	0x038
#define R_QUEUE_READY	0x044
#define R_QUEUE_NOTIFY	0x050
#define R_STATUS	0x070
#define R_DESC_LO	0x080
#define R_DRIVER_LO	0x090
#define R_DEVICE_LO	0x0a0
#define R_CONFIG	0x100

#define OP_REQUEST  1
#define OP_RESPONSE 2
#define OP_RW	    5

struct desc {
	uint64_t addr;
	uint32_t len;
	uint16_t flags;
	uint16_t next;
};

struct ring {
	struct desc descs[NUM] __attribute__((aligned(16)));
	struct {
		uint16_t flags, idx, ring[NUM], used_event;
	} avail __attribute__((aligned(4)));
	struct {
		uint16_t flags;
		volatile uint16_t idx;
		struct {
			uint32_t id, len;
		} ring[NUM];
		uint16_t avail_event;
	} used __attribute__((aligned(4)));
	uint16_t seen;
};

static struct ring rings[2]; /* 0 rx, 1 tx */
static uint8_t rx_bufs[NUM][HDR + RX_PAYLOAD];
static uint8_t tx_buf[HDR + 4];
static uint64_t base, cid;

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static uint64_t find_vsock(const char *s)
{
	static const char key[] = "virtio_mmio.device=";

	for (; *s; s++) {
		unsigned i = 0;
		uint64_t b = 0;

		while (key[i] && s[i] == key[i])
			i++;
		if (key[i])
			continue;
		s += i;
		while (*s && *s != '@')
			s++;
		if (s[0] != '@' || s[1] != '0' || s[2] != 'x')
			continue;
		for (s += 3; hexval(*s) >= 0; s++)
			b = b << 4 | (uint64_t) hexval(*s);
		if (mmio_read32(b + R_MAGIC) == 0x74726976 && mmio_read32(b + R_VERSION) == 2 &&
		    mmio_read32(b + R_DEVICE_ID) == 19)
			return b;
	}
	return 0;
}

static void wr(uint32_t off, uint32_t v)
{
	mmio_write32(base + off, v);
}

static uint32_t rd(uint32_t off)
{
	return mmio_read32(base + off);
}

static void wr64(uint32_t off, uint64_t v)
{
	wr(off, (uint32_t) v);
	wr(off + 4, (uint32_t) (v >> 32));
}

static int setup_queue(unsigned q)
{
	struct ring *r = &rings[q];

	wr(R_QUEUE_SEL, q);
	if (rd(R_QUEUE_READY) != 0 || rd(R_QUEUE_NUM_MAX) < NUM)
		return 1;
	wr(R_QUEUE_NUM, NUM);
	wr64(R_DESC_LO, (uint64_t) r->descs);
	wr64(R_DRIVER_LO, (uint64_t) &r->avail);
	wr64(R_DEVICE_LO, (uint64_t) &r->used);
	wr(R_QUEUE_READY, 1);
	return rd(R_QUEUE_READY) == 1 ? 0 : 2;
}

static int setup(void)
{
	wr(R_STATUS, 0);
	wr(R_STATUS, 1);
	wr(R_STATUS, 1 | 2);
	wr(R_DEV_FEAT_SEL, 1);
	if (!(rd(R_DEV_FEAT) & 1))
		return 1;
	wr(R_DRV_FEAT_SEL, 0);
	wr(R_DRV_FEAT, 0);
	wr(R_DRV_FEAT_SEL, 1);
	wr(R_DRV_FEAT, 1);
	wr(R_STATUS, 1 | 2 | 8);
	if (!(rd(R_STATUS) & 8))
		return 2;
	if (setup_queue(0) || setup_queue(1))
		return 3;
	wr(R_STATUS, 1 | 2 | 8 | 4);
	return rd(R_STATUS) == (1 | 2 | 8 | 4) ? 0 : 4;
}

/* One single-descriptor chain on queue q, descriptor slot d; kicks the queue. */
static void post(unsigned q, unsigned d, void *buf, uint32_t len, int writable)
{
	struct ring *r = &rings[q];

	r->descs[d] = (struct desc){(uint64_t) buf, len, (uint16_t) (writable ? 2 : 0), 0};
	r->avail.ring[r->avail.idx % NUM] = (uint16_t) d;
	__asm__ volatile("mfence" ::: "memory");
	r->avail.idx++;
	__asm__ volatile("mfence" ::: "memory");
	wr(R_QUEUE_NOTIFY, q);
}

/* The next used entry of queue q: its descriptor slot, or -1 after a long wait. */
static int wait_used(unsigned q)
{
	struct ring *r = &rings[q];
	unsigned long spins = 0;
	int id;

	while (r->used.idx == r->seen && spins < 200000000ul) {
		__asm__ volatile("pause");
		spins++;
	}
	if (r->used.idx == r->seen)
		return -1;
	id = (int) r->used.ring[r->seen % NUM].id;
	r->seen++;
	return id;
}

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
	post(1, 0, tx_buf, HDR + len, 0);
	(void) wait_used(1); /* tx_buf is reused */
}

void guest_main(const uint8_t *bp)
{
	const char *cmdline = (const char *) (uint64_t) rd32(bp + 0x228);
	int r, d;

	base = find_vsock(cmdline);
	if (!base) {
		puts_serial("no vsock\n");
		return;
	}
	for (unsigned i = 0; i < 8; i++)
		cid |= (uint64_t) * (volatile uint8_t *) (base + R_CONFIG + i) << (8 * i);
	putkv("vs_cid", cid, 8);
	r = setup();
	putkv("vs_setup", (uint64_t) r, 2);
	if (r)
		return;
	for (unsigned i = 0; i < NUM; i++)
		post(0, i, rx_bufs[i], sizeof(rx_bufs[i]), 1);

	send(OP_REQUEST, "", 0);
	d = wait_used(0);
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
		d = wait_used(0);
		if (d < 0)
			break;
		if (rd16(rx_bufs[d] + 30) == OP_RW) {
			putkv("vs_rw_len", rd32(rx_bufs[d] + 24), 4);
			putkv("vs_rw_data", rd32(rx_bufs[d] + HDR), 8);
			break;
		}
	}
	wr(R_STATUS, 0);
	puts_serial("done\n");
}
