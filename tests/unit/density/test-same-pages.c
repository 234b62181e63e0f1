/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Page merging (density/same-pages.h) inside the zero sweep, on real anonymous memory with the
 * real MADV_DONTNEED: which pages it merges (a content seen SAME_PAGES_MIN_COPIES times, on
 * the sighting that makes it a pattern and on every later one, the earlier copies on the next
 * sweep; never a content seen fewer times, never a page with its own bytes); that every byte
 * reads as before and the merged pages are one page of the patterns' memfd; that a write to a
 * merged page changes that page only; that a merged page the guest then clears becomes
 * anonymous memory again, never discarded (the discard would bring back the pattern); that a
 * private copy with the pattern's bytes again is merged again; the bounds on merged pages and
 * on patterns; the arguments refused.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "density/same-pages.h"
#include "density/zero-pages.h"
#include "cctest.h"

#define PG	BALLOON_PAGE_SIZE
#define N_PAGES 1024u

static uint8_t *mem;
static struct balloon_map map;
static struct same_pages *sp;

static uint8_t *page(unsigned i)
{
	return mem + (size_t) i * PG;
}

/* Content c: the same in every page filled with it; c >= 0x1000 are one-page contents. */
static void fill(unsigned i, unsigned c)
{
	uint32_t *w = (uint32_t *) (void *) page(i);

	for (unsigned k = 0; k < PG / 4; k++)
		w[k] = c * 0x10001u + k;
}

static bool holds(unsigned i, unsigned c)
{
	const uint32_t *w = (const uint32_t *) (const void *) page(i);

	for (unsigned k = 0; k < PG / 4; k++)
		if (w[k] != c * 0x10001u + k)
			return false;
	return true;
}

static int real_discard(void *hva, size_t len, void *opaque)
{
	(void) opaque;
	return madvise(hva, len, MADV_DONTNEED) < 0 ? -errno : 0;
}

static void sweep(struct zero_sweep_result *res)
{
	struct balloon_sink sink = {.discard = real_discard};
	struct zero_sweep_cursor cur = {0};

	ck_assert_int_eq(zero_pages_sweep(&map, &cur, 1u << 20, &sink, sp, res), 1);
	ck_assert(!res->page_lost);
}

/* The physical frame behind a page, read first (a new mapping has no entry until then; root
 * reads PFNs), 0 when absent. */
static uint64_t pfn(unsigned i)
{
	uint64_t e = 0;
	int fd;

	(void) *(volatile uint8_t *) page(i);
	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(fd, &e, sizeof(e), (off_t) ((uintptr_t) page(i) / PG * 8)),
			 sizeof(e));
	close(fd);
	return e >> 63 ? e & ((1ull << 55) - 1) : 0;
}

/* Mappings of the patterns' memfd inside mem. */
static unsigned memfd_mappings(void)
{
	return cctest_count_mappings(mem, page(N_PAGES), "cc-vmm-same-pages");
}

