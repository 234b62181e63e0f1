/* SPDX-License-Identifier: Apache-2.0 */
/* virtio-blk device model against fake guest memory and the in-memory backend. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "blk/blkbe-mem.h"
#include "blk/vblk.h"
#include "cc/macro.h"
#include "cctest.h"
#include "devtest.h"

#define DISK_SECTORS 64u
#define DISK_SIZE    (DISK_SECTORS * 512u)

static struct dt_guest g;
static struct dt_queue q;
static struct dt_transport t;
static struct vdev *dev;
static struct blk_backend *be;

static void make_dev(bool read_only)
{
	ASSERT_OK(blkbe_mem_new(DISK_SIZE, read_only, "test-serial-0123456789", &be));
	for (unsigned i = 0; i < DISK_SIZE; i++)
		blkbe_mem_data(be)[i] = (uint8_t) (i * 7 + i / 512);
	ASSERT_OK(vblk_new_with_backend(be, &dev));
	dt_transport_attach(&t, dev);
	dt_queue_init(&q, &g, dev, 0, 64);
	ASSERT_OK(dev->ops->activate(dev, dev->ops->get_features(dev)));
}

static void setup_rw(void)
{
	dt_guest_init(&g);
	make_dev(false);
}

static void setup_ro(void)
{
	dt_guest_init(&g);
	make_dev(true);
}

static void teardown(void)
{
	dev->ops->free(dev);
	dt_guest_done(&g);
}

/* A request header in guest memory. */
static uint64_t put_hdr(uint32_t type, uint64_t sector)
{
	uint64_t gpa;
	uint8_t *h = dt_alloc(&g, 16, &gpa);

	memcpy(h, &type, 4);
	memcpy(h + 8, &sector, 8);
	return gpa;
}

/* Kick the queue and return the single used element's length; *status gets the status. */
static uint32_t run_one(uint64_t status_gpa, uint8_t *status)
{
	uint32_t id, len;

	dev->ops->queue_notify(dev, 0);
	ck_assert(dt_queue_used(&q, &id, &len));
	ck_assert(!dt_queue_used(&q, &id, &len));
	if (status)
		*status = *(uint8_t *) dt_hva(&g, status_gpa);
	return len;
}

/* header | data (one buffer, readable or writable) | status */
static uint32_t simple_req(uint32_t type, uint64_t sector, uint64_t data_gpa, uint32_t data_len,
			   bool data_writable, uint8_t *status)
{
	uint64_t st_gpa;
	uint8_t *st = dt_alloc(&g, 1, &st_gpa);
	struct dt_buf bufs[3] = {{put_hdr(type, sector), 16, false}};
	unsigned n = 1;

	*st = 0xee;
	if (data_len)
		bufs[n++] = (struct dt_buf){data_gpa, data_len, data_writable};
	bufs[n++] = (struct dt_buf){st_gpa, 1, true};
	dt_queue_add(&q, bufs, n);
	return run_one(st_gpa, status);
}

START_TEST(test_vblk_config_and_features)
{
	uint64_t cap;
	uint32_t v;
	uint64_t f = dev->ops->get_features(dev);

	ck_assert_uint_eq(dev->ops->device_id, 2);
	ck_assert(f & (1ull << VIRTIO_BLK_F_FLUSH));
	ck_assert(f & (1ull << VIRTIO_BLK_F_DISCARD));
	ck_assert(f & (1ull << VIRTIO_BLK_F_SEG_MAX));
	ck_assert(f & (1ull << VIRTIO_BLK_F_BLK_SIZE));
	ck_assert(!(f & (1ull << VIRTIO_BLK_F_RO)));
	ck_assert_uint_eq(dev->config_size, VBLK_CONFIG_SIZE);
	dev->ops->config_read(dev, 0, &cap, 8);
	ck_assert_uint_eq(cap, DISK_SECTORS);
	dev->ops->config_read(dev, 12, &v, 4);
	ck_assert_uint_eq(v, VIRTQ_CHAIN_MAX - 2);
	dev->ops->config_read(dev, 20, &v, 4);
	ck_assert_uint_eq(v, 512);
	dev->ops->config_read(dev, 36, &v, 4);
	ck_assert_uint_eq(v, VBLK_MAX_DISCARD_SECTORS);
	dev->ops->config_read(dev, 40, &v, 4);
	ck_assert_uint_eq(v, VBLK_MAX_DISCARD_SEG);
	/* Out of range reads give zeroes, never memory past the config. */
	v = 0xffffffff;
	dev->ops->config_read(dev, VBLK_CONFIG_SIZE - 2, &v, 4);
	ck_assert_uint_eq(v, 0);
}
END_TEST

