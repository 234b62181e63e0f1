/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The connection state machine against socketpairs: one end is the connection's host fd,
 * the test plays the host application on the other end and the guest through the packets.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "cctest.h"
#include "vsock/conn.h"

#define CID   42
#define GPORT 5000 /* guest side */
#define HPORT 1234 /* host side */

static struct vsock_conn *conn;
static int host_fd = -1;

static int make_pair(void)
{
	int sp[2];
	struct timeval tv = {.tv_sec = 5};

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
	ck_assert_int_eq(fcntl(sp[0], F_SETFL, O_NONBLOCK), 0);
	ck_assert_int_eq(setsockopt(sp[1], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), 0);
	host_fd = sp[1];
	return sp[0];
}

static struct vsock_hdr ghdr(uint16_t op, uint32_t len, uint32_t buf_alloc, uint32_t fwd_cnt)
{
	return (struct vsock_hdr){
		.src_cid = CID,
		.dst_cid = VSOCK_HOST_CID,
		.src_port = GPORT,
		.dst_port = HPORT,
		.len = len,
		.type = VSOCK_TYPE_STREAM,
		.op = op,
		.buf_alloc = buf_alloc,
		.fwd_cnt = fwd_cnt,
	};
}

/* The guest sends a packet with a payload. */
static void guest_send(uint16_t op, const void *data, uint32_t len, uint32_t buf_alloc,
		       uint32_t fwd_cnt)
{
	struct vsock_hdr h = ghdr(op, len, buf_alloc, fwd_cnt);
	struct iovec iov = {(void *) data, len};

	vsock_conn_recv(conn, &h, &iov, 1, 0, 0);
}

static void guest_ctl(uint16_t op, uint32_t flags)
{
	struct vsock_hdr h = ghdr(op, 0, 4096, 0);

	h.flags = flags;
	vsock_conn_recv(conn, &h, NULL, 0, 0, 0);
}

/* The guest receives the next packet; returns its op or -1 if none. */
static int guest_take(struct vsock_hdr *h, void *buf, size_t room)
{
	struct iovec iov = {buf, room};

	if (vsock_conn_fill_rx(conn, h, &iov, 1, 0, room, 0) == 0)
		return -1;
	ck_assert_uint_eq(h->src_cid, VSOCK_HOST_CID);
	ck_assert_uint_eq(h->dst_cid, CID);
	ck_assert_uint_eq(h->type, VSOCK_TYPE_STREAM);
	ck_assert_uint_eq(h->buf_alloc, VSOCK_CONN_BUF_SIZE);
	return h->op;
}

static void host_read_exact(void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t k = read(host_fd, (char *) buf + done, len - done);

		ck_assert_int_gt(k, 0);
		done += (size_t) k;
	}
}

/* A guest-initiated connection, established (RESPONSE taken), guest buf_alloc 4096. */
static void setup_peer(void)
{
	struct vsock_hdr req = ghdr(VSOCK_OP_REQUEST, 0, 4096, 0), h;

	ASSERT_OK(vsock_conn_new_peer(make_pair(), CID, &req, &conn));
	ck_assert_int_eq(conn->state, VSOCK_CONN_PEER_INIT);
	ck_assert(vsock_conn_has_rx(conn));
	ck_assert_int_eq(guest_take(&h, NULL, 0), VSOCK_OP_RESPONSE);
	ck_assert_uint_eq(h.src_port, HPORT);
	ck_assert_uint_eq(h.dst_port, GPORT);
	ck_assert_int_eq(conn->state, VSOCK_CONN_ESTABLISHED);
	ck_assert(!vsock_conn_has_rx(conn));
	ck_assert_uint_eq(vsock_conn_wanted_events(conn), EPOLLIN);
}

static void teardown(void)
{
	conn = vsock_conn_free(conn);
	if (host_fd >= 0)
		close(host_fd);
	host_fd = -1;
}

START_TEST(test_conn_moves_data_both_ways)
{
	struct vsock_hdr h;
	char buf[64];

	guest_send(VSOCK_OP_RW, "hello", 5, 4096, 0);
	host_read_exact(buf, 5);
	ck_assert_mem_eq(buf, "hello", 5);
	ck_assert_uint_eq(conn->fwd_cnt, 5);

	ck_assert_int_eq(write(host_fd, "world!", 6), 6);
	vsock_conn_notify(conn, EPOLLIN);
	ck_assert(vsock_conn_has_rx(conn));
	ck_assert_uint_eq(vsock_conn_wanted_events(conn), 0); /* no EPOLLIN until we read */
	ck_assert_int_eq(guest_take(&h, buf, sizeof(buf)), VSOCK_OP_RW);
	ck_assert_uint_eq(h.len, 6);
	ck_assert_uint_eq(h.fwd_cnt, 5);
	ck_assert_mem_eq(buf, "world!", 6);
	ck_assert_uint_eq(conn->rx_cnt, 6);
	/* Short read: drained, so we wait for EPOLLIN again. */
	ck_assert(!vsock_conn_has_rx(conn));
	ck_assert_uint_eq(vsock_conn_wanted_events(conn), EPOLLIN);
}
END_TEST

