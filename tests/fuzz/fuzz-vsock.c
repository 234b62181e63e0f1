/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fuzz the vsock packet codec, connection state machine and unix-socket muxer with a
 * hostile guest and misbehaving host applications, over real unix sockets.
 *
 * The input is a script of steps; each starts with an opcode byte (mod 8):
 *   0 raw      [n] then n bytes: a tx chain of exactly those bytes, parsed and dispatched
 *   1 packet   [op][src][dst][len][flags][buf_alloc be16][fwd_cnt be16] + len payload bytes:
 *              a well-formed header with ports picked from small sets, so that connections
 *              really open (dst 1 has a host listener, guest port 7 answers host clients)
 *              and the state machine gets deep; len 255 means a 64 KiB payload of the next
 *              byte repeated, which fills host sockets that do not read (their owners here
 *              never do), so guest -> host rings and their budget are reached
 *   2 rx       [size]: the guest offers an rx buffer of size * 8 bytes (some below a header)
 *   3 host     [k][what][n] + n bytes: accepted host socket k writes, half-closes or closes
 *   4 client   [n] + n bytes: a host client connects to the muxer's socket and writes them
 *   5 pump     handle ready host events; the listener accepts pending connections
 *   6 expire   [seconds]: apply timeouts as of now + seconds
 *   7 reset    device reset
 * Every packet the muxer emits is checked (addresses, length within the buffer, payload
 * within credit bounds); the step count and all loops are bounded. After every step the muxer
 * holds no more than its budget (small here: connections, one guest -> host ring), and a
 * device reset gives all of it back.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "virtio/virtq.h"
#include "vsock/conn.h"
#include "vsock/muxer.h"
#include "vsock/packet.h"

#define CID	   3
#define MAX_HOST   16
#define MAX_STEPS  256
#define RX_BUF_MAX (VSOCK_HDR_SIZE + 2048)

static const struct vsock_mux_limits fuzz_limits = {
	.max_conns = 6,
	.max_buf_bytes = VSOCK_CONN_BUF_SIZE,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fuzz_state {
	const uint8_t *p;
	size_t left;
	struct vsock_mux *mux;
	int listen_fd;
	int host[MAX_HOST];
};

static char fuzz_dir[64];
static char fuzz_uds[96];

static void fuzz_check(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz-vsock: invariant broken: %s\n", what);
		abort();
	}
}

static uint8_t take_u8(struct fuzz_state *s)
{
	if (s->left == 0)
		return 0;
	s->left--;
	return *s->p++;
}

