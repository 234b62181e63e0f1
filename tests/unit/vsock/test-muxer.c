/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The unix-socket muxer with real sockets in a temporary directory; the test plays the
 * guest (packets in and out of the muxer) and the host applications.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "cc/macro.h"
#include "cctest.h"
#include "vsock/conn.h"
#include "vsock/muxer.h"

#define CID 42

static char *dir, *uds;
static struct vsock_mux *mux;

static void setup(void)
{
	dir = cctest_mkdtemp();
	ck_assert_int_ge(asprintf(&uds, "%s/v.sock", dir), 0);
	ASSERT_OK(vsock_mux_new(CID, uds, &mux));
}

static void teardown(void)
{
	mux = vsock_mux_free(mux);
	cctest_rm_rf(dir);
	free(dir);
	free(uds);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

static void set_timeout(int fd)
{
	struct timeval tv = {.tv_sec = 5};

	ck_assert_int_eq(setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), 0);
}

static int listen_port(uint32_t port)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(fd, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s_%u", uds, port);
	ck_assert_int_eq(bind(fd, (struct sockaddr *) &sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(fd, 512), 0);
	set_timeout(fd);
	return fd;
}

static int accept_one(int lfd)
{
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	set_timeout(fd);
	return fd;
}

static int host_connect(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(fd, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", uds);
	ck_assert_int_eq(connect(fd, (struct sockaddr *) &sa, sizeof(sa)), 0);
	set_timeout(fd);
	return fd;
}

/* The guest sends a packet, header and payload in two buffers as Linux does. */
static void guest_send(uint16_t op, uint32_t src_port, uint32_t dst_port, const void *data,
		       uint32_t len, uint32_t flags)
{
	struct vsock_hdr h = {
		.src_cid = CID,
		.dst_cid = VSOCK_HOST_CID,
		.src_port = src_port,
		.dst_port = dst_port,
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

/* The guest takes the next packet if any: returns its op, or -1. */
static int guest_recv(struct vsock_hdr *h, void *payload, size_t room)
{
	uint8_t buf[VSOCK_HDR_SIZE + 4096];
	struct iovec iov = {buf, VSOCK_HDR_SIZE + MIN(room, 4096)};
	uint32_t len = 0;
	int r;

	r = vsock_mux_fill_rx(mux, &iov, 1, &len);
	ck_assert_int_ge(r, 0);
	if (r == 0)
		return -1;
	vsock_hdr_decode(buf, h);
	ck_assert_uint_eq(len, VSOCK_HDR_SIZE + h->len);
	ck_assert_uint_eq(h->src_cid, VSOCK_HOST_CID);
	ck_assert_uint_eq(h->dst_cid, CID);
	if (h->len)
		memcpy(payload, buf + VSOCK_HDR_SIZE, h->len);
	return h->op;
}

static void pump(int timeout_ms)
{
	struct pollfd p = {.fd = vsock_mux_fd(mux), .events = POLLIN};

	(void) poll(&p, 1, timeout_ms);
	vsock_mux_process(mux);
}

/* Wait up to 5 s for a packet. */
static int guest_recv_wait(struct vsock_hdr *h, void *payload, size_t room)
{
	for (int i = 0; i < 100; i++) {
		int op = guest_recv(h, payload, room);

		if (op >= 0)
			return op;
		pump(50);
	}
	return -1;
}

static void read_exact(int fd, void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t k = read(fd, (char *) buf + done, len - done);

		ck_assert_int_gt(k, 0);
		done += (size_t) k;
	}
}

/* Guest port gport connects to host port hport; returns the accepted host fd. */
static int guest_connect(int lfd, uint32_t gport, uint32_t hport)
{
	struct vsock_hdr h;

	guest_send(VSOCK_OP_REQUEST, gport, hport, NULL, 0, 0);
	ck_assert_int_eq(guest_recv(&h, NULL, 0), VSOCK_OP_RESPONSE);
	ck_assert_uint_eq(h.src_port, hport);
	ck_assert_uint_eq(h.dst_port, gport);
	return accept_one(lfd);
}

START_TEST(test_mux_guest_connects_to_host_socket)
{
	int lfd = listen_port(1234), afd;
	struct vsock_hdr h;
	char buf[16];

	afd = guest_connect(lfd, 5000, 1234);
	ck_assert_uint_eq(vsock_mux_n_conns(mux), 1);
	guest_send(VSOCK_OP_RW, 5000, 1234, "ping", 4, 0);
	read_exact(afd, buf, 4);
	ck_assert_mem_eq(buf, "ping", 4);
	ck_assert_int_eq(write(afd, "pong", 4), 4);
	ck_assert_int_eq(guest_recv_wait(&h, buf, sizeof(buf)), VSOCK_OP_RW);
	ck_assert_uint_eq(h.len, 4);
	ck_assert_uint_eq(h.src_port, 1234);
	ck_assert_uint_eq(h.dst_port, 5000);
	ck_assert_mem_eq(buf, "pong", 4);
	/* The guest closes: RST, the connection is gone and the host sees EOF. */
	guest_send(VSOCK_OP_SHUTDOWN, 5000, 1234, NULL, 0, VSOCK_SHUTDOWN_BOTH);
	ck_assert_int_eq(guest_recv(&h, NULL, 0), VSOCK_OP_RST);
	ck_assert_uint_eq(vsock_mux_n_conns(mux), 0);
	ck_assert_int_eq(read(afd, buf, 1), 0);
	close(afd);
	close(lfd);
}
END_TEST

START_TEST(test_mux_resets_unknown_connections)
{
	struct vsock_hdr h;

	guest_send(VSOCK_OP_REQUEST, 5000, 999, NULL, 0, 0); /* nobody listens */
	ck_assert_int_eq(guest_recv(&h, NULL, 0), VSOCK_OP_RST);
	ck_assert_uint_eq(h.src_port, 999);
	ck_assert_uint_eq(h.dst_port, 5000);
	ck_assert_uint_eq(vsock_mux_get_stats(mux)->conns_refused, 1);
	guest_send(VSOCK_OP_RW, 5001, 999, "x", 1, 0);
	ck_assert_int_eq(guest_recv(&h, NULL, 0), VSOCK_OP_RST);
	guest_send(VSOCK_OP_CREDIT_UPDATE, 5001, 999, NULL, 0, 0);
	ck_assert_int_eq(guest_recv(&h, NULL, 0), VSOCK_OP_RST);
	/* Never answer an RST with an RST. */
	guest_send(VSOCK_OP_RST, 5001, 999, NULL, 0, 0);
	ck_assert_int_eq(guest_recv(&h, NULL, 0), -1);
	ck_assert(!vsock_mux_has_rx(mux));
	ck_assert_uint_eq(vsock_mux_n_conns(mux), 0);
}
END_TEST

/* A host client asks for guest port gport; returns the client fd once the REQUEST is out. */
static int host_request(uint32_t gport, const char *extra, uint32_t *ret_local_port)
{
	int cfd = host_connect();
	struct vsock_hdr h;
	char line[64];

	snprintf(line, sizeof(line), "CONNECT %u\n%s", gport, extra);
	ck_assert_int_eq(write(cfd, line, strlen(line)), (ssize_t) strlen(line));
	ck_assert_int_eq(guest_recv_wait(&h, NULL, 0), VSOCK_OP_REQUEST);
	ck_assert_uint_eq(h.dst_port, gport);
	ck_assert_uint_ge(h.src_port, VSOCK_MUX_LOCAL_PORT_BASE);
	*ret_local_port = h.src_port;
	return cfd;
}

START_TEST(test_mux_host_client_reaches_guest)
{
	uint32_t lport;
	int cfd = host_request(52, "early", &lport);
	struct vsock_hdr h;
	char buf[32], want[32];

	ck_assert_uint_eq(lport, VSOCK_MUX_LOCAL_PORT_BASE);
	/* Nothing past the newline was consumed, nor forwarded before the guest accepted. */
	ck_assert_int_eq(guest_recv(&h, NULL, 0), -1);
	guest_send(VSOCK_OP_RESPONSE, 52, lport, NULL, 0, 0);
	snprintf(want, sizeof(want), "OK %u\n", lport);
	read_exact(cfd, buf, strlen(want));
	ck_assert_mem_eq(buf, want, strlen(want));
	ck_assert_int_eq(guest_recv_wait(&h, buf, sizeof(buf)), VSOCK_OP_RW);
	ck_assert_uint_eq(h.len, 5);
	ck_assert_mem_eq(buf, "early", 5);
	ck_assert_int_eq(write(cfd, "data", 4), 4);
	ck_assert_int_eq(guest_recv_wait(&h, buf, sizeof(buf)), VSOCK_OP_RW);
	ck_assert_mem_eq(buf, "data", 4);
	guest_send(VSOCK_OP_RW, 52, lport, "back", 4, 0);
	read_exact(cfd, buf, 4);
	ck_assert_mem_eq(buf, "back", 4);
	/* A second client gets the next port. */
	{
		uint32_t lport2;
		int cfd2 = host_request(52, "", &lport2);

		ck_assert_uint_eq(lport2, lport + 1);
		close(cfd2);
	}
	close(cfd);
}
END_TEST

START_TEST(test_mux_host_client_refused_by_guest)
{
	uint32_t lport;
	int cfd = host_request(53, "", &lport);
	char c;

	guest_send(VSOCK_OP_RST, 53, lport, NULL, 0, 0);
	ck_assert_uint_eq(vsock_mux_n_conns(mux), 0);
	ck_assert_int_eq(read(cfd, &c, 1), 0);
	close(cfd);
}
END_TEST

START_TEST(test_mux_rejects_bad_handshakes)
{
	static const char *const lines[] = {
		"HELLO\n",
		"CONNECT abc\n",
		"CONNECT 99999999999\n",
		"CONNECT \n",
		"CONNECT -1\n",
		"connect 52\n",
		"CONNECT 52 53 54 55 56 57 58 59 60 61\n", /* longer than the line cap */
	};
	struct vsock_hdr h;

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		int cfd = host_connect();
		ssize_t r;
		char c;

		ck_assert_int_eq(write(cfd, lines[i], strlen(lines[i])),
				 (ssize_t) strlen(lines[i]));
		for (int k = 0; k < 5; k++)
			pump(20);
		/* EOF, or ECONNRESET when the muxer closed with bytes left unread */
		r = read(cfd, &c, 1);
		ck_assert(r == 0 || (r < 0 && errno == ECONNRESET));
		close(cfd);
	}
	ck_assert_uint_eq(vsock_mux_get_stats(mux)->handshake_errors,
			  sizeof(lines) / sizeof(lines[0]));
	ck_assert_int_eq(guest_recv(&h, NULL, 0), -1);
	ck_assert_uint_eq(vsock_mux_n_conns(mux), 0);
}
END_TEST

START_TEST(test_mux_times_out_handshake_and_connect)
{
	struct vsock_hdr h;
	uint32_t lport;
	int idle = host_connect(), cfd;
	char c;

	pump(50); /* accept the idle client */
	cfd = host_request(54, "", &lport);
	vsock_mux_expire(mux, now_ns() + VSOCK_CONN_CONNECT_TIMEOUT_NS + 1000000);
	/* The unanswered REQUEST is cancelled with an RST, then the client is closed. */
	ck_assert_int_eq(guest_recv(&h, NULL, 0), VSOCK_OP_RST);
	ck_assert_uint_eq(h.src_port, lport);
	ck_assert_int_eq(read(cfd, &c, 1), 0);
	ck_assert_uint_eq(vsock_mux_n_conns(mux), 0);
	/* The idle client outlives the connect timeout, not the handshake timeout. */
	vsock_mux_expire(mux, now_ns() + VSOCK_MUX_HS_TIMEOUT_NS + 1000000);
	ck_assert_int_eq(read(idle, &c, 1), 0);
	close(idle);
	close(cfd);
}
END_TEST

START_TEST(test_mux_does_not_spin_without_rx_buffers)
{
	int lfd = listen_port(1234), afd = guest_connect(lfd, 5000, 1234);
	struct pollfd p = {.fd = vsock_mux_fd(mux), .events = POLLIN};
	struct vsock_hdr h;
	char buf[16];

	ck_assert_int_eq(write(afd, "data", 4), 4);
	pump(1000);
	ck_assert(vsock_mux_has_rx(mux));
	/* Readable host data waits for an rx buffer: the fd is no longer watched. */
	ck_assert_int_eq(poll(&p, 1, 0), 0);
	ck_assert_int_eq(write(afd, "more", 4), 4);
	ck_assert_int_eq(poll(&p, 1, 50), 0);
	ck_assert_int_eq(guest_recv(&h, buf, sizeof(buf)), VSOCK_OP_RW);
	ck_assert_uint_eq(h.len, 8);
	ck_assert_mem_eq(buf, "datamore", 8);
	close(afd);
	close(lfd);
}
END_TEST

START_TEST(test_mux_bounds_pending_rsts)
{
	struct vsock_hdr h = {.src_cid = CID,
			      .dst_cid = VSOCK_HOST_CID,
			      .src_port = 1,
			      .dst_port = 2,
			      .type = VSOCK_TYPE_STREAM,
			      .op = VSOCK_OP_RW};

	for (unsigned i = 0; i < VSOCK_MUX_MAX_RST; i++)
		guest_send(VSOCK_OP_RW, 6000 + i, 7, NULL, 0, 0);
	ck_assert(!vsock_mux_can_send(mux));
	/* A device that ignores can_send loses RSTs, never memory. */
	vsock_mux_send(mux, &h, NULL, 0, 0);
	ck_assert_uint_eq(vsock_mux_get_stats(mux)->rst_dropped, 1);
	for (unsigned i = 0; i < VSOCK_MUX_MAX_RST; i++) {
		ck_assert_int_eq(guest_recv(&h, NULL, 0), VSOCK_OP_RST);
		ck_assert_uint_eq(h.dst_port, 6000 + i);
	}
	ck_assert(vsock_mux_can_send(mux));
	ck_assert(!vsock_mux_has_rx(mux));
}
END_TEST

START_TEST(test_mux_many_connections_carry_separate_streams)
{
	enum {
		N_GUEST = 100,
		N_HOST = 20
	};
	int lfd = listen_port(1234), afd[N_GUEST], cfd[N_HOST];
	uint32_t lport[N_HOST];
	bool seen[N_GUEST + N_HOST] = {0};
	struct vsock_hdr h;
	char buf[64], want[64];

	for (int i = 0; i < N_GUEST; i++)
		afd[i] = guest_connect(lfd, 10000 + (uint32_t) i, 1234);
	for (int i = 0; i < N_HOST; i++) {
		cfd[i] = host_request(20000 + (uint32_t) i, "", &lport[i]);
		guest_send(VSOCK_OP_RESPONSE, 20000 + (uint32_t) i, lport[i], NULL, 0, 0);
		snprintf(want, sizeof(want), "OK %u\n", lport[i]);
		read_exact(cfd[i], buf, strlen(want));
	}
	ck_assert_uint_eq(vsock_mux_n_conns(mux), N_GUEST + N_HOST);
	/* Guest -> host: each stream lands on its own socket. */
	for (int i = 0; i < N_GUEST; i++) {
		int n = snprintf(want, sizeof(want), "to-host-%d", i);

		guest_send(VSOCK_OP_RW, 10000 + (uint32_t) i, 1234, want, (uint32_t) n, 0);
		read_exact(afd[i], buf, (size_t) n);
		ck_assert_mem_eq(buf, want, (size_t) n);
	}
	/* Host -> guest: all write at once, the guest sorts by port. */
	for (int i = 0; i < N_GUEST; i++)
		ck_assert_int_eq(write(afd[i], "g", 1), 1);
	for (int i = 0; i < N_HOST; i++)
		ck_assert_int_eq(write(cfd[i], "h", 1), 1);
	for (int got = 0; got < N_GUEST + N_HOST; got++) {
		int idx;

		ck_assert_int_eq(guest_recv_wait(&h, buf, sizeof(buf)), VSOCK_OP_RW);
		ck_assert_uint_eq(h.len, 1);
		if (h.dst_port >= 20000) {
			idx = N_GUEST + (int) (h.dst_port - 20000);
			ck_assert_uint_eq(h.src_port, lport[h.dst_port - 20000]);
			ck_assert_int_eq(buf[0], 'h');
		} else {
			idx = (int) (h.dst_port - 10000);
			ck_assert_int_eq(buf[0], 'g');
		}
		ck_assert(!seen[idx]);
		seen[idx] = true;
	}
	for (int i = 0; i < N_GUEST; i++)
		close(afd[i]);
	for (int i = 0; i < N_HOST; i++)
		close(cfd[i]);
	close(lfd);
}
END_TEST

START_TEST(test_mux_caps_connection_table)
{
	static int afd[VSOCK_MUX_MAX_CONNS];
	int lfd = listen_port(1234);
	struct vsock_hdr h;

	for (int i = 0; i < VSOCK_MUX_MAX_CONNS; i++)
		afd[i] = guest_connect(lfd, 10000 + (uint32_t) i, 1234);
	guest_send(VSOCK_OP_REQUEST, 9999, 1234, NULL, 0, 0);
	ck_assert_int_eq(guest_recv(&h, NULL, 0), VSOCK_OP_RST);
	ck_assert_uint_eq(h.dst_port, 9999);
	ck_assert_uint_eq(vsock_mux_n_conns(mux), VSOCK_MUX_MAX_CONNS);
	/* A host client is turned away too. */
	{
		int cfd = host_connect();
		char c;

		ck_assert_int_eq(write(cfd, "CONNECT 1\n", 10), 10);
		for (int k = 0; k < 5; k++)
			pump(20);
		ck_assert_int_eq(read(cfd, &c, 1), 0);
		close(cfd);
	}
	/* Device reset drops every connection. */
	vsock_mux_reset(mux);
	ck_assert_uint_eq(vsock_mux_n_conns(mux), 0);
	ck_assert(!vsock_mux_has_rx(mux));
	for (int i = 0; i < VSOCK_MUX_MAX_CONNS; i++) {
		char c;

		ck_assert_int_eq(read(afd[i], &c, 1), 0);
		close(afd[i]);
	}
	close(lfd);
}
END_TEST

START_TEST(test_mux_half_close_from_host)
{
	int lfd = listen_port(1234), afd = guest_connect(lfd, 5000, 1234);
	struct vsock_hdr h;
	char buf[16];

	ck_assert_int_eq(shutdown(afd, SHUT_WR), 0);
	ck_assert_int_eq(guest_recv_wait(&h, buf, sizeof(buf)), VSOCK_OP_SHUTDOWN);
	ck_assert_uint_eq(h.flags, VSOCK_SHUTDOWN_SEND);
	guest_send(VSOCK_OP_RW, 5000, 1234, "answer", 6, 0);
	read_exact(afd, buf, 6);
	ck_assert_mem_eq(buf, "answer", 6);
	guest_send(VSOCK_OP_SHUTDOWN, 5000, 1234, NULL, 0, VSOCK_SHUTDOWN_BOTH);
	ck_assert_int_eq(guest_recv(&h, NULL, 0), VSOCK_OP_RST);
	ck_assert_int_eq(read(afd, buf, 1), 0);
	ck_assert_uint_eq(vsock_mux_n_conns(mux), 0);
	close(afd);
	close(lfd);
}
END_TEST

START_TEST(test_mux_pauses_listener_when_out_of_fds)
{
	struct pollfd p = {.fd = vsock_mux_fd(mux), .events = POLLIN};
	struct rlimit saved, tight;
	struct vsock_hdr h;
	uint32_t lport;
	int cfd = host_connect(), lowest;

	/* No fd can be allocated: accept() fails with EMFILE. */
	lowest = dup(0);
	ck_assert_int_ge(lowest, 0);
	close(lowest);
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &saved), 0);
	tight = saved;
	tight.rlim_cur = (rlim_t) lowest;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &tight), 0);
	pump(100);
	/* The listener is no longer watched, so the loop does not spin on it. */
	ck_assert_int_eq(poll(&p, 1, 0), 0);
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &saved), 0);
	/* The next tick watches it again and the waiting client gets through. */
	vsock_mux_expire(mux, now_ns());
	ck_assert_int_eq(write(cfd, "CONNECT 5\n", 10), 10);
	ck_assert_int_eq(guest_recv_wait(&h, NULL, 0), VSOCK_OP_REQUEST);
	ck_assert_uint_eq(h.dst_port, 5);
	lport = h.src_port;
	ck_assert_uint_eq(lport, VSOCK_MUX_LOCAL_PORT_BASE);
	close(cfd);
}
END_TEST

