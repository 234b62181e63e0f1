/* SPDX-License-Identifier: Apache-2.0 */
/* The balloon map: building it, clipping guest requests to it, parsing PFN arrays. */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "density/balloon-map.h"
#include "cctest.h"

#define PG BALLOON_PAGE_SIZE

/* Fake host addresses: never dereferenced, the discard callback only records them. */
#define HVA(x) ((void *) (uintptr_t) (x))

struct rec {
	unsigned n;
	uint64_t hva[16];
	uint64_t len[16];
	int fail; /* return this from discard */
};

static int rec_discard(void *hva, size_t len, void *opaque)
{
	struct rec *r = opaque;

	ck_assert_uint_lt(r->n, 16);
	r->hva[r->n] = (uint64_t) (uintptr_t) hva;
	r->len[r->n] = len;
	r->n++;
	return r->fail;
}

static struct balloon_map map;
static struct rec rec;
static struct balloon_sink sink;

static void setup(void)
{
	balloon_map_init(&map);
	memset(&rec, 0, sizeof(rec));
	sink = (struct balloon_sink){.discard = rec_discard, .opaque = &rec};
}

START_TEST(test_map_add_validates)
{
	setup();
	ASSERT_ERRNO(balloon_map_add(&map, 0, 0, HVA(0x10000000)), EINVAL);
	ASSERT_ERRNO(balloon_map_add(&map, 0x800, PG, HVA(0x10000000)), EINVAL);
	ASSERT_ERRNO(balloon_map_add(&map, 0, PG + 1, HVA(0x10000000)), EINVAL);
	ASSERT_ERRNO(balloon_map_add(&map, 0, PG, HVA(0x10000010)), EINVAL);
	ASSERT_ERRNO(balloon_map_add(&map, UINT64_MAX - PG + 1, 2 * PG, HVA(0x10000000)), EINVAL);
	ASSERT_OK(balloon_map_add(&map, 0, 16 * PG, HVA(0x10000000)));
	/* overlapping by guest address, then by host address */
	ASSERT_ERRNO(balloon_map_add(&map, 15 * PG, PG, HVA(0x20000000)), EEXIST);
	ASSERT_ERRNO(balloon_map_add(&map, 0x100000, PG, HVA(0x10000000 + 15 * PG)), EEXIST);
	ASSERT_OK(balloon_map_add(&map, 16 * PG, PG, HVA(0x20000000)));
	ck_assert_uint_eq(map.n, 2);
	for (unsigned i = 2; i < BALLOON_MAP_MAX; i++)
		ASSERT_OK(balloon_map_add(&map, 0x1000000 + i * PG, PG, HVA(0x30000000 + i * PG)));
	ASSERT_ERRNO(balloon_map_add(&map, 0x9000000, PG, HVA(0x40000000)), ENOSPC);
}
END_TEST

START_TEST(test_map_remove_splits)
{
	setup();
	ASSERT_OK(balloon_map_add(&map, 0, 64 * PG, HVA(0x10000000)));
	/* a partial page in the middle: whole pages 4..5 go */
	ASSERT_OK(balloon_map_remove(&map, 4 * PG + 100, PG + 10));
	ck_assert_uint_eq(map.n, 2);
	ck_assert_uint_eq(map.pieces[0].size, 4 * PG);
	ck_assert_uint_eq(map.pieces[1].gpa, 6 * PG);
	ck_assert_uint_eq(map.pieces[1].size, 58 * PG);
	ck_assert_ptr_eq(map.pieces[1].hva, HVA(0x10000000 + 6 * PG));
	/* the head, the tail, and a range covering a whole piece */
	ASSERT_OK(balloon_map_remove(&map, 0, PG));
	ASSERT_OK(balloon_map_remove(&map, 63 * PG, 100 * PG));
	ck_assert_uint_eq(map.n, 2);
	ck_assert_uint_eq(map.pieces[0].gpa, PG);
	ck_assert_ptr_eq(map.pieces[0].hva, HVA(0x10000000 + PG));
	ck_assert_uint_eq(map.pieces[0].size, 3 * PG);
	ck_assert_uint_eq(map.pieces[1].size, 57 * PG);
	ASSERT_OK(balloon_map_remove(&map, 0, 5 * PG));
	ck_assert_uint_eq(map.n, 1);
	ck_assert_uint_eq(map.pieces[0].gpa, 6 * PG);
	/* a size that overflows removes everything above gpa; nothing to remove is fine */
	ASSERT_OK(balloon_map_remove(&map, 60 * PG, UINT64_MAX));
	ck_assert_uint_eq(map.pieces[0].size, 54 * PG);
	ASSERT_OK(balloon_map_remove(&map, 0x100000000ull, PG));
	ASSERT_OK(balloon_map_remove(&map, 0, 0));
	ck_assert_uint_eq(map.n, 1);
}
END_TEST

