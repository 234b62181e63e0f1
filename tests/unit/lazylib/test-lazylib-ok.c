/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A lazy stand-in for libcrypto (guest-image/lazylib/): the real library is not mapped until a
 * function is first called, and the first call of any function, whatever its arguments, gets
 * there intact.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "lazy-openssl.h"
#include "lazy-test.h"

#define THREADS 8

/* RFC 6070's first PBKDF2-HMAC-SHA1 vector. */
static void check_pbkdf2(void)
{
	static const unsigned char want[20] = {0x0c, 0x60, 0xc8, 0x0f, 0x96, 0x1f, 0x0e,
					       0x71, 0xf3, 0xa9, 0xb5, 0x24, 0xaf, 0x60,
					       0x12, 0x06, 0x2f, 0xe0, 0x37, 0xa6};
	unsigned char out[20] = {0};

	ck_assert_int_eq(PKCS5_PBKDF2_HMAC_SHA1("password", 8, (const unsigned char *) "salt", 4, 1,
						sizeof(out), out),
			 1);
	ck_assert_mem_eq(out, want, sizeof(want));
}

START_TEST(test_lazylib_loads_on_first_call)
{
	ck_assert_int_eq(lazy_real_mapped(), 0);
	ck_assert_uint_ge(OpenSSL_version_num(), 0x30000000UL);
	ck_assert_int_eq(lazy_real_mapped(), 1);
	ck_assert_uint_ge(OpenSSL_version_num(), 0x30000000UL);
}
END_TEST

/* The first call is variadic with doubles: %al and the vector registers survive the load. */
START_TEST(test_lazylib_first_call_variadic)
{
	char buf[64];

	ck_assert_int_eq(lazy_real_mapped(), 0);
	ck_assert_int_eq(
		BIO_snprintf(buf, sizeof(buf), "%d %s %.2f %.1f %ld", 42, "x", 1.25, -2.5, -7L),
		17);
	ck_assert_str_eq(buf, "42 x 1.25 -2.5 -7");
}
END_TEST

/* The first call has an argument on the stack, and then every register argument too. */
START_TEST(test_lazylib_first_call_stack_argument)
{
	ck_assert_int_eq(lazy_real_mapped(), 0);
	check_pbkdf2();
	check_pbkdf2();
}
END_TEST

static pthread_barrier_t start;

static void *first_caller(void *arg)
{
	char buf[32], want[32];
	long id = (long) (intptr_t) arg;

	snprintf(want, sizeof(want), "%ld %.1f", id, 0.5);
	pthread_barrier_wait(&start);
	if (id % 2) {
		check_pbkdf2();
	} else {
		ck_assert_int_eq(BIO_snprintf(buf, sizeof(buf), "%ld %.1f", id, 0.5),
				 (int) strlen(want));
		ck_assert_str_eq(buf, want);
	}
	return NULL;
}

/* Threads that make their first calls at once: one loads, the others wait for it. */
START_TEST(test_lazylib_concurrent_first_calls)
{
	pthread_t t[THREADS];

	ck_assert_int_eq(pthread_barrier_init(&start, NULL, THREADS), 0);
	for (long i = 0; i < THREADS; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, first_caller, (void *) (intptr_t) i),
				 0);
	for (int i = 0; i < THREADS; i++)
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
	pthread_barrier_destroy(&start);
	ck_assert_int_eq(lazy_real_mapped(), 1);
}
END_TEST

static Suite *lazylib_suite(void)
{
	Suite *s = suite_create("lazylib");
	TCase *tc = tcase_create("ok");

	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_lazylib_loads_on_first_call);
	tcase_add_test(tc, test_lazylib_first_call_variadic);
	tcase_add_test(tc, test_lazylib_first_call_stack_argument);
	tcase_add_test(tc, test_lazylib_concurrent_first_calls);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(lazylib_suite());
}