/*
 * Bulk data both ways on several connections at once, with a guest that honours credit like
 * Linux (small receive buffer, CREDIT_UPDATE as it consumes) and host applications slower
 * than the guest, so that rings fill, EPOLLOUT flushes, and both credit windows stall and
 * reopen. Every byte is checked.
 */
enum {
	BULK_CONNS = 6,
	BULK_BYTES = 512 * 1024,
	BULK_GUEST_BUF = 16 * 1024
};

struct bulk {
	int fd;
	uint64_t g_sent, g_got, h_sent, h_got;
	uint32_t our_buf_alloc, our_fwd_cnt; /* the muxer's credit, as the guest saw it */
	uint32_t g_consumed_told;
};

static uint8_t bulk_byte(uint64_t i, int stream)
{
	return (uint8_t) (i * 31 + (uint64_t) stream * 7 + i / 1021);
}

/* Index of the first byte of buf that is not stream's byte at offset pos, or len. */
static size_t bulk_mismatch(const uint8_t *buf, size_t len, uint64_t pos, int stream)
{
	size_t k = 0;

	while (k < len && buf[k] == bulk_byte(pos + k, stream))
		k++;
	return k;
}

static void bulk_guest_send(struct bulk *b, int i)
{
	uint8_t data[12 * 1024];
	uint32_t credit = b->our_buf_alloc - (uint32_t) (b->g_sent - b->our_fwd_cnt);
	size_t n = MIN(MIN((uint64_t) sizeof(data), BULK_BYTES - b->g_sent), (uint64_t) credit);
	struct vsock_hdr h = {.src_cid = CID,
			      .dst_cid = VSOCK_HOST_CID,
			      .src_port = 30000 + (uint32_t) i,
			      .dst_port = 1234,
			      .len = (uint32_t) n,
			      .type = VSOCK_TYPE_STREAM,
			      .op = VSOCK_OP_RW,
			      .buf_alloc = BULK_GUEST_BUF,
			      .fwd_cnt = (uint32_t) b->g_got};
	struct iovec iov = {data, n};

	if (n == 0)
		return;
	for (size_t k = 0; k < n; k++)
		data[k] = bulk_byte(b->g_sent + k, 2 * i);
	vsock_mux_send(mux, &h, &iov, 1, 0);
	b->g_sent += n;
}

