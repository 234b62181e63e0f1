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

#define NUM	  8
#define VNET_HDR  12
#define FRAME_MIN 60
#define FRAME_MAX 1514
#define ETHERTYPE 0x88b5

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
static uint8_t rx_bufs[NUM][VNET_HDR + FRAME_MAX];
static uint8_t tx_buf[VNET_HDR + FRAME_MIN];
static uint64_t base;

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

static uint64_t find_device(const char *s, uint32_t id)
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
		    mmio_read32(b + R_DEVICE_ID) == id)
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

void guest_main(const uint8_t *bp)
{
	const char *cmdline = (const char *) (uint64_t) rd32(bp + 0x228);
	static const char ping[] = "cc-ping";
	uint8_t mac[6];
	uint64_t mac_v = 0;
	int r, d;

	base = find_device(cmdline, 1);
	if (!base) {
		puts_serial("no net\n");
		return;
	}
	for (unsigned i = 0; i < 6; i++) {
		mac[i] = *(volatile uint8_t *) (base + R_CONFIG + i);
		mac_v = mac_v << 8 | mac[i];
	}
	putkv("net_mac", mac_v, 12);
	r = setup();
	putkv("net_setup", (uint64_t) r, 2);
	if (r)
		return;
	for (unsigned i = 0; i < NUM; i++)
		post(0, i, rx_bufs[i], sizeof(rx_bufs[i]), 1);

	memset(tx_buf, 0, sizeof(tx_buf)); /* the header: no offload, num_buffers 0 */
	memset(tx_buf + VNET_HDR, 0xff, 6);
	memcpy(tx_buf + VNET_HDR + 6, mac, 6);
	tx_buf[VNET_HDR + 12] = ETHERTYPE >> 8;
	tx_buf[VNET_HDR + 13] = ETHERTYPE & 0xff;
	memcpy(tx_buf + VNET_HDR + 14, ping, sizeof(ping) - 1);
	post(1, 0, tx_buf, sizeof(tx_buf), 0);
	putkv("net_tx", wait_used(1) == 0, 2);

	for (unsigned n = 0; n < NUM; n++) {
		const uint8_t *f;

		d = wait_used(0);
		if (d < 0)
			break;
		f = rx_bufs[d] + VNET_HDR;
		if (f[12] == (ETHERTYPE >> 8) && f[13] == (ETHERTYPE & 0xff)) {
			putkv("net_rx_len",
			      rings[0].used.ring[(rings[0].seen - 1) % NUM].len - VNET_HDR, 4);
			putkv("net_rx_data", rd32(f + 14), 8);
			break;
		}
	}
	wr(R_STATUS, 0);
	puts_serial("done\n");
}
