/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The zero-page sweep on real anonymous memory: which pages it finds (resident and all zero,
 * never absent ones, which may be in swap, never a page with one byte set), the runs it hands
 * over, what the real
 * MADV_DONTNEED leaves (the zero pages gone from RSS, every other byte where it was), and its
 * errors.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "density/zero-pages.h"
#include "cctest.h"

#define PG	BALLOON_PAGE_SIZE
#define N_PAGES 64

struct rec {
	unsigned n;
	uint8_t *hva[16];
	size_t len[16];
	int fail;	  /* return this instead of discarding */
	bool madvise_too; /* and really discard */
};

static int rec_discard(void *hva, size_t len, void *opaque)
{
	struct rec *r = opaque;

	ck_assert_uint_lt(r->n, 16);
	r->hva[r->n] = hva;
	r->len[r->n] = len;
	r->n++;
	if (r->fail)
		return r->fail;
	return r->madvise_too && madvise(hva, len, MADV_DONTNEED) < 0 ? -errno : 0;
}

static uint8_t *mem;
static struct balloon_map map;
static struct rec rec;
static struct balloon_sink sink;

static uint8_t *page(unsigned i)
{
	return mem + (size_t) i * PG;
}

static bool resident(unsigned i)
{
	unsigned char v = 0;

	ck_assert_int_eq(mincore(page(i), PG, &v), 0);
	return v & 1;
}

static void clear_page(unsigned i)
{
	memset(page(i), 0x77, PG); /* resident, then all zero again */
	memset(page(i), 0, PG);
}

/*
 * Pages 0-3 data; 4-7 written then cleared; 8 absent; 9-10 cleared; 11 zero but its last
 * byte; 12 zero but one byte in the middle; 13-20 absent; 21 cleared; 22 data; 23 cleared; the
 * rest absent. Two pieces: pages 0-15 and 16-63.
 */