static void bulk_guest_credit(struct bulk *b, int i, bool force)
{
	struct vsock_hdr h = {.src_cid = CID,
			      .dst_cid = VSOCK_HOST_CID,
			      .src_port = 30000 + (uint32_t) i,
			      .dst_port = 1234,
			      .type = VSOCK_TYPE_STREAM,
			      .op = VSOCK_OP_CREDIT_UPDATE,
			      .buf_alloc = BULK_GUEST_BUF,
			      .fwd_cnt = (uint32_t) b->g_got};

	if (!force && b->g_got - b->g_consumed_told < 4096)
		return;
	vsock_mux_send(mux, &h, NULL, 0, 0);
	b->g_consumed_told = (uint32_t) b->g_got;
}

static void bulk_guest_recv(struct bulk *bs)
{
	uint8_t buf[VSOCK_HDR_SIZE + 4096];
	struct iovec iov = {buf, sizeof(buf)};
	struct vsock_hdr h;
	uint32_t len;

	while (vsock_mux_fill_rx(mux, &iov, 1, &len) == 1) {
		struct bulk *b;
		int i;

		vsock_hdr_decode(buf, &h);
		ck_assert_uint_ge(h.dst_port, 30000);
		i = (int) (h.dst_port - 30000);
		ck_assert_int_lt(i, BULK_CONNS);
		b = &bs[i];
		ck_assert_uint_ne(h.op, VSOCK_OP_RST);
		b->our_buf_alloc = h.buf_alloc;
		b->our_fwd_cnt = h.fwd_cnt;
		if (h.op == VSOCK_OP_RW) {
			/* Never more than the receive buffer we advertised. */
			ck_assert_uint_le(b->g_got + h.len - b->g_consumed_told, BULK_GUEST_BUF);
			ck_assert_uint_eq(
				bulk_mismatch(buf + VSOCK_HDR_SIZE, h.len, b->g_got, 2 * i + 1),
				h.len);
			b->g_got += h.len;
		}
		bulk_guest_credit(b, i, h.op == VSOCK_OP_CREDIT_REQUEST);
	}
}