static const uint8_t *take_bytes(struct fuzz_state *s, size_t *n)
{
	const uint8_t *b = s->p;

	if (*n > s->left)
		*n = s->left;
	s->p += *n;
	s->left -= *n;
	return b;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

static void fuzz_cleanup(void)
{
	char p[128];

	snprintf(p, sizeof(p), "%s_1", fuzz_uds);
	(void) unlink(p);
	(void) rmdir(fuzz_dir);
}

static int fuzz_setup(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	static int listen_fd = -1;

	if (listen_fd >= 0)
		return listen_fd;
	snprintf(fuzz_dir, sizeof(fuzz_dir), "/tmp/fuzz-vsock-XXXXXX");
	if (!mkdtemp(fuzz_dir))
		abort();
	snprintf(fuzz_uds, sizeof(fuzz_uds), "%s/v", fuzz_dir);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s_1", fuzz_uds);
	listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (listen_fd < 0 || bind(listen_fd, (struct sockaddr *) &sa, sizeof(sa)) < 0 ||
	    listen(listen_fd, 256) < 0)
		abort();
	atexit(fuzz_cleanup);
	return listen_fd;
}

static void fuzz_send(struct fuzz_state *s, const struct iovec *iov, unsigned n, size_t len)
{
	uint8_t raw[VSOCK_HDR_SIZE];
	struct vsock_hdr h;
	size_t k;
	int r;

	if (!vsock_mux_can_send(s->mux))
		return; /* the device stops taking tx packets here */
	k = iov_to_buf(iov, n, 0, raw, sizeof(raw));
	r = vsock_pkt_parse_tx(raw, k, len, CID, &h);
	if (r == 0)
		vsock_mux_send(s->mux, &h, iov, n, VSOCK_HDR_SIZE);
	else if (vsock_pkt_error_wants_rst(r))
		vsock_mux_send_rst(s->mux, &h);
}

/* What the muxer holds is within its budget. */
static void check_budget(struct fuzz_state *s)
{
	struct vsock_mux_usage u;

	vsock_mux_get_usage(s->mux, &u);
	fuzz_check(u.conns <= fuzz_limits.max_conns && u.conns == vsock_mux_n_conns(s->mux),
		   "connection budget");
	fuzz_check(u.handshakes <= VSOCK_MUX_MAX_HANDSHAKES, "handshake cap");
	fuzz_check(u.buf_bytes <= fuzz_limits.max_buf_bytes &&
			   u.buf_bytes % VSOCK_CONN_BUF_SIZE == 0,
		   "buffer budget");
}

static void step_raw(struct fuzz_state *s)
{
	size_t n = take_u8(s);
	const uint8_t *b = take_bytes(s, &n);
	/* Split in two buffers at the header boundary, as Linux does. */
	size_t first = n < VSOCK_HDR_SIZE ? n : VSOCK_HDR_SIZE;
	struct iovec iov[2] = {{(void *) b, first}, {(void *) (b + first), n - first}};

	fuzz_send(s, iov, 2, n);
}

static void step_packet(struct fuzz_state *s)
{
	static const uint32_t src_ports[] = {1000, 1001, 7, 8};
	static const uint32_t ports[] = {1,	     2, 0x40000000, 0x40000001,
					 0x40000002, 7, 0,	    UINT32_MAX};
	uint8_t raw[VSOCK_HDR_SIZE];
	struct vsock_hdr h = {.src_cid = CID, .dst_cid = VSOCK_HOST_CID, .type = VSOCK_TYPE_STREAM};
	const uint8_t *payload;
	size_t len;

	h.op = take_u8(s) % (_VSOCK_OP_MAX + 1);
	h.src_port = src_ports[take_u8(s) % 4];
	h.dst_port = ports[take_u8(s) % (sizeof(ports) / sizeof(ports[0]))];
	len = take_u8(s);
	h.flags = take_u8(s);
	h.buf_alloc = (uint32_t) take_u8(s) << 8 | take_u8(s);
	h.buf_alloc <<= 4;
	h.fwd_cnt = (uint32_t) take_u8(s) << 8 | take_u8(s);
	if (len == 255) {
		static uint8_t bulk[VSOCK_PKT_MAX_PAYLOAD];

		memset(bulk, take_u8(s), sizeof(bulk));
		payload = bulk;
		len = sizeof(bulk);
	} else {
		payload = take_bytes(s, &len);
	}
	h.len = (uint32_t) len;
	vsock_hdr_encode(&h, raw);
	{
		struct iovec iov[2] = {{raw, sizeof(raw)}, {(void *) payload, len}};

		fuzz_send(s, iov, 2, sizeof(raw) + len);
	}
}

static void step_rx(struct fuzz_state *s)
{
	static uint8_t buf[RX_BUF_MAX];
	size_t size = (size_t) take_u8(s) * 8 + take_u8(s) % 8;
	struct iovec iov[2];
	struct vsock_hdr h;
	uint32_t len = 0;
	int r;

	if (size > sizeof(buf))
		size = sizeof(buf);
	/* Two pieces, so headers and payloads straddle buffers. */
	iov[0] = (struct iovec){buf, size / 3};
	iov[1] = (struct iovec){buf + size / 3, size - size / 3};
	r = vsock_mux_fill_rx(s->mux, iov, 2, &len);
	if (size < VSOCK_HDR_SIZE) {
		fuzz_check(r == -ENOBUFS, "tiny rx buffer refused");
		return;
	}
	fuzz_check(r == 0 || r == 1, "fill_rx result");
	if (r == 0)
		return;
	vsock_hdr_decode(buf, &h);
	fuzz_check(len == VSOCK_HDR_SIZE + h.len && len <= size, "rx length");
	fuzz_check(h.src_cid == VSOCK_HOST_CID && h.dst_cid == CID, "rx addresses");
	fuzz_check(h.type == VSOCK_TYPE_STREAM && h.op > 0 && h.op < _VSOCK_OP_MAX, "rx op");
	fuzz_check(h.op == VSOCK_OP_RW || h.len == 0, "payload only on RW");
	fuzz_check(h.buf_alloc == VSOCK_CONN_BUF_SIZE || h.op == VSOCK_OP_RST, "buf_alloc");
}

static void step_host(struct fuzz_state *s)
{
	unsigned k = take_u8(s) % MAX_HOST;
	uint8_t what = take_u8(s) % 4;
	size_t n = take_u8(s);
	const uint8_t *b = take_bytes(s, &n);
	int fd = s->host[k];

	if (fd < 0)
		return;
	switch (what) {
	case 0:
	case 1:
		(void) !send(fd, b, n, MSG_NOSIGNAL | MSG_DONTWAIT);
		break;
	case 2:
		(void) shutdown(fd, SHUT_WR);
		break;
	default:
		close(fd);
		s->host[k] = -1;
		break;
	}
}

static void host_add(struct fuzz_state *s, int fd)
{
	for (unsigned i = 0; i < MAX_HOST; i++)
		if (s->host[i] < 0) {
			s->host[i] = fd;
			return;
		}
	close(fd);
}

static void step_client(struct fuzz_state *s)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	size_t n = take_u8(s) % 40;
	const uint8_t *b = take_bytes(s, &n);
	int fd;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", fuzz_uds);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (connect(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0) {
		close(fd);
		return;
	}
	(void) !send(fd, b, n, MSG_NOSIGNAL | MSG_DONTWAIT);
	host_add(s, fd);
}