static void setup(void)
{
	static const unsigned cleared[] = {4, 5, 6, 7, 9, 10, 21, 23};

	mem = mmap(NULL, N_PAGES * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(mem, MAP_FAILED);
	ck_assert_int_eq(madvise(mem, N_PAGES * PG, MADV_NOHUGEPAGE), 0);
	for (unsigned i = 0; i < 4; i++)
		memset(page(i), 0x40 + (int) i, PG);
	for (unsigned i = 0; i < sizeof(cleared) / sizeof(cleared[0]); i++)
		clear_page(cleared[i]);
	clear_page(11);
	page(11)[PG - 1] = 1;
	clear_page(12);
	page(12)[PG / 2 + 3] = 0x80;
	memset(page(22), 0x22, PG);

	balloon_map_init(&map);
	ck_assert_int_eq(balloon_map_add(&map, 0, 16 * PG, page(0)), 0);
	ck_assert_int_eq(balloon_map_add(&map, 0x100000, (N_PAGES - 16) * PG, page(16)), 0);
	memset(&rec, 0, sizeof(rec));
	sink = (struct balloon_sink){.discard = rec_discard, .opaque = &rec};
}

static void teardown(void)
{
	ck_assert_int_eq(munmap(mem, N_PAGES * PG), 0);
}

START_TEST(test_zero_page_check)
{
	uint64_t buf[PG / 8] = {0};
	uint8_t *b = (uint8_t *) buf;
	static const unsigned at[] = {0, 7, 31, 32, 33, 95, 96, 2048, PG - 8, PG - 1};

	ck_assert(zero_page_check(buf));
	for (unsigned i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		b[at[i]] = 1;
		ck_assert_msg(!zero_page_check(buf), "a byte set at %u went unseen", at[i]);
		b[at[i]] = 0;
	}
	ck_assert(zero_page_check(buf));
}
END_TEST

START_TEST(test_sweep_finds_runs)
{
	struct zero_sweep_cursor cur = {0};
	struct zero_sweep_result res;

	rec.madvise_too = true;
	ck_assert_int_eq(zero_pages_sweep(&map, &cur, 1000, &sink, NULL, &res), 1);
	ck_assert_uint_eq(cur.piece, 0);
	ck_assert_uint_eq(cur.page, 0);
	/* resident: 0-7, 9-12, 21-23 */
	ck_assert_uint_eq(res.resident_pages, 15);
	/* zero: 4-7, 9, 10, 21, 23 */
	ck_assert_uint_eq(res.zero_pages, 8);
	/* 4-7 (the absent page 8 ends it: it could be in swap), 9-10 (ended by page 11), 21
	 * (22 has data), 23 (the absent pages after it are not part of it). */
	ck_assert_uint_eq(rec.n, 4);
	ck_assert_ptr_eq(rec.hva[0], page(4));
	ck_assert_uint_eq(rec.len[0], 4 * PG);
	ck_assert_ptr_eq(rec.hva[1], page(9));
	ck_assert_uint_eq(rec.len[1], 2 * PG);
	ck_assert_ptr_eq(rec.hva[2], page(21));
	ck_assert_uint_eq(rec.len[2], PG);
	ck_assert_ptr_eq(rec.hva[3], page(23));
	ck_assert_uint_eq(rec.len[3], PG);
	ck_assert_uint_eq(res.given_back_pages, 8);
	ck_assert_uint_eq(sink.discarded, 8 * PG);
	ck_assert_uint_eq(res.scanned_pages, N_PAGES);
	ck_assert_uint_eq(sink.failed, 0);

	/* What the real discard left. */
	for (unsigned i = 4; i <= 10; i++)
		ck_assert_msg(!resident(i), "page %u still resident", i);
	ck_assert(!resident(21));
	for (unsigned i = 0; i < 4; i++) {
		ck_assert(resident(i));
		for (unsigned k = 0; k < PG; k++)
			ck_assert_uint_eq(page(i)[k], 0x40 + i);
	}
	ck_assert(resident(11) && resident(12) && resident(22));
	ck_assert_uint_eq(page(11)[PG - 1], 1);
	ck_assert_uint_eq(page(12)[PG / 2 + 3], 0x80);
	ck_assert_uint_eq(page(22)[PG - 1], 0x22);
	/* A discarded page reads as zeroes and takes writes. */
	ck_assert(zero_page_check(page(5)));
	page(5)[100] = 9;
	ck_assert_uint_eq(page(5)[100], 9);

	/* A second sweep finds nothing: page 5 has data now, the rest is absent. */
	memset(&rec, 0, sizeof(rec));
	sink = (struct balloon_sink){.discard = rec_discard, .opaque = &rec};
	ck_assert_int_eq(zero_pages_sweep(&map, &cur, 1000, &sink, NULL, &res), 1);
	ck_assert_uint_eq(res.zero_pages, 0);
	ck_assert_uint_eq(rec.n, 0);
}
END_TEST

START_TEST(test_sweep_failed_discard)
{
	struct zero_sweep_cursor cur = {0};
	struct zero_sweep_result res;

	rec.fail = -EPERM;
	ck_assert_int_eq(zero_pages_sweep(&map, &cur, 1000, &sink, NULL, &res), 1);
	ck_assert_uint_eq(res.zero_pages, 8);
	ck_assert_uint_eq(sink.failed, 4);
	ck_assert_uint_eq(sink.discarded, 0);
	ck_assert_uint_eq(res.given_back_pages, 0);
	ck_assert(resident(4)); /* nothing was discarded */
}
END_TEST

START_TEST(test_sweep_unmapped_piece)
{
	struct zero_sweep_cursor cur = {0};
	struct zero_sweep_result res;

	/* The second piece's last 8 pages are no longer mapped: mincore() says ENOMEM on its
	 * first chunk; the first piece was swept, its runs handed over, and the cursor is back
	 * at the start. */
	ck_assert_int_eq(munmap(page(N_PAGES - 8), 8 * PG), 0);
	ck_assert_int_eq(zero_pages_sweep(&map, &cur, 1000, &sink, NULL, &res), -ENOMEM);
	ck_assert_uint_eq(cur.piece, 0);
	ck_assert_uint_eq(cur.page, 0);
	ck_assert_uint_eq(rec.n, 2);
	ck_assert_ptr_eq(rec.hva[0], page(4));
	ck_assert_ptr_eq(rec.hva[1], page(9));
	ck_assert_int_eq(mmap(page(N_PAGES - 8), 8 * PG, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED,
			 0);
}
END_TEST

/*
 * A budget smaller than the map: slices that go on where the last one stopped, each ending
 * its open run, and together finding what one sweep finds. The budget is checked at the end
 * of a 1024-page chunk, so a map of 3 chunks with a budget of 1 takes 3 slices.
 */
START_TEST(test_sweep_in_slices)
{
	struct zero_sweep_cursor cur = {0};
	struct zero_sweep_result res;
	struct balloon_map big;
	uint8_t *m;
	uint64_t zero = 0;
	int r;

	m = mmap(NULL, 3 * 1024 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(m, MAP_FAILED);
	ck_assert_int_eq(madvise(m, 3 * 1024 * PG, MADV_NOHUGEPAGE), 0);
	for (unsigned i = 1020; i < 1030; i++) { /* a run across the first chunk's end */
		m[(size_t) i * PG] = 1;
		m[(size_t) i * PG] = 0;
	}
	m[2500 * PG] = 5; /* data in the third chunk */
	balloon_map_init(&big);
	ck_assert_int_eq(balloon_map_add(&big, 0, 2048 * PG, m), 0);
	ck_assert_int_eq(balloon_map_add(&big, 0x10000000, 1024 * PG, m + 2048 * PG), 0);

	r = zero_pages_sweep(&big, &cur, 1, &sink, NULL, &res);
	ck_assert_int_eq(r, 0);
	ck_assert_uint_eq(cur.piece, 0);
	ck_assert_uint_eq(cur.page, 1024);
	ck_assert_uint_eq(res.resident_pages, 4);
	ck_assert_uint_eq(rec.n, 1); /* the run ended with the slice */
	ck_assert_ptr_eq(rec.hva[0], m + 1020 * PG);
	ck_assert_uint_eq(rec.len[0], 4 * PG);
	zero += res.zero_pages;

	r = zero_pages_sweep(&big, &cur, 1, &sink, NULL, &res);
	ck_assert_int_eq(r, 0);
	ck_assert_uint_eq(cur.piece, 1);
	ck_assert_uint_eq(cur.page, 0);
	ck_assert_uint_eq(rec.n, 2);
	ck_assert_ptr_eq(rec.hva[1], m + 1024 * PG);
	ck_assert_uint_eq(rec.len[1], 6 * PG);
	zero += res.zero_pages;

	r = zero_pages_sweep(&big, &cur, 1, &sink, NULL, &res);
	ck_assert_int_eq(r, 1);
	ck_assert_uint_eq(cur.piece, 0);
	ck_assert_uint_eq(cur.page, 0);
	ck_assert_uint_eq(res.resident_pages, 1);
	ck_assert_uint_eq(res.zero_pages, 0);
	ck_assert_uint_eq(zero + res.zero_pages, 10);
	ck_assert_uint_eq(rec.n, 2);
	ck_assert_int_eq(zero_pages_sweep(&big, &cur, 0, &sink, NULL, &res), -EINVAL);

	/* Address space counts too: with a budget of 64, a slice asks about 16 x 64 pages at
	 * most, so the mostly absent first piece takes one slice per chunk. */
	ck_assert_int_eq(zero_pages_sweep(&big, &cur, 64, &sink, NULL, &res), 0);
	ck_assert_uint_eq(res.scanned_pages, 1024);
	ck_assert_uint_eq(cur.page, 1024);
	ck_assert_int_eq(munmap(m, 3 * 1024 * PG), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("zero-pages");
	TCase *tc = tcase_create("sweep");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_zero_page_check);
	tcase_add_test(tc, test_sweep_finds_runs);
	tcase_add_test(tc, test_sweep_failed_discard);
	tcase_add_test(tc, test_sweep_unmapped_piece);
	tcase_add_test(tc, test_sweep_in_slices);
	suite_add_tcase(s, tc);
	return cctest_run_suite(s);
}