START_TEST(test_map_remove_full_is_atomic)
{
	struct balloon_map before;

	setup();
	for (unsigned i = 0; i < BALLOON_MAP_MAX; i++)
		ASSERT_OK(
			balloon_map_add(&map, i * 16 * PG, 4 * PG, HVA(0x10000000 + i * 16 * PG)));
	before = map;
	ASSERT_ERRNO(balloon_map_remove(&map, PG, PG), ENOSPC);
	ck_assert_mem_eq(&map, &before, sizeof(map));
}
END_TEST

START_TEST(test_discard_gpa_clips)
{
	setup();
	ASSERT_OK(balloon_map_add(&map, 0, 64 * PG, HVA(0x10000000)));
	ASSERT_OK(balloon_map_remove(&map, 8 * PG, 8 * PG)); /* a kernel segment */
	ASSERT_OK(balloon_map_add(&map, 0x100000000ull, 16 * PG, HVA(0x20000000)));

	ck_assert_uint_eq(balloon_map_discard_gpa(&map, PG, 2 * PG, &sink), 2 * PG);
	ck_assert_uint_eq(rec.n, 1);
	ck_assert_uint_eq(rec.hva[0], 0x10000000 + PG);
	ck_assert_uint_eq(rec.len[0], 2 * PG);
	/* across the hole: both sides, never the hole */
	rec.n = 0;
	ck_assert_uint_eq(balloon_map_discard_gpa(&map, 6 * PG, 12 * PG, &sink), 4 * PG);
	ck_assert_uint_eq(rec.n, 2);
	ck_assert_uint_eq(rec.hva[0] + rec.len[0], 0x10000000 + 8 * PG);
	ck_assert_uint_eq(rec.hva[1], 0x10000000 + 16 * PG);
	ck_assert_uint_eq(rec.len[0] + rec.len[1], 4 * PG);
	ck_assert_uint_eq(sink.refused, 0);
	/* refused: inside the hole only, outside RAM, unaligned, empty, overflowing */
	rec.n = 0;
	ck_assert_uint_eq(balloon_map_discard_gpa(&map, 8 * PG, 8 * PG, &sink), 0);
	ck_assert_uint_eq(balloon_map_discard_gpa(&map, 0x80000000ull, PG, &sink), 0);
	ck_assert_uint_eq(balloon_map_discard_gpa(&map, PG + 8, PG, &sink), 0);
	ck_assert_uint_eq(balloon_map_discard_gpa(&map, PG, PG - 1, &sink), 0);
	ck_assert_uint_eq(balloon_map_discard_gpa(&map, PG, 0, &sink), 0);
	ck_assert_uint_eq(balloon_map_discard_gpa(&map, UINT64_MAX - PG + 1, 2 * PG, &sink), 0);
	ck_assert_uint_eq(rec.n, 0);
	ck_assert_uint_eq(sink.refused, 6);
	ck_assert_uint_eq(sink.discarded, 6 * PG);
	/* high RAM */
	ck_assert_uint_eq(balloon_map_discard_gpa(&map, 0x100000000ull + 15 * PG, 4 * PG, &sink),
			  PG);
	ck_assert_uint_eq(rec.hva[0], 0x20000000 + 15 * PG);
}
END_TEST