static void step_pump(struct fuzz_state *s)
{
	int fd;

	vsock_mux_process(s->mux);
	while ((fd = accept4(s->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0)
		host_add(s, fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_state s = {.p = data, .left = size};
	int fd;

	s.listen_fd = fuzz_setup();
	for (unsigned i = 0; i < MAX_HOST; i++)
		s.host[i] = -1;
	if (vsock_mux_new(CID, fuzz_uds, &s.mux) < 0)
		abort();
	vsock_mux_set_limits(s.mux, &fuzz_limits);
	for (unsigned step = 0; step < MAX_STEPS && s.left > 0; step++) {
		switch (take_u8(&s) % 8) {
		case 0:
			step_raw(&s);
			break;
		case 1:
			step_packet(&s);
			break;
		case 2:
			step_rx(&s);
			break;
		case 3:
			step_host(&s);
			break;
		case 4:
			step_client(&s);
			break;
		case 5:
			step_pump(&s);
			break;
		case 6:
			vsock_mux_expire(s.mux, now_ns() + (uint64_t) take_u8(&s) * 1000000000ull);
			break;
		default:
			vsock_mux_reset(s.mux);
			break;
		}
		check_budget(&s);
	}
	/* A device reset gives every connection and ring back. */
	vsock_mux_reset(s.mux);
	{
		struct vsock_mux_usage u;

		vsock_mux_get_usage(s.mux, &u);
		fuzz_check(u.conns == 0 && u.buf_bytes == 0, "budget returned on reset");
	}
	s.mux = vsock_mux_free(s.mux);
	for (unsigned i = 0; i < MAX_HOST; i++)
		if (s.host[i] >= 0)
			close(s.host[i]);
	while ((fd = accept4(s.listen_fd, NULL, NULL, SOCK_CLOEXEC)) >= 0)
		close(fd);
	return 0;
}