static void bulk_host_io(struct bulk *b, int i)
{
	uint8_t buf[3000];
	size_t n = MIN((uint64_t) sizeof(buf), BULK_BYTES - b->h_sent);
	ssize_t k;

	for (size_t j = 0; j < n; j++)
		buf[j] = bulk_byte(b->h_sent + j, 2 * i + 1);
	k = n ? write(b->fd, buf, n) : 0;
	if (k > 0)
		b->h_sent += (uint64_t) k;
	k = read(b->fd, buf, sizeof(buf));
	if (k > 0) {
		ck_assert_uint_eq(bulk_mismatch(buf, (size_t) k, b->h_got, 2 * i), (size_t) k);
		b->h_got += (uint64_t) k;
	}
}

START_TEST(test_mux_bulk_streams_with_credit)
{
	int lfd = listen_port(1234);
	struct bulk bs[BULK_CONNS];
	bool done = false;
	int round;

	for (int i = 0; i < BULK_CONNS; i++) {
		bs[i] = (struct bulk){.fd = guest_connect(lfd, 30000 + (uint32_t) i, 1234),
				      .our_buf_alloc = VSOCK_CONN_BUF_SIZE};
		ck_assert_int_eq(fcntl(bs[i].fd, F_SETFL, O_NONBLOCK), 0);
	}
	for (round = 0; round < 200000 && !done; round++) {
		done = true;
		for (int i = 0; i < BULK_CONNS; i++) {
			bulk_guest_send(&bs[i], i);
			bulk_host_io(&bs[i], i);
			done &= bs[i].h_got == BULK_BYTES && bs[i].g_got == BULK_BYTES;
		}
		bulk_guest_recv(bs);
		pump(0);
	}
	for (int i = 0; i < BULK_CONNS; i++) {
		ck_assert_uint_eq(bs[i].h_got, BULK_BYTES);
		ck_assert_uint_eq(bs[i].g_got, BULK_BYTES);
		close(bs[i].fd);
	}
	close(lfd);
}
END_TEST

