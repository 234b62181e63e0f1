/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A lazy stand-in for liblzma (guest-image/lazylib/), whose functions have older versions
 * beside their default ones: a program bound to an older version (as one linked against an
 * older liblzma is) reaches the real library's function of that version.
 */
#include <sched.h>
#include <stdint.h>

#include "lazy-test.h"

/* liblzma's, declared here (no headers needed): its default version, XZ_5.2, and XZ_5.2.2. */
uint32_t lzma_cputhreads(void);
uint32_t lzma_cputhreads_5_2_2(void);
__asm__(".symver lzma_cputhreads_5_2_2, lzma_cputhreads@XZ_5.2.2");
uint32_t lzma_version_number(void);

static uint32_t cpus_allowed(void)
{
	cpu_set_t set;

	ck_assert_int_eq(sched_getaffinity(0, sizeof(set), &set), 0);
	return (uint32_t) CPU_COUNT(&set);
}

START_TEST(test_lazylib_older_version_first)
{
	ck_assert_int_eq(lazy_real_mapped(), 0);
	ck_assert_uint_eq(lzma_cputhreads_5_2_2(), cpus_allowed());
	ck_assert_int_eq(lazy_real_mapped(), 1);
	ck_assert_uint_eq(lzma_cputhreads(), cpus_allowed());
	ck_assert_uint_ge(lzma_version_number(), 50020000U);
}
END_TEST

START_TEST(test_lazylib_default_version_first)
{
	ck_assert_int_eq(lazy_real_mapped(), 0);
	ck_assert_uint_eq(lzma_cputhreads(), cpus_allowed());
	ck_assert_uint_eq(lzma_cputhreads_5_2_2(), cpus_allowed());
}
END_TEST

static Suite *lazylib_versions_suite(void)
{
	Suite *s = suite_create("lazylib-versions");
	TCase *tc = tcase_create("versions");

	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_lazylib_older_version_first);
	tcase_add_test(tc, test_lazylib_default_version_first);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(lazylib_versions_suite());
}
