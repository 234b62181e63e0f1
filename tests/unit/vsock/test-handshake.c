/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cctest.h"
#include "vsock/handshake.h"

START_TEST(test_hs_parse_accepts_ports)
{
	uint32_t port = 0;

	ASSERT_OK(vsock_hs_parse("CONNECT 52\n", 11, &port));
	ck_assert_uint_eq(port, 52);
	ASSERT_OK(vsock_hs_parse("CONNECT 0\n", 10, &port));
	ck_assert_uint_eq(port, 0);
	ASSERT_OK(vsock_hs_parse("CONNECT 4294967295\n", 19, &port));
	ck_assert_uint_eq(port, UINT32_MAX);
	ASSERT_OK(vsock_hs_parse("CONNECT 0000000001\n", 19, &port));
	ck_assert_uint_eq(port, 1);
}
END_TEST

START_TEST(test_hs_parse_rejects_junk)
{
	static const char *const bad[] = {
		"CONNECT \n",
		"CONNECT 5",
		"CONNECT 5 \n",
		"CONNECT -5\n",
		"CONNECT +5\n",
		"CONNECT 0x10\n",
		"connect 5\n",
		"CONNECT\t5\n",
		"CONNECT 5\r\n",
		"\n",
		"",
	};
	uint32_t port = 7;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ASSERT_ERRNO(vsock_hs_parse(bad[i], strlen(bad[i]), &port), EINVAL);
	ASSERT_ERRNO(vsock_hs_parse("CONNECT 4294967296\n", 19, &port), ERANGE);
	ASSERT_ERRNO(vsock_hs_parse("CONNECT 99999999999999999999\n", 29, &port), ERANGE);
	ck_assert_uint_eq(port, 7);
}
END_TEST

static int pair(int sp[2])
{
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
	ck_assert_int_eq(fcntl(sp[0], F_SETFL, O_NONBLOCK), 0);
	return sp[0];
}

START_TEST(test_hs_read_keeps_bytes_after_newline)
{
	int sp[2];
	struct vsock_hs hs = {.fd = pair(sp)};
	uint32_t port = 0;
	char buf[16];

	ck_assert_int_eq(vsock_hs_read(&hs, &port), 0); /* nothing yet */
	ck_assert_int_eq(write(sp[1], "CONN", 4), 4);
	ck_assert_int_eq(vsock_hs_read(&hs, &port), 0);
	ck_assert_int_eq(write(sp[1], "ECT 80\npayload", 14), 14);
	ck_assert_int_eq(vsock_hs_read(&hs, &port), 1);
	ck_assert_uint_eq(port, 80);
	ck_assert_int_eq(read(sp[0], buf, sizeof(buf)), 7);
	ck_assert_mem_eq(buf, "payload", 7);
	close(sp[0]);
	close(sp[1]);
}
END_TEST

START_TEST(test_hs_read_fails_cleanly)
{
	int sp[2];
	struct vsock_hs hs = {.fd = pair(sp)};
	char longline[VSOCK_HS_LINE_MAX + 8];
	uint32_t port;

	memset(longline, '1', sizeof(longline));
	ck_assert_int_eq(write(sp[1], longline, sizeof(longline)), (ssize_t) sizeof(longline));
	ASSERT_ERRNO(vsock_hs_read(&hs, &port), E2BIG);
	ck_assert_uint_eq(hs.len, VSOCK_HS_LINE_MAX);
	close(sp[0]);
	close(sp[1]);

	hs = (struct vsock_hs){.fd = pair(sp)};
	ck_assert_int_eq(write(sp[1], "CONNECT x\n", 10), 10);
	ASSERT_ERRNO(vsock_hs_read(&hs, &port), EINVAL);
	close(sp[1]);
	hs.len = 0;
	ASSERT_ERRNO(vsock_hs_read(&hs, &port), ECONNRESET); /* EOF */
	close(sp[0]);

	hs = (struct vsock_hs){.fd = -1};
	ASSERT_ERRNO(vsock_hs_read(&hs, &port), EBADF);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vsock-handshake");
	TCase *tc = tcase_create("handshake");

	tcase_add_test(tc, test_hs_parse_accepts_ports);
	tcase_add_test(tc, test_hs_parse_rejects_junk);
	tcase_add_test(tc, test_hs_read_keeps_bytes_after_newline);
	tcase_add_test(tc, test_hs_read_fails_cleanly);
	suite_add_tcase(s, tc);
	return cctest_run_suite(s);
}