START_TEST(test_vblk_ro_features)
{
	uint64_t f = dev->ops->get_features(dev);

	ck_assert(f & (1ull << VIRTIO_BLK_F_RO));
	ck_assert(!(f & (1ull << VIRTIO_BLK_F_DISCARD)));
}
END_TEST

START_TEST(test_vblk_read)
{
	uint64_t gpa;
	uint8_t *buf = dt_alloc(&g, 1024, &gpa), status;

	ck_assert_uint_eq(simple_req(VIRTIO_BLK_T_IN, 3, gpa, 1024, true, &status), 1025);
	ck_assert_uint_eq(status, VIRTIO_BLK_S_OK);
	ck_assert_mem_eq(buf, blkbe_mem_data(be) + 3 * 512, 1024);
	ck_assert_uint_eq(t.used_irqs, 1);
}
END_TEST

START_TEST(test_vblk_write_then_read_scattered)
{
	uint64_t hdr = put_hdr(VIRTIO_BLK_T_OUT, 10), d1, d2, st_gpa, r1, r2;
	uint8_t *a = dt_alloc(&g, 100, &d1), *b = dt_alloc(&g, 924, &d2);
	uint8_t *st = dt_alloc(&g, 1, &st_gpa), *ra, *rb, expect[1024];
	/* The header itself split 5 + 11 across two buffers. */
	struct dt_buf w[] = {{hdr, 5, false},
			     {hdr + 5, 11, false},
			     {d1, 100, false},
			     {d2, 924, false},
			     {st_gpa, 1, true}};

	for (unsigned i = 0; i < 1024; i++)
		expect[i] = (uint8_t) (0xa5 ^ i);
	memcpy(a, expect, 100);
	memcpy(b, expect + 100, 924);
	dt_queue_add(&q, w, ARRAY_SIZE(w));
	ck_assert_uint_eq(run_one(0, NULL), 1);
	ck_assert_uint_eq(*st, VIRTIO_BLK_S_OK);
	ck_assert_mem_eq(blkbe_mem_data(be) + 10 * 512, expect, 1024);

	/* Read back into two buffers, the status byte sharing the second one. */
	ra = dt_alloc(&g, 300, &r1);
	rb = dt_alloc(&g, 725, &r2);
	struct dt_buf rd[] = {
		{put_hdr(VIRTIO_BLK_T_IN, 10), 16, false}, {r1, 300, true}, {r2, 725, true}};
	dt_queue_add(&q, rd, ARRAY_SIZE(rd));
	ck_assert_uint_eq(run_one(0, NULL), 1025);
	ck_assert_mem_eq(ra, expect, 300);
	ck_assert_mem_eq(rb, expect + 300, 724);
	ck_assert_uint_eq(rb[724], VIRTIO_BLK_S_OK);
}
END_TEST

START_TEST(test_vblk_bad_sectors_are_ioerr)
{
	uint64_t gpa;
	uint8_t *buf = dt_alloc(&g, 1024, &gpa), status;

	memset(buf, 0x5a, 1024);
	/* Last sector plus one beyond the end. */
	ck_assert_uint_eq(simple_req(VIRTIO_BLK_T_IN, DISK_SECTORS - 1, gpa, 1024, true, &status),
			  1);
	ck_assert_uint_eq(status, VIRTIO_BLK_S_IOERR);
	ck_assert_uint_eq(buf[0], 0x5a); /* nothing was read */
	ck_assert_uint_eq(simple_req(VIRTIO_BLK_T_IN, DISK_SECTORS, gpa, 512, true, &status), 1);
	ck_assert_uint_eq(status, VIRTIO_BLK_S_IOERR);
	/* sector * 512 overflows 64 bits */
	ck_assert_uint_eq(simple_req(VIRTIO_BLK_T_IN, UINT64_MAX, gpa, 512, true, &status), 1);
	ck_assert_uint_eq(status, VIRTIO_BLK_S_IOERR);
	ck_assert_uint_eq(
		simple_req(VIRTIO_BLK_T_OUT, UINT64_MAX / 512 + 1, gpa, 512, false, &status), 1);
	ck_assert_uint_eq(status, VIRTIO_BLK_S_IOERR);
	/* The very last sector is fine. */
	ck_assert_uint_eq(simple_req(VIRTIO_BLK_T_IN, DISK_SECTORS - 1, gpa, 512, true, &status),
			  513);
	ck_assert_uint_eq(status, VIRTIO_BLK_S_OK);
}
END_TEST

