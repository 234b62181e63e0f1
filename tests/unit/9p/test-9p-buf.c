/* SPDX-License-Identifier: Apache-2.0 */
/* 9p bounce buffers: the high-water mark and giving pages back. */
#include <check.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "9p/9p-buf.h"
#include "cctest.h"

#define PG ((size_t) sysconf(_SC_PAGESIZE))

/* Resident pages of [off, off + len) of the buffer. */
static size_t resident(const struct p9_buf *b, size_t off, size_t len)
{
	unsigned char vec[512];
	size_t n = len / PG, k = 0;

	ck_assert_uint_le(n, sizeof(vec));
	ck_assert_int_eq(mincore(b->p + off, len, vec), 0);
	for (size_t i = 0; i < n; i++)
		k += vec[i] & 1;
	return k;
}

/* The VmFlags line of the mapping at p in /proc/self/smaps. */
static void vmflags_of(const void *p, char *ret, size_t n)
{
	char line[512];
	bool in = false;
	FILE *f = fopen("/proc/self/smaps", "re");

	ck_assert_ptr_nonnull(f);
	ret[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 &&
		    strchr(line, '-') < strchr(line, ' '))
			in = (uintptr_t) p >= lo && (uintptr_t) p < hi;
		else if (in && strncmp(line, "VmFlags:", 8) == 0) {
			snprintf(ret, n, "%s", line);
			break;
		}
	}
	fclose(f);
}

START_TEST(test_trim_releases_above_keep)
{
	struct p9_buf b;
	const size_t size = 128 * PG, keep = 4 * PG;
	char flags[512];

	ASSERT_OK(p9_buf_init(&b, size - 100)); /* rounded up to pages */
	ck_assert_uint_eq(b.size, size);
	ck_assert_uint_eq(b.hi, 0);
	ck_assert_uint_eq(resident(&b, 0, size), 0);
	/* no transparent huge pages: a trim must not be undone by khugepaged */
	vmflags_of(b.p, flags, sizeof(flags));
	ck_assert_msg(strstr(flags, " nh"), "no 'nh' in %s", flags);
	memset(b.p, 0xa5, size);
	p9_buf_used(&b, 100 * PG + 5);
	p9_buf_used(&b, 10); /* a smaller message does not lower the mark */
	ck_assert_uint_eq(b.hi, 100 * PG + 5);
	ck_assert_uint_eq(p9_buf_trim(&b, keep), 96 * PG + 5);
	ck_assert_uint_eq(b.hi, keep);
	/* The working set keeps its bytes; the trimmed pages are gone and read as zeros. */
	ck_assert_uint_eq(resident(&b, 0, keep), 4);
	ck_assert_uint_eq(resident(&b, keep, 97 * PG), 0);
	ck_assert_uint_eq(b.p[keep - 1], 0xa5);
	ck_assert_uint_eq(b.p[keep], 0);
	ck_assert_uint_eq(b.p[100 * PG], 0);
	/* Pages above the mark were never reported used: left alone. */
	ck_assert_uint_eq(b.p[size - 1], 0xa5);
	/* Nothing above keep: nothing to do. */
	ck_assert_uint_eq(p9_buf_trim(&b, keep), 0);
	p9_buf_free(&b);
	ck_assert_ptr_null(b.p);
	p9_buf_free(&b); /* idempotent */
}
END_TEST

START_TEST(test_marks_and_keep_are_clamped)
{
	struct p9_buf b;

	ASSERT_OK(p9_buf_init(&b, 8 * PG));
	p9_buf_used(&b, 100 * PG); /* never above the buffer */
	ck_assert_uint_eq(b.hi, 8 * PG);
	/* keep rounds up to a page; a keep past the end releases nothing */
	ck_assert_uint_eq(p9_buf_trim(&b, 20 * PG), 0);
	ck_assert_uint_eq(p9_buf_trim(&b, PG + 1), 6 * PG);
	ck_assert_uint_eq(b.hi, 2 * PG);
	ck_assert_uint_eq(p9_buf_trim(&b, 0), 2 * PG);
	ck_assert_uint_eq(b.hi, 0);
	p9_buf_free(&b);
	ASSERT_ERRNO(p9_buf_init(&b, 0), EINVAL);
}
END_TEST

static Suite *p9_buf_suite(void)
{
	Suite *s = suite_create("9p-buf");
	TCase *tc = tcase_create("buf");

	tcase_add_test(tc, test_trim_releases_above_keep);
	tcase_add_test(tc, test_marks_and_keep_are_clamped);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(p9_buf_suite());
}