START_TEST(test_conn_respects_guest_credit)
{
	struct vsock_hdr h;
	char buf[64];

	/* The guest has room for 8 bytes only. */
	guest_ctl(VSOCK_OP_CREDIT_UPDATE, 0);
	conn->peer_buf_alloc = 8;
	ck_assert_int_eq(write(host_fd, "0123456789abcdefghij", 20), 20);
	vsock_conn_notify(conn, EPOLLIN);
	ck_assert_int_eq(guest_take(&h, buf, sizeof(buf)), VSOCK_OP_RW);
	ck_assert_uint_eq(h.len, 8);
	ck_assert_uint_eq(vsock_conn_peer_credit(conn), 0);
	/* Out of credit with data waiting: ask once for an update, then stay quiet. */
	ck_assert_int_eq(guest_take(&h, buf, sizeof(buf)), VSOCK_OP_CREDIT_REQUEST);
	ck_assert_int_eq(guest_take(&h, buf, sizeof(buf)), -1);
	ck_assert(!vsock_conn_has_rx(conn));
	ck_assert_uint_eq(vsock_conn_wanted_events(conn), 0);
	/* The guest consumed 8 bytes. */
	guest_send(VSOCK_OP_CREDIT_UPDATE, NULL, 0, 8, 8);
	ck_assert(vsock_conn_has_rx(conn));
	ck_assert_int_eq(guest_take(&h, buf, sizeof(buf)), VSOCK_OP_RW);
	ck_assert_uint_eq(h.len, 8);
	ck_assert_mem_eq(buf, "89abcdef", 8);
	/* A lying fwd_cnt (more consumed than sent) gives no credit at all. */
	guest_send(VSOCK_OP_CREDIT_UPDATE, NULL, 0, 8, 1000);
	ck_assert_uint_eq(vsock_conn_peer_credit(conn), 0);
}
END_TEST

START_TEST(test_conn_caps_packet_to_rx_buffer)
{
	struct vsock_hdr h;
	char buf[16];

	ck_assert_int_eq(write(host_fd, "0123456789", 10), 10);
	vsock_conn_notify(conn, EPOLLIN);
	ck_assert_int_eq(guest_take(&h, buf, 4), VSOCK_OP_RW);
	ck_assert_uint_eq(h.len, 4);
	ck_assert(vsock_conn_has_rx(conn)); /* full read: there may be more */
	ck_assert_int_eq(guest_take(&h, buf, sizeof(buf)), VSOCK_OP_RW);
	ck_assert_uint_eq(h.len, 6);
	ck_assert_mem_eq(buf, "456789", 6);
}
END_TEST

START_TEST(test_conn_answers_credit_request)
{
	struct vsock_hdr h;

	guest_send(VSOCK_OP_RW, "abc", 3, 4096, 0);
	guest_ctl(VSOCK_OP_CREDIT_REQUEST, 0);
	ck_assert_int_eq(guest_take(&h, NULL, 0), VSOCK_OP_CREDIT_UPDATE);
	ck_assert_uint_eq(h.fwd_cnt, 3);
	ck_assert_int_eq(guest_take(&h, NULL, 0), -1);
}
END_TEST

static void shrink_host_buffers(void)
{
	int small = 4096;

	ck_assert_int_eq(setsockopt(conn->fd, SOL_SOCKET, SO_SNDBUF, &small, sizeof(small)), 0);
	ck_assert_int_eq(setsockopt(host_fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small)), 0);
}