START_TEST(test_vblk_unaligned_length_is_ioerr)
{
	uint64_t gpa;
	uint8_t status;

	(void) dt_alloc(&g, 1024, &gpa);
	ck_assert_uint_eq(simple_req(VIRTIO_BLK_T_IN, 0, gpa, 100, true, &status), 1);
	ck_assert_uint_eq(status, VIRTIO_BLK_S_IOERR);
	ck_assert_uint_eq(simple_req(VIRTIO_BLK_T_OUT, 0, gpa, 513, false, &status), 1);
	ck_assert_uint_eq(status, VIRTIO_BLK_S_IOERR);
}
END_TEST

START_TEST(test_vblk_ro_refuses_writes)
{
	uint64_t gpa, seg_gpa;
	uint8_t *buf = dt_alloc(&g, 512, &gpa), status, before[512];
	uint8_t *seg = dt_alloc(&g, 16, &seg_gpa);
	uint32_t one = 1;

	memcpy(before, blkbe_mem_data(be), 512);
	memset(buf, 0xff, 512);
	ck_assert_uint_eq(simple_req(VIRTIO_BLK_T_OUT, 0, gpa, 512, false, &status), 1);
	ck_assert_uint_eq(status, VIRTIO_BLK_S_IOERR);
	memcpy(seg + 8, &one, 4);
	ck_assert_uint_eq(simple_req(VIRTIO_BLK_T_DISCARD, 0, seg_gpa, 16, false, &status), 1);
	ck_assert_uint_eq(status, VIRTIO_BLK_S_IOERR);
	ck_assert_mem_eq(blkbe_mem_data(be), before, 512);
	/* Reads and flushes still work. */
	ck_assert_uint_eq(simple_req(VIRTIO_BLK_T_IN, 0, gpa, 512, true, &status), 513);
	ck_assert_uint_eq(status, VIRTIO_BLK_S_OK);
	ck_assert_uint_eq(simple_req(VIRTIO_BLK_T_FLUSH, 0, 0, 0, false, &status), 1);
	ck_assert_uint_eq(status, VIRTIO_BLK_S_OK);
}
END_TEST

START_TEST(test_vblk_flush)
{
	uint8_t status;

	ck_assert_uint_eq(simple_req(VIRTIO_BLK_T_FLUSH, 0, 0, 0, false, &status), 1);
	ck_assert_uint_eq(status, VIRTIO_BLK_S_OK);
	ck_assert_uint_eq(blkbe_mem_flushes(be), 1);
}
END_TEST

static void put_seg(uint8_t *p, uint64_t sector, uint32_t num, uint32_t flags)
{
	memcpy(p, &sector, 8);
	memcpy(p + 8, &num, 4);
	memcpy(p + 12, &flags, 4);
}

START_TEST(test_vblk_discard)
{
	uint64_t gpa;
	uint8_t *segs = dt_alloc(&g, 64 * 16, &gpa), status, zero[1024] = {0};

	put_seg(segs, 2, 2, 0);
	put_seg(segs + 16, 20, 1, 0);
	ck_assert_uint_eq(simple_req(VIRTIO_BLK_T_DISCARD, 0, gpa, 32, false, &status), 1);
	ck_assert_uint_eq(status, VIRTIO_BLK_S_OK);
	ck_assert_uint_eq(blkbe_mem_discards(be), 2);
	ck_assert_mem_eq(blkbe_mem_data(be) + 2 * 512, zero, 1024);
	ck_assert_mem_eq(blkbe_mem_data(be) + 20 * 512, zero, 512);
	ck_assert_uint_ne(blkbe_mem_data(be)[4 * 512 + 1], 0);

	/* unmap flag: UNSUPP for DISCARD; reserved flags too. */
	put_seg(segs, 0, 1, VIRTIO_BLK_DISCARD_F_UNMAP);
	ck_assert_uint_eq(simple_req(VIRTIO_BLK_T_DISCARD, 0, gpa, 16, false, &status), 1);
	ck_assert_uint_eq(status, VIRTIO_BLK_S_UNSUPP);
	/* Beyond the disk, or a segment too large: IOERR, and nothing is discarded. */
	put_seg(segs, 0, 1, 0);
	put_seg(segs + 16, DISK_SECTORS, 1, 0);
	ck_assert_uint_eq(simple_req(VIRTIO_BLK_T_DISCARD, 0, gpa, 32, false, &status), 1);
	ck_assert_uint_eq(status, VIRTIO_BLK_S_IOERR);
	ck_assert_uint_eq(blkbe_mem_discards(be), 2);
	put_seg(segs, 0, VBLK_MAX_DISCARD_SECTORS + 1, 0);
	ck_assert_uint_eq(simple_req(VIRTIO_BLK_T_DISCARD, 0, gpa, 16, false, &status), 1);
	ck_assert_uint_eq(status, VIRTIO_BLK_S_IOERR);
	/* Too many segments, a partial segment, no segment. */
	for (unsigned i = 0; i < 64; i++)
		put_seg(segs + 16 * i, i, 1, 0);
	ck_assert_uint_eq(simple_req(VIRTIO_BLK_T_DISCARD, 0, gpa, 16 * (VBLK_MAX_DISCARD_SEG + 1),
				     false, &status),
			  1);
	ck_assert_uint_eq(status, VIRTIO_BLK_S_IOERR);
	ck_assert_uint_eq(simple_req(VIRTIO_BLK_T_DISCARD, 0, gpa, 24, false, &status), 1);
	ck_assert_uint_eq(status, VIRTIO_BLK_S_IOERR);
	ck_assert_uint_eq(simple_req(VIRTIO_BLK_T_DISCARD, 0, 0, 0, false, &status), 1);
	ck_assert_uint_eq(status, VIRTIO_BLK_S_IOERR);
	ck_assert_uint_eq(blkbe_mem_discards(be), 2);
}
END_TEST

