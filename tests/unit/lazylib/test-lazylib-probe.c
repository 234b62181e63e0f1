/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A lazy stand-in for libccprobe (probe.c), whose functions report what they
 * received: every first call, which goes through the stand-in's slow path (miss.S), arrives
 * with the caller's %al, vector registers, stack arguments, stack alignment and errno, and
 * each symbol version reaches its own function.
 */
#include <errno.h>

#include "lazy-test.h"
#include "probe.h"

int probe_version_old(void);
__asm__(".symver probe_version_old, probe_version@PROBE_1");

START_TEST(test_lazylib_probe_al)
{
	ck_assert_int_eq(lazy_real_mapped(), 0);
	ck_assert_int_eq(probe_al(0, 1.0, 2.0, 3.0), 3);
	ck_assert_int_eq(lazy_real_mapped(), 1);
	ck_assert_int_eq(probe_al(0, 1.0, 2.0, 3.0, 4.0, 5.0), 5);
}
END_TEST

START_TEST(test_lazylib_probe_vector_registers)
{
	ck_assert_int_eq(lazy_real_mapped(), 0);
	ck_assert_double_eq(probe_xmm(1, 2, 3, 4, 5, 6, 7, 8), 204);
}
END_TEST

START_TEST(test_lazylib_probe_stack_arguments)
{
	ck_assert_int_eq(lazy_real_mapped(), 0);
	ck_assert_int_eq(probe_stack(1, 2, 3, 4, 5, 6, 7, 8), 204);
}
END_TEST

START_TEST(test_lazylib_probe_variadic)
{
	ck_assert_int_eq(lazy_real_mapped(), 0);
	ck_assert_double_eq(probe_vsum(3, 0.5, 1.5, 2.0), 4.0);
}
END_TEST

START_TEST(test_lazylib_probe_stack_alignment)
{
	ck_assert_int_eq(lazy_real_mapped(), 0);
	ck_assert_int_eq(probe_rsp_mod16(), 8);
}
END_TEST

/* Loading the real library sets errno (its constructor does); the callee sees the caller's. */
START_TEST(test_lazylib_probe_errno)
{
	ck_assert_int_eq(lazy_real_mapped(), 0);
	errno = 1234;
	ck_assert_int_eq(probe_errno(), 1234);
}
END_TEST

START_TEST(test_lazylib_probe_old_version_first)
{
	ck_assert_int_eq(lazy_real_mapped(), 0);
	ck_assert_int_eq(probe_version_old(), 1);
	ck_assert_int_eq(probe_version(), 2);
}
END_TEST

START_TEST(test_lazylib_probe_default_version_first)
{
	ck_assert_int_eq(lazy_real_mapped(), 0);
	ck_assert_int_eq(probe_version(), 2);
	ck_assert_int_eq(probe_version_old(), 1);
}
END_TEST

static Suite *lazylib_probe_suite(void)
{
	Suite *s = suite_create("lazylib-probe");
	TCase *tc = tcase_create("probe");

	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_lazylib_probe_al);
	tcase_add_test(tc, test_lazylib_probe_vector_registers);
	tcase_add_test(tc, test_lazylib_probe_stack_arguments);
	tcase_add_test(tc, test_lazylib_probe_variadic);
	tcase_add_test(tc, test_lazylib_probe_stack_alignment);
	tcase_add_test(tc, test_lazylib_probe_errno);
	tcase_add_test(tc, test_lazylib_probe_old_version_first);
	tcase_add_test(tc, test_lazylib_probe_default_version_first);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(lazylib_probe_suite());
}