START_TEST(test_conn_buffers_slow_host_and_updates_credit)
{
	static char data[2 * 32768], got[sizeof(data)];
	struct vsock_hdr h;
	size_t done = 0;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (char) (i * 7 + i / 251);
	shrink_host_buffers();
	guest_send(VSOCK_OP_RW, data, 32768, 4096, 0);
	guest_send(VSOCK_OP_RW, data + 32768, 32768, 4096, 0);
	ck_assert_int_eq(conn->state, VSOCK_CONN_ESTABLISHED);
	ck_assert_uint_gt(conn->ring_len, 0);
	ck_assert_uint_eq(conn->tx_cnt, sizeof(data));
	ck_assert(vsock_conn_wanted_events(conn) & EPOLLOUT);
	while (done < sizeof(data)) {
		ssize_t k = read(host_fd, got + done, sizeof(data) - done);

		ck_assert_int_gt(k, 0);
		done += (size_t) k;
		vsock_conn_notify(conn, EPOLLOUT);
	}
	ck_assert_mem_eq(got, data, sizeof(data));
	ck_assert_uint_eq(conn->ring_len, 0);
	ck_assert_uint_eq(conn->fwd_cnt, sizeof(data));
	ck_assert(!(vsock_conn_wanted_events(conn) & EPOLLOUT));
	/* Forwarding past the threshold owes the guest a credit update. */
	ck_assert_int_eq(guest_take(&h, NULL, 0), VSOCK_OP_CREDIT_UPDATE);
	ck_assert_uint_eq(h.fwd_cnt, sizeof(data));
}
END_TEST

START_TEST(test_conn_resets_on_credit_violation)
{
	static char data[32768];
	struct vsock_hdr h;

	shrink_host_buffers();
	guest_send(VSOCK_OP_RW, data, sizeof(data), 4096, 0);
	guest_send(VSOCK_OP_RW, data, sizeof(data), 4096, 0);
	ck_assert_int_eq(conn->state, VSOCK_CONN_ESTABLISHED);
	/* The host has not read anything: 8 KiB more is beyond buf_alloc. */
	guest_send(VSOCK_OP_RW, data, 8192, 4096, 0);
	ck_assert_int_eq(conn->state, VSOCK_CONN_DYING);
	ck_assert_uint_eq(vsock_conn_wanted_events(conn), 0);
	ck_assert_int_eq(guest_take(&h, NULL, 0), VSOCK_OP_RST);
	ck_assert(vsock_conn_is_dead(conn));
	ck_assert_int_eq(guest_take(&h, NULL, 0), -1);
}
END_TEST

START_TEST(test_conn_half_close_from_guest)
{
	struct vsock_hdr h;
	char buf[16];

	guest_send(VSOCK_OP_RW, "last", 4, 4096, 0);
	guest_ctl(VSOCK_OP_SHUTDOWN, VSOCK_SHUTDOWN_SEND);
	ck_assert(conn->wr_shut);
	host_read_exact(buf, 4);
	ck_assert_int_eq(read(host_fd, buf, sizeof(buf)), 0); /* EOF on the host */
	/* The other direction still works. */
	ck_assert_int_eq(write(host_fd, "reply", 5), 5);
	vsock_conn_notify(conn, EPOLLIN);
	ck_assert_int_eq(guest_take(&h, buf, sizeof(buf)), VSOCK_OP_RW);
	ck_assert_mem_eq(buf, "reply", 5);
	/* More data after SEND shutdown is a protocol error. */
	guest_send(VSOCK_OP_RW, "x", 1, 4096, 0);
	ck_assert_int_eq(guest_take(&h, NULL, 0), VSOCK_OP_RST);
	ck_assert(vsock_conn_is_dead(conn));
}
END_TEST

START_TEST(test_conn_full_close_from_guest_flushes_then_resets)
{
	struct vsock_hdr h;
	char buf[8];

	guest_send(VSOCK_OP_RW, "bye", 3, 4096, 0);
	guest_ctl(VSOCK_OP_SHUTDOWN, VSOCK_SHUTDOWN_BOTH);
	ck_assert_int_eq(guest_take(&h, NULL, 0), VSOCK_OP_RST);
	ck_assert(vsock_conn_is_dead(conn));
	host_read_exact(buf, 3);
	ck_assert_mem_eq(buf, "bye", 3);
}
END_TEST

