/* SPDX-License-Identifier: Apache-2.0 */
/*
 * virtio-balloon from a minimal driver: negotiates VERSION_1 and PAGE_REPORTING, sets up the
 * inflate, deflate and reporting queues, then shows that what it gives back really leaves
 * (reads back as zeroes: the host discarded the pages) and that nothing else does:
 *   feat      the device's feature bits 0-31
 *   setup     0 when negotiation and the three queues worked
 *   target    config num_pages; actual: what config "actual" reads after the driver wrote 5
 *   rep_len   used length of a report of 64 KiB at 32 MiB (filled with 0xa5 before)
 *   rep_left  bytes of that range still non-zero afterwards (0: discarded)
 *   kdata     a byte of a page of this guest's own data (its kernel segment, mapped from the
 *             file) set to 5a and reported: 33, the file's byte (the VM's copy was dropped)
 *   kbss      the same for a page of its bss (anonymous): 0
 *   bad_len   a report outside guest RAM: returned (length 0), the device carries on
 *   inf_left  non-zero bytes of a page at 32 MiB + 128 KiB after inflating it (0: discarded)
 *   def_ok    1 when the deflate queue returned the PFN array
 * Prints "key=hex" lines, then done. Needs --mem 64 or more.
 */
#include "guest.h"
#include "virtio-guest.h"

#define SCRATCH	    0x2000000ull
#define REPORT_SIZE 0x10000u
#define INF_PAGE    (SCRATCH + 0x20000ull)
#define F_REPORTING 5

static struct vg_ring rings[3];
static uint8_t own_bss[8192] __attribute__((aligned(4096)));
static uint8_t own_data[8192] __attribute__((aligned(4096))) = {[0 ... 8191] = 0x33};
static uint32_t pfns[2];

static int negotiate(uint64_t b)
{
	uint32_t f;

	vg_wr(b, VG_R_STATUS, 0);
	vg_wr(b, VG_R_STATUS, 1);
	vg_wr(b, VG_R_STATUS, 1 | 2);
	vg_wr(b, VG_R_DEV_FEAT_SEL, 0);
	f = vg_rd(b, VG_R_DEV_FEAT);
	putkv("feat", f, 8);
	if (!(f & (1u << F_REPORTING)))
		return 1;
	vg_wr(b, VG_R_DRV_FEAT_SEL, 0);
	vg_wr(b, VG_R_DRV_FEAT, 1u << F_REPORTING);
	vg_wr(b, VG_R_DRV_FEAT_SEL, 1);
	vg_wr(b, VG_R_DRV_FEAT, 1);
	vg_wr(b, VG_R_STATUS, 1 | 2 | 8);
	if (!(vg_rd(b, VG_R_STATUS) & 8))
		return 2;
	for (unsigned q = 0; q < 3; q++)
		if (vg_queue_setup(b, q, &rings[q]))
			return 3;
	return vg_driver_ok(b) ? 4 : 0;
}

/* One single-buffer chain on queue q; the used length, or -1 if the device never answered. */
static long submit(uint64_t b, unsigned q, uint64_t addr, uint32_t len, int writable)
{
	rings[q].descs[0] = (struct vg_desc){addr, len, writable ? VG_DESC_WRITE : 0, 0};
	vg_kick(b, q, &rings[q], 0);
	if (vg_wait_used(&rings[q], 100000000ul) < 0)
		return -1;
	return vg_last_len(&rings[q]);
}

static uint64_t nonzero(uint64_t addr, uint32_t len)
{
	const volatile uint8_t *p = (const volatile uint8_t *) addr;
	uint64_t n = 0;

	for (uint32_t i = 0; i < len; i++)
		n += p[i] != 0;
	return n;
}

/* Fill 8 KiB of this guest's own image with 5a, report it, print a byte of its second page. */
static void report_own(uint64_t b, const char *key, uint8_t *p)
{
	memset(p, 0x5a, 8192);
	(void) submit(b, 2, (uint64_t) p, 8192, 1);
	putkv(key, ((volatile uint8_t *) p)[4100], 2);
}

static void balloon_check(uint64_t b)
{
	int r = negotiate(b);

	putkv("setup", (uint64_t) r, 2);
	if (r)
		return;
	putkv("target", vg_rd(b, VG_R_CONFIG), 8);
	vg_wr(b, VG_R_CONFIG + 4, 5);
	putkv("actual", vg_rd(b, VG_R_CONFIG + 4), 8);

	memset((void *) SCRATCH, 0xa5, REPORT_SIZE);
	putkv("rep_len", (uint64_t) submit(b, 2, SCRATCH, REPORT_SIZE, 1), 8);
	putkv("rep_left", nonzero(SCRATCH, REPORT_SIZE), 8);

	report_own(b, "kdata", own_data);
	report_own(b, "kbss", own_bss);

	putkv("bad_len", (uint64_t) submit(b, 2, 0x100000000ull, 0x1000, 1), 8);

	memset((void *) INF_PAGE, 0x77, 4096);
	pfns[0] = (uint32_t) (INF_PAGE >> 12);
	(void) submit(b, 0, (uint64_t) pfns, 4, 0);
	putkv("inf_left", nonzero(INF_PAGE, 4096), 8);
	putkv("def_ok", submit(b, 1, (uint64_t) pfns, 4, 0) == 0, 2);
	vg_wr(b, VG_R_STATUS, 0);
}

void guest_main(const uint8_t *bp)
{
	const char *cmdline = (const char *) (uint64_t) rd32(bp + 0x228);
	uint64_t b = vg_find_device(cmdline, 5);

	if (b)
		balloon_check(b);
	else
		puts_serial("no balloon\n");
	puts_serial("done\n");
}