START_TEST(test_vblk_get_id)
{
	uint64_t gpa;
	uint8_t *id = dt_alloc(&g, 20, &gpa), status;

	ck_assert_uint_eq(simple_req(VIRTIO_BLK_T_GET_ID, 0, gpa, 20, true, &status), 21);
	ck_assert_uint_eq(status, VIRTIO_BLK_S_OK);
	ck_assert_mem_eq(id, "test-serial-01234567", 20);
	/* A short buffer gets what fits. */
	ck_assert_uint_eq(simple_req(VIRTIO_BLK_T_GET_ID, 0, gpa, 4, true, &status), 5);
}
END_TEST

START_TEST(test_vblk_unknown_type_unsupp)
{
	uint64_t gpa;
	uint8_t status;

	(void) dt_alloc(&g, 512, &gpa);
	ck_assert_uint_eq(simple_req(VIRTIO_BLK_T_WRITE_ZEROES, 0, gpa, 16, false, &status), 1);
	ck_assert_uint_eq(status, VIRTIO_BLK_S_UNSUPP);
	ck_assert_uint_eq(simple_req(0xdeadbeef, 0, 0, 0, false, &status), 1);
	ck_assert_uint_eq(status, VIRTIO_BLK_S_UNSUPP);
}
END_TEST

START_TEST(test_vblk_malformed_chains)
{
	uint64_t st_gpa, gpa;
	uint8_t *st = dt_alloc(&g, 1, &st_gpa);
	uint32_t id, len;
	struct vblk_req_stats stats;

	(void) dt_alloc(&g, 512, &gpa);
	/* No writable byte for the status: returned with length 0. */
	struct dt_buf no_status[] = {{put_hdr(VIRTIO_BLK_T_IN, 0), 16, false}};
	dt_queue_add(&q, no_status, 1);
	ck_assert_uint_eq(run_one(0, NULL), 0);
	/* Header shorter than 16 bytes: IOERR. */
	struct dt_buf short_hdr[] = {{put_hdr(VIRTIO_BLK_T_IN, 0), 8, false}, {st_gpa, 1, true}};
	*st = 0xee;
	dt_queue_add(&q, short_hdr, 2);
	ck_assert_uint_eq(run_one(0, NULL), 1);
	ck_assert_uint_eq(*st, VIRTIO_BLK_S_IOERR);
	/* A buffer outside guest memory: the chain is returned empty, the device goes on. */
	struct dt_buf wild[] = {{put_hdr(VIRTIO_BLK_T_IN, 0), 16, false},
				{DT_MEM_SIZE - 16, 512, true},
				{st_gpa, 1, true}};
	dt_queue_add(&q, wild, 3);
	dev->ops->queue_notify(dev, 0);
	ck_assert(dt_queue_used(&q, &id, &len));
	ck_assert_uint_eq(len, 0);
	vblk_get_stats(dev, &stats);
	ck_assert_uint_ge(stats.malformed, 3);
	ck_assert_uint_eq(t.needs_reset, 0);
	/* And a good request still works afterwards. */
	ck_assert_uint_eq(simple_req(VIRTIO_BLK_T_IN, 0, gpa, 512, true, st), 513);
}
END_TEST