static void setup(void)
{
	mem = mmap(NULL, N_PAGES * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(mem, MAP_FAILED);
	ck_assert_int_eq(madvise(mem, N_PAGES * PG, MADV_NOHUGEPAGE), 0);
	balloon_map_init(&map);
	ck_assert_int_eq(balloon_map_add(&map, 0, N_PAGES * PG, mem), 0);
	ck_assert_int_eq(same_pages_new(mem, N_PAGES * PG, 1u << 20, false, &sp), 0);
}

static void teardown(void)
{
	same_pages_free(sp);
	ck_assert_int_eq(munmap(mem, N_PAGES * PG), 0);
}

/* Pages 0-39 content 1, 40-54 content 2 (one copy short), 60-99 each its own, 100-109
 * content 1 again among pages never swept before; the rest absent. */
static void fill_layout(void)
{
	for (unsigned i = 0; i < 40; i++)
		fill(i, 1);
	for (unsigned i = 40; i < 40 + SAME_PAGES_MIN_COPIES - 1; i++)
		fill(i, 2);
	for (unsigned i = 60; i < 100; i++)
		fill(i, 0x1000 + i);
}

START_TEST(test_merges_repeated_pages)
{
	struct zero_sweep_result res;
	struct same_pages_stats st;
	uint64_t frame;

	fill_layout();
	sweep(&res);
	/* Content 1 becomes a pattern on its 16th copy (page 15): 15-39 merged now. */
	ck_assert_uint_eq(res.merged_pages, 40 - (SAME_PAGES_MIN_COPIES - 1));
	ck_assert(!same_pages_is_merged(sp, page(14)));
	ck_assert(same_pages_is_merged(sp, page(15)));
	sweep(&res);
	ck_assert_uint_eq(res.merged_pages, SAME_PAGES_MIN_COPIES - 1); /* 0-14 */
	for (unsigned i = 100; i < 110; i++)
		fill(i, 1);
	sweep(&res);
	ck_assert_uint_eq(res.merged_pages, 10); /* a known pattern: merged at first sight */
	same_pages_get_stats(sp, &st);
	ck_assert_uint_eq(st.merged_pages, 50);
	ck_assert_uint_eq(st.patterns, 1);
	ck_assert_uint_eq(st.failed, 0);
	ck_assert_uint_eq(memfd_mappings(), 50);

	/* Every byte as it was; the merged pages are one frame. */
	frame = pfn(0);
	ck_assert_uint_ne(frame, 0);
	for (unsigned i = 0; i < 40; i++) {
		ck_assert_msg(holds(i, 1), "page %u changed", i);
		ck_assert_uint_eq(pfn(i), frame);
	}
	for (unsigned i = 100; i < 110; i++)
		ck_assert_uint_eq(pfn(i), frame);
	for (unsigned i = 40; i < 40 + SAME_PAGES_MIN_COPIES - 1; i++) {
		ck_assert_msg(holds(i, 2), "page %u changed", i);
		ck_assert(!same_pages_is_merged(sp, page(i)));
	}
	for (unsigned i = 60; i < 100; i++) {
		ck_assert_msg(holds(i, 0x1000 + i), "page %u changed", i);
		ck_assert(!same_pages_is_merged(sp, page(i)));
	}
}
END_TEST

START_TEST(test_write_takes_a_copy)
{
	struct zero_sweep_result res;
	uint64_t frame;

	fill_layout();
	sweep(&res);
	sweep(&res);
	frame = pfn(20);
	page(3)[100] ^= 0xff;
	ck_assert_uint_ne(pfn(3), frame);
	ck_assert(!holds(3, 1));
	page(3)[100] ^= 0xff;
	ck_assert(holds(3, 1));
	for (unsigned i = 0; i < 40; i++)
		if (i != 3) {
			ck_assert_msg(holds(i, 1), "page %u changed", i);
			ck_assert_uint_eq(pfn(i), frame);
		}
}
END_TEST

START_TEST(test_cleared_merged_page_given_back)
{
	struct zero_sweep_result res;
	uint64_t frame;

	fill_layout();
	sweep(&res);
	ck_assert(same_pages_is_merged(sp, page(30)));
	frame = pfn(32);
	memset(page(30), 0, PG);
	memset(page(31), 0, PG);
	sweep(&res);
	/* Anonymous memory again: a discard of the merged mapping would have brought back
	 * content 1 instead. */
	ck_assert_uint_eq(res.zero_pages, 2);
	ck_assert_uint_eq(res.given_back_pages, 2);
	for (unsigned k = 0; k < PG; k++) {
		ck_assert_uint_eq(page(30)[k], 0);
		ck_assert_uint_eq(page(31)[k], 0);
	}
	ck_assert(!same_pages_is_merged(sp, page(30)));
	ck_assert(!same_pages_is_merged(sp, page(31)));
	ck_assert_uint_eq(memfd_mappings(), 40 - 2);
	ck_assert(holds(32, 1));
	ck_assert_uint_eq(pfn(32), frame);
	/* and written again, an ordinary page */
	page(30)[5] = 9;
	sweep(&res);
	ck_assert_uint_eq(page(30)[5], 9);
	ck_assert(!same_pages_is_merged(sp, page(30)));
}
END_TEST

START_TEST(test_restored_copy_merged_again)
{
	struct zero_sweep_result res;
	struct same_pages_stats st;
	uint64_t frame;

	fill_layout();
	sweep(&res);
	sweep(&res);
	frame = pfn(20);
	page(7)[64] ^= 1; /* a private copy ... */
	page(8)[64] ^= 1;
	ck_assert_uint_ne(pfn(7), frame);
	sweep(&res);
	ck_assert_uint_eq(res.merged_pages, 0); /* ... with bytes of its own: left alone */
	ck_assert_uint_ne(pfn(7), frame);
	page(7)[64] ^= 1; /* the pattern's bytes again */
	sweep(&res);
	ck_assert_uint_eq(res.merged_pages, 1);
	ck_assert_uint_eq(pfn(7), frame);
	ck_assert(holds(7, 1));
	ck_assert_uint_ne(pfn(8), frame);
	ck_assert(!holds(8, 1));
	same_pages_get_stats(sp, &st);
	ck_assert_uint_eq(st.merged_pages, 40);
	ck_assert_uint_eq(memfd_mappings(), 40);
}
END_TEST

START_TEST(test_merged_pages_bounded)
{
	struct zero_sweep_result res;
	struct same_pages_stats st;

	same_pages_free(sp);
	ck_assert_int_eq(same_pages_new(mem, N_PAGES * PG, 20, false, &sp), 0);
	fill_layout();
	sweep(&res);
	sweep(&res);
	same_pages_get_stats(sp, &st);
	ck_assert_uint_eq(st.merged_pages, 20);
	ck_assert_uint_eq(memfd_mappings(), 20);
	for (unsigned i = 0; i < 40; i++)
		ck_assert(holds(i, 1));
}
END_TEST

START_TEST(test_patterns_bounded)
{
	struct zero_sweep_result res;
	struct same_pages_stats st;
	unsigned n = SAME_PAGES_MAX_PATTERNS + 2;

	/* n contents of 16 copies each, laid out one after the other. */
	ck_assert_uint_le(n * SAME_PAGES_MIN_COPIES, N_PAGES);
	for (unsigned c = 0; c < n; c++)
		for (unsigned j = 0; j < SAME_PAGES_MIN_COPIES; j++)
			fill(c * SAME_PAGES_MIN_COPIES + j, 10 + c);
	sweep(&res);
	same_pages_get_stats(sp, &st);
	ck_assert_uint_eq(st.patterns, SAME_PAGES_MAX_PATTERNS);
	/* The 16th copy of each of the first 32 contents. */
	ck_assert_uint_eq(st.merged_pages, SAME_PAGES_MAX_PATTERNS);
	for (unsigned c = 0; c < n; c++)
		for (unsigned j = 0; j < SAME_PAGES_MIN_COPIES; j++)
			ck_assert(holds(c * SAME_PAGES_MIN_COPIES + j, 10 + c));
}
END_TEST

START_TEST(test_bad_arguments)
{
	struct same_pages *other = NULL;

	ck_assert_int_eq(same_pages_new(mem + 1, PG, 1, false, &other), -EINVAL);
	ck_assert_int_eq(same_pages_new(mem, PG + 1, 1, false, &other), -EINVAL);
	ck_assert_int_eq(same_pages_new(mem, 0, 1, false, &other), -EINVAL);
	ck_assert_int_eq(same_pages_new(NULL, PG, 1, false, &other), -EINVAL);
	ck_assert_ptr_null(other);
	fill(0, 1);
	ck_assert_int_eq(same_pages_visit(sp, page(0) + 8), -EINVAL);
	ck_assert_int_eq(same_pages_visit(sp, page(N_PAGES)), -EINVAL);
	ck_assert_int_eq(same_pages_visit(sp, mem - PG), -EINVAL);
	ck_assert_int_eq(same_pages_revisit(sp, page(0)), -EINVAL); /* not merged */
	ck_assert(!same_pages_is_merged(sp, page(N_PAGES)));
	ck_assert(!same_pages_is_merged(NULL, page(0)));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("same-pages");
	TCase *tc = tcase_create("merge");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_merges_repeated_pages);
	tcase_add_test(tc, test_write_takes_a_copy);
	tcase_add_test(tc, test_cleared_merged_page_given_back);
	tcase_add_test(tc, test_restored_copy_merged_again);
	tcase_add_test(tc, test_merged_pages_bounded);
	tcase_add_test(tc, test_patterns_bounded);
	tcase_add_test(tc, test_bad_arguments);
	suite_add_tcase(s, tc);
	return cctest_run_suite(s);
}