START_TEST(test_mux_new_checks_path)
{
	struct vsock_mux *m = NULL;
	char longpath[200];

	memset(longpath, 'a', sizeof(longpath) - 1);
	longpath[sizeof(longpath) - 1] = '\0';
	ASSERT_ERRNO(vsock_mux_new(CID, longpath, &m), ENAMETOOLONG);
	ASSERT_ERRNO(vsock_mux_new(CID, "", &m), ENAMETOOLONG);
	/* uds is taken by the fixture's muxer; it must survive the failed attempt. */
	ASSERT_ERRNO(vsock_mux_new(CID, uds, &m), EADDRINUSE);
	ck_assert_ptr_null(m);
	ck_assert_int_eq(access(uds, F_OK), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vsock-muxer");
	TCase *tc = tcase_create("muxer");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_mux_guest_connects_to_host_socket);
	tcase_add_test(tc, test_mux_resets_unknown_connections);
	tcase_add_test(tc, test_mux_host_client_reaches_guest);
	tcase_add_test(tc, test_mux_host_client_refused_by_guest);
	tcase_add_test(tc, test_mux_rejects_bad_handshakes);
	tcase_add_test(tc, test_mux_times_out_handshake_and_connect);
	tcase_add_test(tc, test_mux_does_not_spin_without_rx_buffers);
	tcase_add_test(tc, test_mux_bounds_pending_rsts);
	tcase_add_test(tc, test_mux_many_connections_carry_separate_streams);
	tcase_add_test(tc, test_mux_caps_connection_table);
	tcase_add_test(tc, test_mux_half_close_from_host);
	tcase_add_test(tc, test_mux_pauses_listener_when_out_of_fds);
	tcase_add_test(tc, test_mux_bulk_streams_with_credit);
	tcase_add_test(tc, test_mux_new_checks_path);
	suite_add_tcase(s, tc);
	return cctest_run_suite(s);
}
