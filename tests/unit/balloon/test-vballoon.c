/* SPDX-License-Identifier: Apache-2.0 */
/*
 * virtio-balloon against fake guest memory: features, config space, activation, the three
 * queues with a recording discard, hostile chains, and the real madvise() on an anonymous
 * mapping (the pages read back as zeroes and leave the resident set).
 *
 * Layout: the devtest RAM at [0, 4 MiB) carries the rings and the PFN arrays; "balloon RAM"
 * is an mmap'd region at BRAM_GPA, in the map minus a fake kernel segment at HOLE_GPA.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../devices/devtest.h"
#include "balloon/vballoon.h"
#include "cctest.h"

#define PG	  BALLOON_PAGE_SIZE
#define BRAM_GPA  0x1000000ull
#define BRAM_SIZE 0x100000ull
#define HOLE_GPA  0x1040000ull
#define HOLE_SIZE 0x10000ull

struct rec {
	unsigned n;
	uint8_t *hva[64];
	size_t len[64];
};

static struct dt_guest g;
static struct dt_queue qs[3];
static struct dt_transport t;
static struct vdev *dev;
static uint8_t *bram;
static struct rec rec;
static unsigned config_irqs;

static int rec_discard(void *hva, size_t len, void *opaque)
{
	struct rec *r = opaque;

	ck_assert_uint_lt(r->n, 64);
	r->hva[r->n] = hva;
	r->len[r->n] = len;
	r->n++;
	return 0;
}

static void count_config(void *opaque)
{
	(void) opaque;
	config_irqs++;
}

/* A device over the balloon RAM; real_madvise: the default discard, else rec_discard. */
static void start(bool reporting, bool real_madvise)
{
	struct balloon_map map;
	struct vballoon_config cfg = {.map = &map, .reporting = reporting};

	dt_guest_init(&g);
	bram = mmap(NULL, BRAM_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(bram, MAP_FAILED);
	ASSERT_OK(gmem_add_region(&g.gm, BRAM_GPA, BRAM_SIZE, bram, 0));
	balloon_map_init(&map);
	ASSERT_OK(balloon_map_add(&map, BRAM_GPA, BRAM_SIZE, bram));
	ASSERT_OK(balloon_map_remove(&map, HOLE_GPA, HOLE_SIZE));
	memset(&rec, 0, sizeof(rec));
	if (!real_madvise) {
		cfg.discard = rec_discard;
		cfg.discard_opaque = &rec;
	}
	ASSERT_OK(vballoon_new(&cfg, &dev));
	dt_transport_attach(&t, dev);
	dev->transport.notify_config = count_config;
	config_irqs = 0;
}

static void start_active(void)
{
	start(true, false);
	for (unsigned i = 0; i < 3; i++)
		dt_queue_init(&qs[i], &g, dev, i, 64);
	ASSERT_OK(dev->ops->activate(dev, dev->ops->get_features(dev)));
}

static void stop(void)
{
	dev->ops->free(dev);
	ck_assert_int_eq(munmap(bram, BRAM_SIZE), 0);
	dt_guest_done(&g);
}

static uint64_t pfn_array(const uint32_t *pfns, unsigned n)
{
	uint64_t gpa;
	uint8_t *p = dt_alloc(&g, 4ull * n, &gpa);

	for (unsigned i = 0; i < n; i++)
		for (unsigned k = 0; k < 4; k++)
			p[4 * i + k] = (uint8_t) (pfns[i] >> (8 * k));
	return gpa;
}

static struct vballoon_stats stats(void)
{
	struct vballoon_stats s;

	vballoon_get_stats(dev, &s);
	return s;
}

START_TEST(test_features_and_queues)
{
	start(true, false);
	ck_assert_uint_eq(dev->ops->device_id, 5);
	ck_assert_uint_eq(dev->ops->get_features(dev),
			  (1ull << VIRTIO_BALLOON_F_DEFLATE_ON_OOM) |
				  (1ull << VIRTIO_BALLOON_F_REPORTING));
	ck_assert_uint_eq(dev->n_queues, 3);
	ck_assert_uint_eq(dev->config_size, 8);
	stop();
	start(false, false);
	ck_assert_uint_eq(dev->ops->get_features(dev), 1ull << VIRTIO_BALLOON_F_DEFLATE_ON_OOM);
	ck_assert_uint_eq(dev->n_queues, 2);
	stop();
}
END_TEST

START_TEST(test_activate_needs_queues)
{
	uint64_t with = 1ull << VIRTIO_BALLOON_F_REPORTING;

	start(true, false);
	ck_assert_int_ne(dev->ops->activate(dev, 0), 0);
	dt_queue_init(&qs[0], &g, dev, 0, 16);
	dt_queue_init(&qs[1], &g, dev, 1, 16);
	ASSERT_OK(dev->ops->activate(dev, 0));
	/* reporting acked: its queue must be set up too */
	ck_assert_int_ne(dev->ops->activate(dev, with), 0);
	dt_queue_init(&qs[2], &g, dev, 2, 32);
	ASSERT_OK(dev->ops->activate(dev, with));
	stop();
}
END_TEST

START_TEST(test_config_space)
{
	uint8_t b[8];
	uint32_t v;

	start(true, false);
	dev->ops->config_read(dev, 0, b, 8);
	ck_assert_mem_eq(b, "\0\0\0\0\0\0\0\0", 8);
	vballoon_set_target(dev, 0x01020304);
	ck_assert_uint_eq(config_irqs, 1);
	vballoon_set_target(dev, 0x01020304); /* unchanged: no interrupt */
	ck_assert_uint_eq(config_irqs, 1);
	dev->ops->config_read(dev, 0, &v, 4);
	ck_assert_uint_eq(v, 0x01020304);
	/* the driver writes actual, as a word and byte by byte; num_pages is not its to write */
	v = 77;
	dev->ops->config_write(dev, 4, &v, 4);
	ck_assert_uint_eq(stats().actual, 77);
	b[0] = 0x12;
	dev->ops->config_write(dev, 7, b, 1);
	ck_assert_uint_eq(stats().actual, 0x1200004d);
	v = 0xdeadbeef;
	dev->ops->config_write(dev, 0, &v, 4);
	dev->ops->config_read(dev, 0, &v, 4);
	ck_assert_uint_eq(v, 0x01020304);
	/* a word straddling both fields: only the actual half lands */
	memcpy(b, "\xaa\xbb\xcc\xdd", 4);
	dev->ops->config_write(dev, 2, b, 4);
	dev->ops->config_read(dev, 2, b, 4);
	ck_assert_mem_eq(b, "\x02\x01\xcc\xdd", 4);
	/* reset forgets actual, keeps the host's target */
	dev->ops->reset(dev);
	ck_assert_uint_eq(stats().actual, 0);
	dev->ops->config_read(dev, 0, &v, 4);
	ck_assert_uint_eq(v, 0x01020304);
	stop();
}
END_TEST

START_TEST(test_inflate_discards_runs)
{
	/* pfns in balloon RAM: a run of 3, one in the kernel hole, one outside RAM, one alone */
	const uint32_t pfns[] = {
		(uint32_t) (BRAM_GPA >> 12) + 1,
		(uint32_t) (BRAM_GPA >> 12) + 2,
		(uint32_t) (BRAM_GPA >> 12) + 3,
		(uint32_t) (HOLE_GPA >> 12),
		0x7ffff,
		(uint32_t) (BRAM_GPA >> 12) + 0x80,
	};
	uint32_t id, len;
	uint64_t gpa;

	start_active();
	gpa = pfn_array(pfns, 6);
	struct dt_buf b[] = {{gpa, 6 * 4, false}};
	dt_queue_add(&qs[0], b, 1);
	dev->ops->queue_notify(dev, VBALLOON_Q_INFLATE);
	ck_assert(dt_queue_used(&qs[0], &id, &len));
	ck_assert_uint_eq(len, 0);
	ck_assert_uint_eq(t.used_irqs, 1);
	ck_assert_uint_eq(rec.n, 2);
	ck_assert_ptr_eq(rec.hva[0], bram + PG);
	ck_assert_uint_eq(rec.len[0], 3 * PG);
	ck_assert_ptr_eq(rec.hva[1], bram + 0x80 * PG);
	ck_assert_uint_eq(rec.len[1], PG);
	ck_assert_uint_eq(stats().inflated_pages, 6);
	ck_assert_uint_eq(stats().discarded_bytes, 4 * PG);
	ck_assert_uint_eq(stats().refused, 2);
	stop();
}
END_TEST

START_TEST(test_inflate_split_array)
{
	/* one PFN array split over two descriptors, across a 4-byte entry */
	const uint32_t pfns[] = {(uint32_t) (BRAM_GPA >> 12), (uint32_t) (BRAM_GPA >> 12) + 1};
	uint32_t id, len;
	uint64_t gpa;

	start_active();
	gpa = pfn_array(pfns, 2);
	struct dt_buf b[] = {{gpa, 3, false}, {gpa + 3, 5, false}};
	dt_queue_add(&qs[0], b, 2);
	dev->ops->queue_notify(dev, VBALLOON_Q_INFLATE);
	ck_assert(dt_queue_used(&qs[0], &id, &len));
	ck_assert_uint_eq(rec.n, 1);
	ck_assert_ptr_eq(rec.hva[0], bram);
	ck_assert_uint_eq(rec.len[0], 2 * PG);
	ck_assert_uint_eq(stats().refused, 0);
	stop();
}
END_TEST

START_TEST(test_deflate_counts_only)
{
	const uint32_t pfns[] = {(uint32_t) (BRAM_GPA >> 12), 5};
	uint32_t id, len;
	uint64_t gpa;

	start_active();
	gpa = pfn_array(pfns, 2);
	struct dt_buf b[] = {{gpa, 8, false}};
	dt_queue_add(&qs[1], b, 1);
	dev->ops->queue_notify(dev, VBALLOON_Q_DEFLATE);
	ck_assert(dt_queue_used(&qs[1], &id, &len));
	ck_assert_uint_eq(rec.n, 0);
	ck_assert_uint_eq(stats().deflated_pages, 2);
	stop();
}
END_TEST

START_TEST(test_report_discards_ranges)
{
	uint32_t id, len;

	start_active();
	/* two free ranges, one straddling the kernel hole, and one readable buffer (refused) */
	struct dt_buf b[] = {
		{BRAM_GPA + 0x10000, 0x10000, true},
		{HOLE_GPA - 0x1000, 0x12000, true},
	};
	dt_queue_add(&qs[2], b, 2);
	dev->ops->queue_notify(dev, VBALLOON_Q_REPORTING);
	ck_assert(dt_queue_used(&qs[2], &id, &len));
	ck_assert_uint_eq(len, 0);
	ck_assert_uint_eq(rec.n, 3);
	ck_assert_ptr_eq(rec.hva[0], bram + 0x10000);
	ck_assert_uint_eq(rec.len[0], 0x10000);
	ck_assert_ptr_eq(rec.hva[1], bram + 0x3f000);
	ck_assert_uint_eq(rec.len[1], 0x1000);
	ck_assert_ptr_eq(rec.hva[2], bram + 0x50000);
	ck_assert_uint_eq(rec.len[2], 0x1000);
	ck_assert_uint_eq(stats().reported_bytes, 0x22000);
	ck_assert_uint_eq(stats().discarded_bytes, 0x12000);
	ck_assert_uint_eq(stats().refused, 0);

	/* hostile: readable buffers, unaligned ranges, the rings' RAM (not in the map) */
	struct dt_buf ro[] = {{BRAM_GPA, 0x1000, false}};
	dt_queue_add(&qs[2], ro, 1);
	struct dt_buf odd[] = {{BRAM_GPA + 0x800, 0x1000, true}, {BRAM_GPA, 0x1800, true}};
	dt_queue_add(&qs[2], odd, 2);
	struct dt_buf ring[] = {{0x100000, 0x10000, true}};
	dt_queue_add(&qs[2], ring, 1);
	rec.n = 0;
	dev->ops->queue_notify(dev, VBALLOON_Q_REPORTING);
	for (unsigned i = 0; i < 3; i++)
		ck_assert(dt_queue_used(&qs[2], &id, &len));
	ck_assert_uint_eq(rec.n, 0);
	ck_assert_uint_eq(stats().refused, 4);
	ck_assert_uint_eq(t.needs_reset, 0);
	stop();
}
END_TEST

START_TEST(test_report_ignored_unless_acked)
{
	uint32_t id, len;

	start(true, false);
	for (unsigned i = 0; i < 3; i++)
		dt_queue_init(&qs[i], &g, dev, i, 32);
	ASSERT_OK(dev->ops->activate(dev, 0));
	struct dt_buf b[] = {{BRAM_GPA, 0x1000, true}};
	dt_queue_add(&qs[2], b, 1);
	dev->ops->queue_notify(dev, VBALLOON_Q_REPORTING);
	dev->ops->queue_notify(dev, 7);
	ck_assert(!dt_queue_used(&qs[2], &id, &len));
	ck_assert_uint_eq(rec.n, 0);
	stop();
}
END_TEST

START_TEST(test_malformed_chains)
{
	uint32_t id, len;

	start_active();
	/* a buffer outside guest memory: consumed and returned with length 0 */
	struct dt_buf bad[] = {{0x80000000ull, 0x1000, true}};
	dt_queue_add(&qs[2], bad, 1);
	dev->ops->queue_notify(dev, VBALLOON_Q_REPORTING);
	ck_assert(dt_queue_used(&qs[2], &id, &len));
	ck_assert_uint_eq(len, 0);
	ck_assert_uint_eq(stats().refused, 1);
	/* an inflate chain with a writable part and a partial entry */
	uint64_t gpa;
	(void) dt_alloc(&g, 8, &gpa);
	struct dt_buf w[] = {{gpa, 6, false}, {gpa, 8, true}};
	dt_queue_add(&qs[0], w, 2);
	dev->ops->queue_notify(dev, VBALLOON_Q_INFLATE);
	ck_assert(dt_queue_used(&qs[0], &id, &len));
	ck_assert_uint_eq(stats().refused, 1 + 2 + 1); /* writable part, partial entry, pfn 0 */
	/* a broken queue: the device asks for a reset */
	dt_queue_set_avail_idx(&qs[1], 1000);
	dev->ops->queue_notify(dev, VBALLOON_Q_DEFLATE);
	ck_assert_uint_eq(t.needs_reset, 1);
	stop();
}
END_TEST

START_TEST(test_inflate_caps_array)
{
	uint32_t id, len;
	uint64_t gpa;

	start_active();
	/* PFN 0 (not in the map) times VBALLOON_PFNS_MAX + 1: the excess is refused unread */
	(void) dt_alloc(&g, 4ull * (VBALLOON_PFNS_MAX + 1), &gpa);
	struct dt_buf b[] = {{gpa, 4 * (VBALLOON_PFNS_MAX + 1), false}};
	dt_queue_add(&qs[0], b, 1);
	dev->ops->queue_notify(dev, VBALLOON_Q_INFLATE);
	ck_assert(dt_queue_used(&qs[0], &id, &len));
	ck_assert_uint_eq(stats().inflated_pages, VBALLOON_PFNS_MAX);
	stop();
}
END_TEST

/* Pages of [p, p + len) resident in this process. */
static unsigned resident_pages(void *p, size_t len)
{
	unsigned char vec[256];
	unsigned n = 0;

	ck_assert_uint_le(len / PG, sizeof(vec));
	ck_assert_int_eq(mincore(p, len, vec), 0);
	for (size_t i = 0; i < len / PG; i++)
		n += vec[i] & 1;
	return n;
}

START_TEST(test_real_madvise_gives_pages_back)
{
	uint32_t id, len;

	ck_assert_int_eq(sysconf(_SC_PAGESIZE), (long) PG); /* x86-64 */
	start(true, true);
	for (unsigned i = 0; i < 3; i++)
		dt_queue_init(&qs[i], &g, dev, i, 32);
	ASSERT_OK(dev->ops->activate(dev, dev->ops->get_features(dev)));
	memset(bram, 0x5a, BRAM_SIZE);
	ck_assert_uint_eq(resident_pages(bram, 0x40000), 0x40);
	/* report [0, 0x40000) and the hole: the hole keeps its bytes */
	struct dt_buf b[] = {{BRAM_GPA, 0x40000, true}, {HOLE_GPA, HOLE_SIZE, true}};
	dt_queue_add(&qs[2], b, 2);
	dev->ops->queue_notify(dev, VBALLOON_Q_REPORTING);
	ck_assert(dt_queue_used(&qs[2], &id, &len));
	ck_assert_uint_eq(resident_pages(bram, 0x40000), 0);
	for (size_t i = 0; i < 0x40000; i += 997)
		ck_assert_uint_eq(bram[i], 0);
	ck_assert_uint_eq(bram[HOLE_GPA - BRAM_GPA], 0x5a);
	ck_assert_uint_eq(bram[0x40000 + HOLE_SIZE], 0x5a);
	ck_assert_uint_eq(stats().discarded_bytes, 0x40000);
	ck_assert_uint_eq(stats().failed, 0);
	stop();
}
END_TEST

static Suite *vballoon_suite(void)
{
	Suite *s = suite_create("vballoon");
	TCase *tc = tcase_create("balloon");

	tcase_add_test(tc, test_features_and_queues);
	tcase_add_test(tc, test_activate_needs_queues);
	tcase_add_test(tc, test_config_space);
	tcase_add_test(tc, test_inflate_discards_runs);
	tcase_add_test(tc, test_inflate_split_array);
	tcase_add_test(tc, test_deflate_counts_only);
	tcase_add_test(tc, test_report_discards_ranges);
	tcase_add_test(tc, test_report_ignored_unless_acked);
	tcase_add_test(tc, test_malformed_chains);
	tcase_add_test(tc, test_inflate_caps_array);
	tcase_add_test(tc, test_real_madvise_gives_pages_back);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(vballoon_suite());
}