START_TEST(test_vblk_backend_error_is_ioerr)
{
	uint64_t gpa;
	uint8_t status;

	(void) dt_alloc(&g, 512, &gpa);
	blkbe_mem_fail(be, -EIO);
	ck_assert_uint_eq(simple_req(VIRTIO_BLK_T_IN, 0, gpa, 512, true, &status), 1);
	ck_assert_uint_eq(status, VIRTIO_BLK_S_IOERR);
	ck_assert_uint_eq(simple_req(VIRTIO_BLK_T_FLUSH, 0, 0, 0, false, &status), 1);
	ck_assert_uint_eq(status, VIRTIO_BLK_S_IOERR);
}
END_TEST

START_TEST(test_vblk_broken_queue_fails_device)
{
	dt_queue_set_avail_idx(&q, 1000); /* more than num ahead */
	dev->ops->queue_notify(dev, 0);
	ck_assert_uint_eq(t.needs_reset, 1);
}
END_TEST

START_TEST(test_vblk_many_requests_one_kick)
{
	uint64_t gpa;
	uint8_t status;
	uint32_t id, len;
	unsigned n = 0;

	(void) dt_alloc(&g, 512, &gpa);
	for (unsigned i = 0; i < 20; i++) {
		uint64_t st_gpa;

		(void) dt_alloc(&g, 1, &st_gpa);
		struct dt_buf b[] = {{put_hdr(VIRTIO_BLK_T_IN, i), 16, false},
				     {gpa, 512, true},
				     {st_gpa, 1, true}};
		dt_queue_add(&q, b, 3);
	}
	dev->ops->queue_notify(dev, 0);
	while (dt_queue_used(&q, &id, &len)) {
		ck_assert_uint_eq(len, 513);
		n++;
	}
	ck_assert_uint_eq(n, 20);
	ck_assert_uint_eq(t.used_irqs, 1);
	(void) status;
}
END_TEST

START_TEST(test_vblk_spec_parse)
{
	char *path;
	bool ro;

	ASSERT_OK(vblk_spec_parse("/var/disk.img", &path, &ro));
	ck_assert_str_eq(path, "/var/disk.img");
	ck_assert(!ro);
	free(path);
	ASSERT_OK(vblk_spec_parse("a,b.img,ro", &path, &ro));
	ck_assert_str_eq(path, "a,b.img");
	ck_assert(ro);
	free(path);
	ASSERT_ERRNO(vblk_spec_parse("", &path, &ro), EINVAL);
	ASSERT_ERRNO(vblk_spec_parse(",ro", &path, &ro), EINVAL);
}
END_TEST

START_TEST(test_vblk_activate_needs_ready_queue)
{
	dev->queues[0].ready = false;
	ASSERT_ERRNO(dev->ops->activate(dev, 0), EINVAL);
}
END_TEST

static Suite *vblk_suite(void)
{
	Suite *s = suite_create("vblk");
	TCase *tc = tcase_create("rw");
	TCase *ro = tcase_create("ro");

	tcase_add_checked_fixture(tc, setup_rw, teardown);
	tcase_add_test(tc, test_vblk_config_and_features);
	tcase_add_test(tc, test_vblk_read);
	tcase_add_test(tc, test_vblk_write_then_read_scattered);
	tcase_add_test(tc, test_vblk_bad_sectors_are_ioerr);
	tcase_add_test(tc, test_vblk_unaligned_length_is_ioerr);
	tcase_add_test(tc, test_vblk_flush);
	tcase_add_test(tc, test_vblk_discard);
	tcase_add_test(tc, test_vblk_get_id);
	tcase_add_test(tc, test_vblk_unknown_type_unsupp);
	tcase_add_test(tc, test_vblk_malformed_chains);
	tcase_add_test(tc, test_vblk_backend_error_is_ioerr);
	tcase_add_test(tc, test_vblk_broken_queue_fails_device);
	tcase_add_test(tc, test_vblk_many_requests_one_kick);
	tcase_add_test(tc, test_vblk_spec_parse);
	tcase_add_test(tc, test_vblk_activate_needs_ready_queue);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(ro, setup_ro, teardown);
	tcase_add_test(ro, test_vblk_ro_features);
	tcase_add_test(ro, test_vblk_ro_refuses_writes);
	tcase_set_timeout(ro, 30);
	suite_add_tcase(s, ro);
	return s;
}

int main(void)
{
	return cctest_run_suite(vblk_suite());
}