START_TEST(test_conn_half_close_from_host)
{
	struct vsock_hdr h;
	char buf[8];

	ck_assert_int_eq(write(host_fd, "ab", 2), 2);
	ck_assert_int_eq(shutdown(host_fd, SHUT_WR), 0);
	vsock_conn_notify(conn, EPOLLIN);
	ck_assert_int_eq(guest_take(&h, buf, sizeof(buf)), VSOCK_OP_RW);
	ck_assert_uint_eq(h.len, 2);
	/* A short read: the EOF shows up with the next EPOLLIN. */
	ck_assert_uint_eq(vsock_conn_wanted_events(conn), EPOLLIN);
	vsock_conn_notify(conn, EPOLLIN);
	/* EOF: SHUTDOWN(SEND) only, the host still reads. */
	ck_assert_int_eq(guest_take(&h, buf, sizeof(buf)), VSOCK_OP_SHUTDOWN);
	ck_assert_uint_eq(h.flags, VSOCK_SHUTDOWN_SEND);
	ck_assert_uint_eq(conn->expiry_ns, 0);
	ck_assert_uint_eq(vsock_conn_wanted_events(conn), 0);
	guest_send(VSOCK_OP_RW, "ok", 2, 4096, 0);
	host_read_exact(buf, 2);
	ck_assert_mem_eq(buf, "ok", 2);
	/* The guest closes: RST completes it. */
	guest_ctl(VSOCK_OP_SHUTDOWN, VSOCK_SHUTDOWN_BOTH);
	ck_assert_int_eq(guest_take(&h, NULL, 0), VSOCK_OP_RST);
	ck_assert(vsock_conn_is_dead(conn));
}
END_TEST

START_TEST(test_conn_host_close_times_out_without_guest_rst)
{
	struct vsock_hdr h;
	char buf[8];

	close(host_fd);
	host_fd = -1;
	vsock_conn_notify(conn, EPOLLIN | EPOLLHUP);
	ck_assert_int_eq(guest_take(&h, buf, sizeof(buf)), VSOCK_OP_SHUTDOWN);
	ck_assert_uint_eq(h.flags, VSOCK_SHUTDOWN_BOTH);
	ck_assert_uint_gt(conn->expiry_ns, 0);
	vsock_conn_check_timeout(conn, VSOCK_CONN_CLOSE_TIMEOUT_NS - 1);
	ck_assert_int_eq(conn->state, VSOCK_CONN_ESTABLISHED);
	vsock_conn_check_timeout(conn, VSOCK_CONN_CLOSE_TIMEOUT_NS);
	ck_assert_int_eq(guest_take(&h, NULL, 0), VSOCK_OP_RST);
	ck_assert(vsock_conn_is_dead(conn));
}
END_TEST

START_TEST(test_conn_write_to_closed_host_resets)
{
	struct vsock_hdr h;

	close(host_fd);
	host_fd = -1;
	guest_send(VSOCK_OP_RW, "x", 1, 4096, 0); /* EPIPE, without SIGPIPE */
	ck_assert_int_eq(conn->state, VSOCK_CONN_DYING);
	ck_assert_int_eq(guest_take(&h, NULL, 0), VSOCK_OP_RST);
}
END_TEST

START_TEST(test_conn_guest_rst_kills_silently)
{
	struct vsock_hdr h;

	guest_ctl(VSOCK_OP_RST, 0);
	ck_assert(vsock_conn_is_dead(conn));
	ck_assert(!vsock_conn_has_rx(conn));
	ck_assert_int_eq(guest_take(&h, NULL, 0), -1);
}
END_TEST

START_TEST(test_conn_unexpected_ops_reset)
{
	static const uint16_t ops[] = {VSOCK_OP_REQUEST, VSOCK_OP_RESPONSE};
	struct vsock_hdr h;

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		if (i > 0) {
			teardown();
			setup_peer();
		}
		guest_ctl(ops[i], 0);
		ck_assert_int_eq(guest_take(&h, NULL, 0), VSOCK_OP_RST);
		ck_assert(vsock_conn_is_dead(conn));
	}
}
END_TEST

START_TEST(test_conn_peer_init_data_before_response_resets)
{
	struct vsock_hdr req = ghdr(VSOCK_OP_REQUEST, 0, 4096, 0), h;

	ASSERT_OK(vsock_conn_new_peer(make_pair(), CID, &req, &conn));
	guest_send(VSOCK_OP_RW, "early", 5, 4096, 0);
	ck_assert_int_eq(guest_take(&h, NULL, 0), VSOCK_OP_RST);
	ck_assert(vsock_conn_is_dead(conn));
}
END_TEST

