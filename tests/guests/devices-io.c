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
#include "virtio-guest.h"

static struct vg_ring ring;
static uint8_t out_buf[64], in_buf[64];

/* Negotiate VERSION_1 only and set up queue 0 on a fresh ring; 0 on success. */
static int setup(uint64_t b)
{
	memset(&ring, 0, sizeof(ring));
	return vg_setup(b, &ring, 1);
}

/*
 * One chain on queue 0: out_len readable bytes of out_buf (if any), then in_len writable
 * bytes of in_buf (prepared by the caller). Returns the used length, or -1 if the device never
 * answered.
 */
static long request(uint64_t b, uint32_t out_len, uint32_t in_len)
{
	unsigned n = 0;

	if (out_len) {
		ring.descs[n] = (struct vg_desc){(uint64_t) out_buf, out_len, VG_DESC_NEXT,
						 (uint16_t) (n + 1)};
		n++;
	}
	ring.descs[n] = (struct vg_desc){(uint64_t) in_buf, in_len, VG_DESC_WRITE, 0};
	vg_kick(b, 0, &ring, 0);
	if (vg_wait_used(&ring, 100000000ul) < 0)
		return -1;
	return vg_last_len(&ring);
}

static void done_with(uint64_t b)
{
	vg_wr(b, VG_R_STATUS, 0);
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

	if ((b = vg_find_device(cmdline, 4)))
		rng_check(b);
	if ((b = vg_find_device(cmdline, 9)))
		p9_check(b);
	if ((b = vg_find_device(cmdline, 2)))
		blk_check(b);
	puts_serial("done\n");
}