START_TEST(test_discard_hva_and_failures)
{
	setup();
	ASSERT_OK(balloon_map_add(&map, 0, 64 * PG, HVA(0x10000000)));
	ASSERT_OK(balloon_map_remove(&map, 8 * PG, 8 * PG));
	ck_assert_uint_eq(balloon_map_discard_hva(&map, HVA(0x10000000 + 16 * PG), 48 * PG, &sink),
			  48 * PG);
	ck_assert_uint_eq(rec.hva[0], 0x10000000 + 16 * PG);
	/* a host range that is not guest RAM (pmem, the VMM's heap) */
	ck_assert_uint_eq(balloon_map_discard_hva(&map, HVA(0x50000000), PG, &sink), 0);
	ck_assert_uint_eq(balloon_map_discard_hva(&map, HVA(0x10000000 + 8 * PG), PG, &sink), 0);
	ck_assert_uint_eq(sink.refused, 2);
	rec.fail = -EINVAL;
	ck_assert_uint_eq(balloon_map_discard_hva(&map, HVA(0x10000000), PG, &sink), 0);
	ck_assert_uint_eq(sink.failed, 1);
	ck_assert_uint_eq(sink.refused, 2);
	ck_assert_uint_eq(sink.discarded, 48 * PG);
}
END_TEST

static void put_pfns(uint8_t *buf, const uint32_t *pfns, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (unsigned k = 0; k < 4; k++)
			buf[4 * i + k] = (uint8_t) (pfns[i] >> (8 * k));
}

START_TEST(test_pfns_runs)
{
	const uint32_t pfns[] = {2, 3, 4, 10, 7, 8, 0xffffffffu, 9};
	uint8_t buf[sizeof(pfns) + 3];

	setup();
	ASSERT_OK(balloon_map_add(&map, 0, 64 * PG, HVA(0x10000000)));
	put_pfns(buf, pfns, 8);
	ck_assert_uint_eq(balloon_pfns_discard(&map, buf, 8 * 4, &sink), 8);
	/* 2-4 as one range, then 10, 7-8 and 9 (8 -> 0xffffffff breaks the run), the huge PFN
	 * refused */
	ck_assert_uint_eq(rec.n, 4);
	ck_assert_uint_eq(rec.hva[0], 0x10000000 + 2 * PG);
	ck_assert_uint_eq(rec.len[0], 3 * PG);
	ck_assert_uint_eq(rec.hva[1], 0x10000000 + 10 * PG);
	ck_assert_uint_eq(rec.len[2], 2 * PG);
	ck_assert_uint_eq(rec.hva[3], 0x10000000 + 9 * PG);
	ck_assert_uint_eq(sink.refused, 1);
	ck_assert_uint_eq(sink.discarded, 7 * PG);
	/* a trailing partial entry is refused; the whole ones still count */
	rec.n = 0;
	ck_assert_uint_eq(balloon_pfns_discard(&map, buf, 4 + 3, &sink), 1);
	ck_assert_uint_eq(rec.n, 1);
	ck_assert_uint_eq(sink.refused, 2);
	ck_assert_uint_eq(balloon_pfns_discard(&map, buf, 0, &sink), 0);
	ck_assert_uint_eq(sink.refused, 2);
}
END_TEST

static Suite *balloon_map_suite(void)
{
	Suite *s = suite_create("balloon-map");
	TCase *tc = tcase_create("map");

	tcase_add_test(tc, test_map_add_validates);
	tcase_add_test(tc, test_map_remove_splits);
	tcase_add_test(tc, test_map_remove_full_is_atomic);
	tcase_add_test(tc, test_discard_gpa_clips);
	tcase_add_test(tc, test_discard_hva_and_failures);
	tcase_add_test(tc, test_pfns_runs);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(balloon_map_suite());
}