START_TEST(test_conn_local_init_handshake)
{
	struct vsock_hdr h, resp;
	char buf[32];

	ASSERT_OK(vsock_conn_new_local(make_pair(), CID, 1u << 30, GPORT, 100, &conn));
	ck_assert_int_eq(guest_take(&h, NULL, 0), VSOCK_OP_REQUEST);
	ck_assert_uint_eq(h.src_port, 1u << 30);
	ck_assert_uint_eq(h.dst_port, GPORT);
	ck_assert_uint_eq(conn->expiry_ns, 100 + VSOCK_CONN_CONNECT_TIMEOUT_NS);
	ck_assert_int_eq(guest_take(&h, NULL, 0), -1);

	resp = (struct vsock_hdr){.src_cid = CID,
				  .dst_cid = VSOCK_HOST_CID,
				  .src_port = GPORT,
				  .dst_port = 1u << 30,
				  .type = VSOCK_TYPE_STREAM,
				  .op = VSOCK_OP_RESPONSE,
				  .buf_alloc = 4096};
	vsock_conn_recv(conn, &resp, NULL, 0, 0, 0);
	ck_assert_int_eq(conn->state, VSOCK_CONN_ESTABLISHED);
	ck_assert_uint_eq(conn->expiry_ns, 0);
	host_read_exact(buf, strlen("OK 1073741824\n"));
	ck_assert_mem_eq(buf, "OK 1073741824\n", strlen("OK 1073741824\n"));
}
END_TEST

START_TEST(test_conn_local_init_refused_or_timed_out)
{
	struct vsock_hdr h;
	char c;

	ASSERT_OK(vsock_conn_new_local(make_pair(), CID, 1u << 30, GPORT, 0, &conn));
	ck_assert_int_eq(guest_take(&h, NULL, 0), VSOCK_OP_REQUEST);
	vsock_conn_check_timeout(conn, VSOCK_CONN_CONNECT_TIMEOUT_NS);
	ck_assert_int_eq(guest_take(&h, NULL, 0), VSOCK_OP_RST);
	ck_assert(vsock_conn_is_dead(conn));
	teardown();

	/* A RESPONSE to a REQUEST the guest never saw is a reset. */
	ASSERT_OK(vsock_conn_new_local(make_pair(), CID, 1u << 30, GPORT, 0, &conn));
	{
		struct vsock_hdr resp = {.src_cid = CID,
					 .dst_cid = VSOCK_HOST_CID,
					 .src_port = GPORT,
					 .dst_port = 1u << 30,
					 .type = VSOCK_TYPE_STREAM,
					 .op = VSOCK_OP_RESPONSE};

		vsock_conn_recv(conn, &resp, NULL, 0, 0, 0);
	}
	ck_assert_int_eq(guest_take(&h, NULL, 0), VSOCK_OP_RST);
	teardown();

	/* The guest refuses with RST: the host client sees EOF once the conn is freed. */
	ASSERT_OK(vsock_conn_new_local(make_pair(), CID, 1u << 30, GPORT, 0, &conn));
	ck_assert_int_eq(guest_take(&h, NULL, 0), VSOCK_OP_REQUEST);
	{
		struct vsock_hdr rst = {.src_cid = CID,
					.dst_cid = VSOCK_HOST_CID,
					.src_port = GPORT,
					.dst_port = 1u << 30,
					.type = VSOCK_TYPE_STREAM,
					.op = VSOCK_OP_RST};

		vsock_conn_recv(conn, &rst, NULL, 0, 0, 0);
	}
	ck_assert(vsock_conn_is_dead(conn));
	conn = vsock_conn_free(conn);
	ck_assert_int_eq(read(host_fd, &c, 1), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vsock-conn");
	TCase *est = tcase_create("established");
	TCase *setup = tcase_create("setup");

	tcase_add_checked_fixture(est, setup_peer, teardown);
	tcase_add_test(est, test_conn_moves_data_both_ways);
	tcase_add_test(est, test_conn_respects_guest_credit);
	tcase_add_test(est, test_conn_caps_packet_to_rx_buffer);
	tcase_add_test(est, test_conn_answers_credit_request);
	tcase_add_test(est, test_conn_buffers_slow_host_and_updates_credit);
	tcase_add_test(est, test_conn_resets_on_credit_violation);
	tcase_add_test(est, test_conn_half_close_from_guest);
	tcase_add_test(est, test_conn_full_close_from_guest_flushes_then_resets);
	tcase_add_test(est, test_conn_half_close_from_host);
	tcase_add_test(est, test_conn_host_close_times_out_without_guest_rst);
	tcase_add_test(est, test_conn_write_to_closed_host_resets);
	tcase_add_test(est, test_conn_guest_rst_kills_silently);
	tcase_add_test(est, test_conn_unexpected_ops_reset);
	suite_add_tcase(s, est);

	tcase_add_checked_fixture(setup, NULL, teardown);
	tcase_add_test(setup, test_conn_peer_init_data_before_response_resets);
	tcase_add_test(setup, test_conn_local_init_handshake);
	tcase_add_test(setup, test_conn_local_init_refused_or_timed_out);
	suite_add_tcase(s, setup);
	return cctest_run_suite(s);
}
