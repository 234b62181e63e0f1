/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One request to each of the rng, 9p and blk devices declared on the command line, through
 * queue 0 and a minimal virtio-mmio driver (as tests/guests/virtio-console.c does), to show the
 * VMM wired them to working kicks and event-loop handlers:
 *   rng: a 16-byte writable buffer        -> rng_len, rng_nonzero
 *   9p:  Tversion(msize 8192, "9P2000.L") -> p9_len, p9_type (0x65 = Rversion), p9_msize
 *   blk: GET_ID                           -> blk_len, blk_status, blk_id (first 4 bytes, LE)
 * Each device is reset afterwards (the rings are reused). Prints "key=hex" lines, then done.
 */
#include "guest.h"

#define NUM 8

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
#define R_DESC_HI	0x084
#define R_DRIVER_LO	0x090
#define R_DRIVER_HI	0x094
#define R_DEVICE_LO	0x0a0
#define R_DEVICE_HI	0x0a4

#define DESC_NEXT  1
#define DESC_WRITE 2

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

static uint8_t out_buf[64], in_buf[64];

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

/* The first declared device with this ID; 0 if none. */
static uint64_t find_device(const char *cmdline, uint32_t id)
{
	static const char key[] = "virtio_mmio.device=";

	for (const char *s = cmdline; *s; s++) {
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

static void wr64(uint64_t b, uint32_t lo, uint64_t v)
{
	mmio_write32(b + lo, (uint32_t) v);
	mmio_write32(b + lo + 4, (uint32_t) (v >> 32));
}

/* Negotiate VERSION_1 only and set up queue 0; 0 on success. */
static int setup(uint64_t b)
{
	memset(descs, 0, sizeof(descs));
	memset(&avail, 0, sizeof(avail));
	memset((void *) &used, 0, sizeof(used));
	mmio_write32(b + R_STATUS, 0);
	mmio_write32(b + R_STATUS, 1);
	mmio_write32(b + R_STATUS, 1 | 2);
	mmio_write32(b + R_DEV_FEAT_SEL, 1);
	if (!(mmio_read32(b + R_DEV_FEAT) & 1))
		return 1;
	mmio_write32(b + R_DRV_FEAT_SEL, 0);
	mmio_write32(b + R_DRV_FEAT, 0);
	mmio_write32(b + R_DRV_FEAT_SEL, 1);
	mmio_write32(b + R_DRV_FEAT, 1);
	mmio_write32(b + R_STATUS, 1 | 2 | 8);
	if (!(mmio_read32(b + R_STATUS) & 8))
		return 2;
	mmio_write32(b + R_QUEUE_SEL, 0);
	if (mmio_read32(b + R_QUEUE_READY) != 0 || mmio_read32(b + R_QUEUE_NUM_MAX) < NUM)
		return 3;
	mmio_write32(b + R_QUEUE_NUM, NUM);
	wr64(b, R_DESC_LO, (uint64_t) descs);
	wr64(b, R_DRIVER_LO, (uint64_t) &avail);
	wr64(b, R_DEVICE_LO, (uint64_t) &used);
	mmio_write32(b + R_QUEUE_READY, 1);
	mmio_write32(b + R_STATUS, 1 | 2 | 8 | 4);
	if (mmio_read32(b + R_STATUS) != (1 | 2 | 8 | 4))
		return 4;
	return 0;
}

/*
 * One chain on queue 0: out_len readable bytes of out_buf (if any), then in_len writable
 * bytes of in_buf (prepared by the caller). Returns the used length, or -1 if the device never
 * answered.
 */
static long request(uint64_t b, uint32_t out_len, uint32_t in_len)
{
	unsigned n = 0;
	unsigned long spins = 0;

	if (out_len) {
		descs[n] =
			(struct desc){(uint64_t) out_buf, out_len, DESC_NEXT, (uint16_t) (n + 1)};
		n++;
	}
	descs[n] = (struct desc){(uint64_t) in_buf, in_len, DESC_WRITE, 0};
	avail.ring[0] = 0;
	__asm__ volatile("mfence" ::: "memory");
	avail.idx = 1;
	__asm__ volatile("mfence" ::: "memory");
	mmio_write32(b + R_QUEUE_NOTIFY, 0);
	while (used.idx == 0 && spins < 100000000ul) {
		__asm__ volatile("pause");
		spins++;
	}
	if (used.idx == 0)
		return -1;
	return used.ring[0].len;
}

static void done_with(uint64_t b)
{
	mmio_write32(b + R_STATUS, 0);
}

static void put_le(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t) (v >> (8 * i));
}

static void rng_check(uint64_t b)
{
	long len;
	unsigned nonzero = 0;

	putkv("rng_setup", (uint64_t) setup(b), 2);
	memset(in_buf, 0, sizeof(in_buf));
	len = request(b, 0, 16);
	putkv("rng_len", (uint64_t) len, 4);
	for (unsigned i = 0; i < 16; i++)
		nonzero += in_buf[i] != 0;
	putkv("rng_nonzero", nonzero, 2);
	done_with(b);
}

static void p9_check(uint64_t b)
{
	static const char version[] = "9P2000.L";
	long len;

	putkv("p9_setup", (uint64_t) setup(b), 2);
	put_le(out_buf, 21, 4);		/* size */
	out_buf[4] = 100;		/* Tversion */
	put_le(out_buf + 5, 0xffff, 2); /* NOTAG */
	put_le(out_buf + 7, 8192, 4);	/* msize */
	put_le(out_buf + 11, 8, 2);
	memcpy(out_buf + 13, version, 8);
	memset(in_buf, 0, sizeof(in_buf));
	len = request(b, 21, 64);
	putkv("p9_len", (uint64_t) len, 4);
	putkv("p9_type", in_buf[4], 2);
	putkv("p9_msize", rd32(in_buf + 7), 8);
	done_with(b);
}

static void blk_check(uint64_t b)
{
	long len;

	putkv("blk_setup", (uint64_t) setup(b), 2);
	memset(out_buf, 0, 16);
	put_le(out_buf, 8, 4);		      /* VIRTIO_BLK_T_GET_ID, sector 0 */
	memset(in_buf, 0xff, sizeof(in_buf)); /* the status must be written */
	len = request(b, 16, 21);
	putkv("blk_len", (uint64_t) len, 4);
	putkv("blk_status", in_buf[20], 2);
	putkv("blk_id", rd32(in_buf), 8);
	done_with(b);
}

void guest_main(const uint8_t *bp)
{
	const char *cmdline = (const char *) (uint64_t) rd32(bp + 0x228);
	uint64_t b;

	if ((b = find_device(cmdline, 4)))
		rng_check(b);
	if ((b = find_device(cmdline, 9)))
		p9_check(b);
	if ((b = find_device(cmdline, 2)))
		blk_check(b);
	puts_serial("done\n");
}
