/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A minimal virtio-console driver: find the device through the virtio_mmio.device= entries of
 * the command line (as Linux does), negotiate VERSION_1, set up transmitq0 only, send one
 * two-descriptor chain, poll the used ring, then reset the device and the machine.
 * Prints "vcon_*=hex" results on COM1; the message itself goes out through the console.
 */
#include "guest.h"

#define NUM 8

/* Registers (virtio-mmio version 2). */
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
#define R_ISR		0x060
#define R_ISR_ACK	0x064
#define R_STATUS	0x070
#define R_DESC_LO	0x080
#define R_DESC_HI	0x084
#define R_DRIVER_LO	0x090
#define R_DRIVER_HI	0x094
#define R_DEVICE_LO	0x0a0
#define R_DEVICE_HI	0x0a4

struct desc {
	uint64_t addr;
	uint32_t len;
	uint16_t flags;
	uint16_t next;
};

static struct desc descs[NUM] __attribute__((aligned(16)));
static struct {
	uint16_t flags, idx, ring[NUM], used_event;
} avail __attribute__((aligned(4)));
static struct {
	uint16_t flags;
	volatile uint16_t idx;
	struct {
		uint32_t id, len;
	} ring[NUM];
	uint16_t avail_event;
} used __attribute__((aligned(4)));

static const char part1[] = "hello from ";
static const char part2[] = "the virtio console\n";

static uint64_t base;

static uint32_t rd(uint32_t off)
{
	return mmio_read32(base + off);
}

static void wr(uint32_t off, uint32_t v)
{
	mmio_write32(base + off, v);
}

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

/* The next "virtio_mmio.device=<size>@0x<base>:<irq>" at or after *p; 0 if none. */
static uint64_t next_device(const char **p)
{
	static const char key[] = "virtio_mmio.device=";
	const char *s = *p;

	for (; *s; s++) {
		unsigned i = 0;
		uint64_t v = 0;

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
			v = v << 4 | (uint64_t) hexval(*s);
		*p = s;
		return v;
	}
	*p = s;
	return 0;
}

static uint64_t find_console(const char *cmdline)
{
	const char *p = cmdline;
	uint64_t b;

	while ((b = next_device(&p)) != 0)
		if (mmio_read32(b + R_MAGIC) == 0x74726976 && mmio_read32(b + R_VERSION) == 2 &&
		    mmio_read32(b + R_DEVICE_ID) == 3)
			return b;
	return 0;
}

static int setup(void)
{
	wr(R_STATUS, 0);
	wr(R_STATUS, 1);
	wr(R_STATUS, 1 | 2);
	wr(R_DEV_FEAT_SEL, 1);
	if (!(rd(R_DEV_FEAT) & 1))
		return 1; /* no VERSION_1 */
	wr(R_DRV_FEAT_SEL, 0);
	wr(R_DRV_FEAT, 0);
	wr(R_DRV_FEAT_SEL, 1);
	wr(R_DRV_FEAT, 1);
	wr(R_STATUS, 1 | 2 | 8);
	if (!(rd(R_STATUS) & 8))
		return 2;
	wr(R_QUEUE_SEL, 1); /* transmitq0 */
	if (rd(R_QUEUE_READY) != 0 || rd(R_QUEUE_NUM_MAX) < NUM)
		return 3;
	wr(R_QUEUE_NUM, NUM);
	wr(R_DESC_LO, (uint32_t) (uint64_t) descs);
	wr(R_DESC_HI, (uint32_t) ((uint64_t) descs >> 32));
	wr(R_DRIVER_LO, (uint32_t) (uint64_t) &avail);
	wr(R_DRIVER_HI, (uint32_t) ((uint64_t) &avail >> 32));
	wr(R_DEVICE_LO, (uint32_t) (uint64_t) &used);
	wr(R_DEVICE_HI, (uint32_t) ((uint64_t) &used >> 32));
	wr(R_QUEUE_READY, 1);
	if (rd(R_QUEUE_READY) != 1)
		return 4;
	wr(R_STATUS, 1 | 2 | 8 | 4);
	if (rd(R_STATUS) != (1 | 2 | 8 | 4))
		return 5;
	return 0;
}

static void send(void)
{
	descs[0] = (struct desc){(uint64_t) part1, sizeof(part1) - 1, 1 /* NEXT */, 1};
	descs[1] = (struct desc){(uint64_t) part2, sizeof(part2) - 1, 0, 0};
	avail.ring[0] = 0;
	__asm__ volatile("mfence" ::: "memory");
	avail.idx = 1;
	__asm__ volatile("mfence" ::: "memory");
	wr(R_QUEUE_NOTIFY, 1);
}

void guest_main(const uint8_t *bp)
{
	const char *cmdline = (const char *) (uint64_t) rd32(bp + 0x228);
	unsigned long spins = 0;
	int r;

	base = find_console(cmdline);
	putkv("vcon_base", base, 8);
	if (!base)
		return;
	r = setup();
	putkv("vcon_setup", (uint64_t) r, 2);
	if (r != 0)
		return;
	send();
	while (used.idx == 0 && spins < 100000000ul) {
		__asm__ volatile("pause");
		spins++;
	}
	putkv("vcon_used", used.idx, 4);
	putkv("vcon_id", used.ring[0].id, 4);
	putkv("vcon_isr", rd(R_ISR), 2);
	wr(R_ISR_ACK, rd(R_ISR));
	wr(R_STATUS, 0);
	putkv("vcon_reset_status", rd(R_STATUS), 2);
	puts_serial("done\n");
}
