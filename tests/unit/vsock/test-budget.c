/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The vsock muxer's per-VM budget (docs/vsock.md "Budget"), attacked as a hostile guest would:
 * connection floods, and guest -> host data into host sockets that never read, on many
 * connections at once. Checks the guest's answer (RST), that the muxer's accounting (and the
 * process's descriptors and heap) stays within the budget, and that closing gives it back.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "cc/macro.h"
#include "cctest.h"
#include "vsock/conn.h"
#include "vsock/muxer.h"

#define CID	  42
#define HOST_PORT 1234
#define MAX_CONNS 64

static char *dir, *uds;
static struct vsock_mux *mux;
static uint8_t chunk[VSOCK_PKT_MAX_PAYLOAD];

static void setup(void)
{
	dir = cctest_mkdtemp();
	ck_assert_int_ge(asprintf(&uds, "%s/v.sock", dir), 0);
	ASSERT_OK(vsock_mux_new(CID, uds, &mux));
	memset(chunk, 'g', sizeof(chunk));
}

static void teardown(void)
{
	mux = vsock_mux_free(mux);
	cctest_rm_rf(dir);
	free(dir);
	free(uds);
}

static struct vsock_mux_usage usage(void)
{
	struct vsock_mux_usage u;

	vsock_mux_get_usage(mux, &u);
	return u;
}

static void check_within(void)
{
	struct vsock_mux_limits lim;
	struct vsock_mux_usage u = usage();

	vsock_mux_get_limits(mux, &lim);
	ck_assert_uint_le(u.conns, lim.max_conns);
	ck_assert_uint_le(u.buf_bytes, lim.max_buf_bytes);
	ck_assert_uint_eq(u.buf_bytes % VSOCK_CONN_BUF_SIZE, 0);
}

static int listen_port(uint32_t port)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(fd, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s_%u", uds, port);
	(void) unlink(sa.sun_path); /* left by an earlier listener of this test */
	ck_assert_int_eq(bind(fd, (struct sockaddr *) &sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(fd, 512), 0);
	return fd;
}

static void guest_send(uint16_t op, uint32_t src_port, const void *data, uint32_t len,
		       uint32_t flags)
{
	struct vsock_hdr h = {
		.src_cid = CID,
		.dst_cid = VSOCK_HOST_CID,
		.src_port = src_port,
		.dst_port = HOST_PORT,
		.len = len,
		.type = VSOCK_TYPE_STREAM,
		.op = op,
		.flags = flags,
		.buf_alloc = 256 * 1024,
	};
	uint8_t raw[VSOCK_HDR_SIZE];
	struct iovec iov[2] = {{raw, sizeof(raw)}, {(void *) data, len}};

	vsock_hdr_encode(&h, raw);
	ck_assert(vsock_mux_can_send(mux));
	vsock_mux_send(mux, &h, iov, 2, VSOCK_HDR_SIZE);
}

/* The guest takes every packet owed to it; returns how many were RSTs to guest port rst_port. */
static unsigned guest_drain(uint32_t rst_port)
{
	uint8_t buf[VSOCK_HDR_SIZE + 256];
	unsigned rsts = 0;

	for (;;) {
		struct iovec iov = {buf, sizeof(buf)};
		struct vsock_hdr h;
		uint32_t len = 0;
		int r = vsock_mux_fill_rx(mux, &iov, 1, &len);

		ck_assert_int_ge(r, 0);
		if (r == 0)
			return rsts;
		vsock_hdr_decode(buf, &h);
		if (h.op == VSOCK_OP_RST && h.dst_port == rst_port)
			rsts++;
	}
}

/* Guest port gport connects to the host listener; returns the accepted host fd. */
static int guest_connect(int lfd, uint32_t gport)
{
	int fd;

	guest_send(VSOCK_OP_REQUEST, gport, NULL, 0, 0);
	ck_assert_uint_eq(guest_drain(gport), 0);
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	ck_assert_int_ge(fd, 0);
	return fd;
}

/*
 * The guest writes to gport's connection, honouring its credit, until the host socket stops
 * taking it and the rest waits in a ring. Returns false if the connection was reset instead.
 */
static bool guest_fill(uint32_t gport)
{
	size_t before = usage().buf_bytes;
	uint64_t refused = usage().buf_refused;

	/* The socket took everything so far (the buffered bytes did not grow): full credit. */
	for (int i = 0; i < 256 && usage().buf_bytes == before; i++) {
		guest_send(VSOCK_OP_RW, gport, chunk, sizeof(chunk), 0);
		check_within();
		if (usage().buf_refused != refused)
			return false;
	}
	ck_assert_uint_eq(usage().buf_bytes, before + VSOCK_CONN_BUF_SIZE);
	return true;
}

/* Read and drop everything the host socket holds. */
static void host_drain(int fd)
{
	char buf[65536];

	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

START_TEST(test_budget_defaults)
{
	struct vsock_mux_limits lim;
	struct vsock_mux_usage u = usage();

	vsock_mux_get_limits(mux, &lim);
	ck_assert_uint_eq(lim.max_conns, VSOCK_MUX_MAX_CONNS);
	ck_assert_uint_eq(lim.max_buf_bytes, VSOCK_MUX_BUF_BYTES_DEFAULT);
	ck_assert_uint_eq(u.conns, 0);
	ck_assert_uint_eq(u.handshakes, 0);
	ck_assert_uint_eq(u.buf_bytes, 0);
	vsock_mux_set_limits(mux, &(struct vsock_mux_limits){.max_conns = 3});
	vsock_mux_get_limits(mux, &lim);
	ck_assert_uint_eq(lim.max_conns, 3);
	ck_assert_uint_eq(lim.max_buf_bytes, VSOCK_MUX_BUF_BYTES_DEFAULT);
}
END_TEST

START_TEST(test_connection_flood)
{
	static int afd[MAX_CONNS];
	int lfd = listen_port(HOST_PORT);
	unsigned fds_base = cctest_count_fds();

	vsock_mux_set_limits(mux, &(struct vsock_mux_limits){.max_conns = 16});
	for (int round = 0; round < 2; round++) {
		for (uint32_t i = 0; i < 16; i++)
			afd[i] = guest_connect(lfd, 10000 + i);
		/* Each connection holds one host socket (and the test its peer). */
		ck_assert_uint_eq(cctest_count_fds(), fds_base + 2 * 16);
		/* The 17th and every one after it is refused, and costs nothing. */
		for (uint32_t i = 16; i < MAX_CONNS; i++) {
			guest_send(VSOCK_OP_REQUEST, 10000 + i, NULL, 0, 0);
			ck_assert_uint_eq(guest_drain(10000 + i), 1);
			check_within();
		}
		ck_assert_uint_eq(usage().conns, 16);
		ck_assert_uint_eq(cctest_count_fds(), fds_base + 2 * 16);
		/* The guest resets them: everything comes back, the host sees EOF. */
		for (uint32_t i = 0; i < 16; i++) {
			char c;

			guest_send(VSOCK_OP_RST, 10000 + i, NULL, 0, 0);
			ck_assert_int_eq(read(afd[i], &c, 1), 0);
			close(afd[i]);
		}
		ck_assert_uint_eq(usage().conns, 0);
		ck_assert_uint_eq(cctest_count_fds(), fds_base);
	}
	close(lfd);
}
END_TEST

START_TEST(test_buffer_flood)
{
	static int afd[8];
	int lfd = listen_port(HOST_PORT);
	size_t max = 4 * VSOCK_CONN_BUF_SIZE;

	vsock_mux_set_limits(mux, &(struct vsock_mux_limits){.max_buf_bytes = max});
	for (uint32_t i = 0; i < 8; i++)
		afd[i] = guest_connect(lfd, 10000 + i);
	/* Host applications that never read: four connections get a ring each... */
	for (uint32_t i = 0; i < 4; i++)
		ck_assert(guest_fill(10000 + i));
	(void) guest_drain(0);
	ck_assert_uint_eq(usage().buf_bytes, max);
	/* ... and the fifth is reset rather than given one. */
	ck_assert(!guest_fill(10004));
	ck_assert_uint_eq(guest_drain(10004), 1);
	ck_assert_uint_eq(usage().buf_refused, 1);
	ck_assert_uint_eq(usage().buf_bytes, max);
	ck_assert_uint_eq(usage().conns, 7);
	{
		char c[65536];
		ssize_t k;

		/* Its host side reads what was forwarded, then EOF. */
		while ((k = read(afd[4], c, sizeof(c))) > 0)
			;
		ck_assert_int_eq(k, 0);
	}
	/* One host application reads: its ring drains and goes back to the budget. */
	for (int tries = 0; tries < 100 && usage().buf_bytes == max; tries++) {
		struct pollfd p = {.fd = vsock_mux_fd(mux), .events = POLLIN};

		host_drain(afd[0]);
		(void) poll(&p, 1, 50);
		vsock_mux_process(mux);
	}
	ck_assert_uint_eq(usage().buf_bytes, max - VSOCK_CONN_BUF_SIZE);
	/* Another connection can buffer now. */
	ck_assert(guest_fill(10005));
	ck_assert_uint_eq(usage().buf_bytes, max);
	/* A connection reset by the guest gives its ring back at once. */
	guest_send(VSOCK_OP_RST, 10001, NULL, 0, 0);
	ck_assert_uint_eq(usage().buf_bytes, max - VSOCK_CONN_BUF_SIZE);
	/* And a device reset all of them. */
	vsock_mux_reset(mux);
	ck_assert_uint_eq(usage().buf_bytes, 0);
	ck_assert_uint_eq(usage().conns, 0);
	for (int i = 0; i < 8; i++)
		close(afd[i]);
	close(lfd);
}
END_TEST

/*
 * n connections whose host applications never read, each filled by the guest: the heap
 * growth is what the VMM pays. With the default budget it stays within VSOCK_MUX_BUF_BYTES_
 * DEFAULT (plus the connections' own structs); with the budget lifted, a ring per connection.
 */
static size_t flood_heap_growth(unsigned n)
{
	static int afd[VSOCK_MUX_MAX_CONNS];
	int lfd = listen_port(HOST_PORT);
	size_t before, after;

	before = cctest_heap_bytes();
	for (uint32_t i = 0; i < n; i++) {
		afd[i] = guest_connect(lfd, 10000 + i);
		(void) guest_fill(10000 + i);
		(void) guest_drain(0);
		check_within();
	}
	after = cctest_heap_bytes();
	vsock_mux_reset(mux);
	ck_assert_uint_eq(usage().buf_bytes, 0);
	for (uint32_t i = 0; i < n; i++)
		close(afd[i]);
	close(lfd);
	return after > before ? after - before : 0;
}

START_TEST(test_default_budget_bounds_the_flood)
{
	size_t bounded, unbounded;

	bounded = flood_heap_growth(VSOCK_MUX_MAX_CONNS);
	fprintf(stderr,
		"vsock flood, %u connections, default budget: heap +%zu KiB, %" PRIu64 " reset\n",
		VSOCK_MUX_MAX_CONNS, bounded / 1024, usage().buf_refused);

	ck_assert_uint_le(bounded, VSOCK_MUX_BUF_BYTES_DEFAULT + (size_t) VSOCK_MUX_MAX_CONNS *
									 sizeof(struct vsock_conn) *
									 2);
	ck_assert_uint_eq(usage().buf_refused,
			  VSOCK_MUX_MAX_CONNS - VSOCK_MUX_BUF_BYTES_DEFAULT / VSOCK_CONN_BUF_SIZE);

	/* The measure sees the attack when nothing stops it: a ring per connection. */
	vsock_mux_set_limits(mux, &(struct vsock_mux_limits){.max_buf_bytes = SIZE_MAX});
	unbounded = flood_heap_growth(64);
	fprintf(stderr, "vsock flood, 64 connections, no budget: heap +%zu KiB\n",
		unbounded / 1024);
	ck_assert_uint_ge(unbounded, (size_t) 64 * VSOCK_CONN_BUF_SIZE);
}
END_TEST

static Suite *vsock_budget_suite(void)
{
	Suite *s = suite_create("vsock-budget");
	TCase *tc = tcase_create("budget");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_budget_defaults);
	tcase_add_test(tc, test_connection_flood);
	tcase_add_test(tc, test_buffer_flood);
	tcase_add_test(tc, test_default_budget_bounds_the_flood);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(vsock_budget_suite());
}
