/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The virtio-vsock device model through its vdev ops, with fake guest memory and split
 * virtqueues driven from the driver's side (tests/unit/virtio/vtest.h), real unix sockets
 * on the host side.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "cctest.h"
#include "base/evloop.h"
#include "virtio/vdev.h"
#include "vsock/muxer.h"
#include "vsock/packet.h"
#include "vsock/vsock.h"
#include "vtest.h"

#define CID	  77
#define RX_NUM	  128
#define RX_BUF	  VTEST_BUF /* RX_NUM buffers of RX_BUF_SZ */
#define RX_BUF_SZ 256
#define TX_NUM	  256
#define TX_DESC	  0x40000ull
#define TX_AVAIL  0x41000ull
#define TX_USED	  0x42000ull
#define TX_BUF	  0x44000ull /* 128 slots of 1 KiB */

static struct vtest_guest g;
static struct evloop *loop;
static struct vdev *dev;
static char *dir, *uds;
static unsigned irqs[_VVSOCK_QUEUE_MAX];
static uint16_t rx_posted, rx_seen, tx_sent;

static void count_irq(void *opaque, unsigned q)
{
	(void) opaque;
	ck_assert_uint_lt(q, _VVSOCK_QUEUE_MAX);
	irqs[q]++;
}

static struct virtq *rxq(void)
{
	return &dev->queues[VVSOCK_QUEUE_RX];
}

static struct virtq *txq(void)
{
	return &dev->queues[VVSOCK_QUEUE_TX];
}

static void setup(void)
{
	vtest_guest_init(&g);
	dir = cctest_mkdtemp();
	ck_assert_int_ge(asprintf(&uds, "%s/vsock", dir), 0);
	ASSERT_OK(evloop_new(&loop));
	ASSERT_OK(vvsock_new(CID, uds, loop, &dev));
	dev->transport.notify_used = count_irq;
	vtest_vq_setup(&g, rxq(), RX_NUM);
	vtest_vq_setup(&g, txq(), TX_NUM);
	txq()->desc_gpa = TX_DESC;
	txq()->avail_gpa = TX_AVAIL;
	txq()->used_gpa = TX_USED;
	memset(irqs, 0, sizeof(irqs));
	rx_posted = rx_seen = tx_sent = 0;
	ASSERT_OK(dev->ops->activate(dev, 0));
}

static void teardown(void)
{
	dev->ops->free(dev);
	evloop_free(loop);
	vtest_guest_done(&g);
	cctest_rm_rf(dir);
	free(dir);
	free(uds);
}

/* The driver posts n receive buffers of len bytes (one descriptor each) and kicks. */
static void post_rx(unsigned n, uint32_t len)
{
	for (unsigned i = 0; i < n; i++) {
		unsigned d = rx_posted++ % RX_NUM;

		vtest_desc_set(&g, VTEST_DESC, d, RX_BUF + (uint64_t) d * RX_BUF_SZ, len,
			       VIRTQ_DESC_F_WRITE, 0);
		vtest_avail_add(&g, rxq(), (uint16_t) d);
	}
	dev->ops->queue_notify(dev, VVSOCK_QUEUE_RX);
}

/* The driver takes the next used rx buffer: returns its op, or -1. */
static int take_rx(struct vsock_hdr *h, void *payload, size_t room)
{
	uint32_t id, len;
	uint8_t *buf;

	if (vtest_used_idx(&g, rxq()) == rx_seen)
		return -1;
	vtest_used_elem(&g, rxq(), rx_seen++, &id, &len);
	ck_assert_uint_lt(id, RX_NUM);
	if (len == 0)
		return 0;
	buf = vtest_hva(&g, RX_BUF + (uint64_t) id * RX_BUF_SZ);
	vsock_hdr_decode(buf, h);
	ck_assert_uint_eq(len, VSOCK_HDR_SIZE + h->len);
	ck_assert_uint_eq(h->dst_cid, CID);
	ck_assert_uint_eq(h->src_cid, VSOCK_HOST_CID);
	ck_assert_uint_le(h->len, room);
	if (h->len)
		memcpy(payload, buf + VSOCK_HDR_SIZE, h->len);
	return h->op;
}

/* Queue raw bytes as one tx chain: a header descriptor and, if any, a payload one. */
static void queue_tx_raw(const void *hdr, uint32_t hdr_len, const void *payload, uint32_t len,
			 uint16_t extra_flags)
{
	unsigned slot = tx_sent++ % 128;
	uint64_t buf = TX_BUF + slot * 1024ull;

	ck_assert_uint_le(hdr_len + len, 1024 - 64);
	memcpy(vtest_hva(&g, buf), hdr, hdr_len);
	if (len)
		memcpy(vtest_hva(&g, buf + 64), payload, len);
	vtest_desc_set(&g, TX_DESC, 2 * slot, buf, hdr_len,
		       (uint16_t) ((len ? VIRTQ_DESC_F_NEXT : 0) | extra_flags),
		       (uint16_t) (2 * slot + 1));
	vtest_desc_set(&g, TX_DESC, 2 * slot + 1, buf + 64, len, extra_flags, 0);
	vtest_avail_add(&g, txq(), (uint16_t) (2 * slot));
}

static void queue_tx(uint16_t op, uint64_t src_cid, uint32_t src_port, uint32_t dst_port,
		     const void *payload, uint32_t len, uint32_t flags)
{
	struct vsock_hdr h = {
		.src_cid = src_cid,
		.dst_cid = VSOCK_HOST_CID,
		.src_port = src_port,
		.dst_port = dst_port,
		.len = len,
		.type = VSOCK_TYPE_STREAM,
		.op = op,
		.flags = flags,
		.buf_alloc = 65536,
	};
	uint8_t raw[VSOCK_HDR_SIZE];

	vsock_hdr_encode(&h, raw);
	queue_tx_raw(raw, sizeof(raw), payload, len, 0);
}

static void send_tx(uint16_t op, uint32_t src_port, uint32_t dst_port, const void *payload,
		    uint32_t len, uint32_t flags)
{
	queue_tx(op, CID, src_port, dst_port, payload, len, flags);
	dev->ops->queue_notify(dev, VVSOCK_QUEUE_TX);
}

static int listen_port(uint32_t port)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct timeval tv = {.tv_sec = 5};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(fd, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s_%u", uds, port);
	ck_assert_int_eq(bind(fd, (struct sockaddr *) &sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(fd, 16), 0);
	ck_assert_int_eq(setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), 0);
	return fd;
}

/* What the event loop does when the vsock epoll fd is ready. */
static void poll_host(void)
{
	struct pollfd p = {.fd = vvsock_host_fd(dev), .events = POLLIN};

	(void) poll(&p, 1, 1000);
	vvsock_poll(dev);
}

START_TEST(test_device_identity_and_config)
{
	uint8_t cfg[8];
	uint32_t lo;

	ck_assert_uint_eq(dev->ops->device_id, VIRTIO_ID_VSOCK);
	ck_assert_uint_eq(dev->n_queues, 3);
	ck_assert_uint_eq(dev->config_size, 8);
	ck_assert_uint_eq(dev->ops->get_features(dev), 0);
	dev->ops->config_read(dev, 0, cfg, 8);
	ck_assert_uint_eq(cfg[0], CID);
	for (unsigned i = 1; i < 8; i++)
		ck_assert_uint_eq(cfg[i], 0);
	dev->ops->config_read(dev, 0, &lo, 4);
	ck_assert_uint_eq(lo, CID);
	/* Writes are ignored; out-of-range reads give zeros. */
	dev->ops->config_write(dev, 0, "\xff\xff\xff\xff", 4);
	dev->ops->config_read(dev, 4, &lo, 4);
	ck_assert_uint_eq(lo, 0);
	dev->ops->config_read(dev, 0, cfg, 1);
	ck_assert_uint_eq(cfg[0], CID);
}
END_TEST

START_TEST(test_device_new_checks_arguments)
{
	struct vdev *d = NULL;

	ASSERT_ERRNO(vvsock_new(2, "/tmp/x", loop, &d), EINVAL);
	ASSERT_ERRNO(vvsock_new(UINT32_MAX, "/tmp/x", loop, &d), EINVAL);
	ASSERT_ERRNO(vvsock_new(1ull << 32, "/tmp/x", loop, &d), EINVAL);
	ASSERT_ERRNO(vvsock_new(CID, NULL, loop, &d), EINVAL);
	ASSERT_ERRNO(vvsock_new(CID, "/tmp/x", NULL, &d), EINVAL);
	ASSERT_ERRNO(vvsock_new(CID, uds, loop, &d), EADDRINUSE);
	ck_assert_ptr_null(d);
}
END_TEST

START_TEST(test_device_guest_to_host_stream)
{
	int lfd = listen_port(1234), afd;
	struct vsock_hdr h;
	char buf[64];

	/* REQUEST before any rx buffer: consumed, the RESPONSE waits for a buffer. */
	send_tx(VSOCK_OP_REQUEST, 5000, 1234, NULL, 0, 0);
	ck_assert_uint_eq(vtest_used_idx(&g, txq()), 1);
	ck_assert_uint_eq(irqs[VVSOCK_QUEUE_TX], 1);
	ck_assert_int_eq(take_rx(&h, NULL, 0), -1);
	post_rx(4, RX_BUF_SZ);
	ck_assert_int_eq(take_rx(&h, NULL, 0), VSOCK_OP_RESPONSE);
	ck_assert_uint_eq(h.src_port, 1234);
	ck_assert_uint_eq(h.dst_port, 5000);
	ck_assert_uint_ge(irqs[VVSOCK_QUEUE_RX], 1);
	afd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	ck_assert_int_ge(afd, 0);

	send_tx(VSOCK_OP_RW, 5000, 1234, "hello host", 10, 0);
	ck_assert_int_eq(read(afd, buf, sizeof(buf)), 10);
	ck_assert_mem_eq(buf, "hello host", 10);

	ck_assert_int_eq(write(afd, "hello guest", 11), 11);
	poll_host();
	ck_assert_int_eq(take_rx(&h, buf, sizeof(buf)), VSOCK_OP_RW);
	ck_assert_uint_eq(h.len, 11);
	ck_assert_mem_eq(buf, "hello guest", 11);
	ck_assert_uint_eq(h.fwd_cnt, 10);

	send_tx(VSOCK_OP_SHUTDOWN, 5000, 1234, NULL, 0, VSOCK_SHUTDOWN_BOTH);
	ck_assert_int_eq(take_rx(&h, NULL, 0), VSOCK_OP_RST);
	ck_assert_int_eq(read(afd, buf, 1), 0);
	close(afd);
	close(lfd);
}
END_TEST

START_TEST(test_device_host_to_guest_stream)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int cfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct vsock_hdr h;
	char buf[64];

	post_rx(8, RX_BUF_SZ);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", uds);
	ck_assert_int_eq(connect(cfd, (struct sockaddr *) &sa, sizeof(sa)), 0);
	poll_host(); /* accept */
	ck_assert_int_eq(write(cfd, "CONNECT 9000\n", 13), 13);
	poll_host();
	ck_assert_int_eq(take_rx(&h, NULL, 0), VSOCK_OP_REQUEST);
	ck_assert_uint_eq(h.dst_port, 9000);
	ck_assert_uint_eq(h.src_port, VSOCK_MUX_LOCAL_PORT_BASE);
	send_tx(VSOCK_OP_RESPONSE, 9000, h.src_port, NULL, 0, 0);
	ck_assert_int_eq(read(cfd, buf, sizeof(buf)), (ssize_t) strlen("OK 1073741824\n"));
	ck_assert_mem_eq(buf, "OK 1073741824\n", strlen("OK 1073741824\n"));
	ck_assert_int_eq(write(cfd, "status", 6), 6);
	poll_host();
	ck_assert_int_eq(take_rx(&h, buf, sizeof(buf)), VSOCK_OP_RW);
	ck_assert_mem_eq(buf, "status", 6);
	close(cfd);
}
END_TEST

START_TEST(test_device_splits_data_over_rx_buffers)
{
	static char big[1000];
	int lfd = listen_port(1234), afd;
	struct vsock_hdr h;
	char buf[RX_BUF_SZ];
	size_t got = 0;

	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (char) ('a' + i % 26);
	post_rx(1, RX_BUF_SZ);
	send_tx(VSOCK_OP_REQUEST, 5000, 1234, NULL, 0, 0);
	ck_assert_int_eq(take_rx(&h, NULL, 0), VSOCK_OP_RESPONSE);
	afd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	ck_assert_int_eq(write(afd, big, sizeof(big)), (ssize_t) sizeof(big));
	poll_host();
	/* One buffer at a time: each packet fills what the buffer holds. */
	while (got < sizeof(big)) {
		post_rx(1, RX_BUF_SZ);
		ck_assert_int_eq(take_rx(&h, buf, sizeof(buf)), VSOCK_OP_RW);
		ck_assert_uint_le(h.len, RX_BUF_SZ - VSOCK_HDR_SIZE);
		ck_assert_mem_eq(buf, big + got, h.len);
		got += h.len;
	}
	ck_assert_int_eq(take_rx(&h, buf, sizeof(buf)), -1);
	close(afd);
	close(lfd);
}
END_TEST

START_TEST(test_device_fills_split_rx_buffers)
{
	int lfd = listen_port(1234), afd;
	uint64_t hdr_gpa = RX_BUF + 10 * RX_BUF_SZ, data_gpa = RX_BUF + 11 * RX_BUF_SZ;
	struct vsock_hdr h;
	uint32_t id, len;
	char msg[100];

	/* Linux 6.1 posts a header buffer chained to a data buffer. */
	post_rx(1, RX_BUF_SZ);
	send_tx(VSOCK_OP_REQUEST, 5000, 1234, NULL, 0, 0);
	ck_assert_int_eq(take_rx(&h, NULL, 0), VSOCK_OP_RESPONSE);
	afd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	memset(msg, 'm', sizeof(msg));
	ck_assert_int_eq(write(afd, msg, sizeof(msg)), (ssize_t) sizeof(msg));
	vtest_desc_set(&g, VTEST_DESC, 10, hdr_gpa, VSOCK_HDR_SIZE,
		       VIRTQ_DESC_F_WRITE | VIRTQ_DESC_F_NEXT, 11);
	vtest_desc_set(&g, VTEST_DESC, 11, data_gpa, RX_BUF_SZ, VIRTQ_DESC_F_WRITE, 0);
	vtest_avail_add(&g, rxq(), 10);
	dev->ops->queue_notify(dev, VVSOCK_QUEUE_RX);
	poll_host();
	ck_assert_uint_eq(vtest_used_idx(&g, rxq()), 2);
	vtest_used_elem(&g, rxq(), 1, &id, &len);
	ck_assert_uint_eq(id, 10);
	ck_assert_uint_eq(len, VSOCK_HDR_SIZE + sizeof(msg));
	vsock_hdr_decode(vtest_hva(&g, hdr_gpa), &h);
	ck_assert_uint_eq(h.op, VSOCK_OP_RW);
	ck_assert_uint_eq(h.len, sizeof(msg));
	ck_assert_mem_eq(vtest_hva(&g, data_gpa), msg, sizeof(msg));
	close(afd);
	close(lfd);
}
END_TEST

START_TEST(test_device_drops_or_resets_bad_packets)
{
	struct vsock_hdr h;
	struct vvsock_stats st;
	uint8_t raw[VSOCK_HDR_SIZE];
	struct vsock_hdr bad = {.src_cid = CID,
				.dst_cid = VSOCK_HOST_CID,
				.src_port = 1,
				.dst_port = 2,
				.type = VSOCK_TYPE_STREAM,
				.op = 99};

	post_rx(8, RX_BUF_SZ);
	queue_tx_raw("short", 5, NULL, 0, 0);			  /* truncated header */
	queue_tx(VSOCK_OP_REQUEST, CID + 1, 1, 1234, NULL, 0, 0); /* spoofed source */
	vsock_hdr_encode(&bad, raw);
	queue_tx_raw(raw, sizeof(raw), NULL, 0, 0); /* unknown op: RST */
	bad.op = VSOCK_OP_RW;
	bad.len = 500;
	vsock_hdr_encode(&bad, raw);
	queue_tx_raw(raw, sizeof(raw), "x", 1, 0); /* len beyond the chain */
	bad.len = 0;
	bad.op = VSOCK_OP_REQUEST;
	vsock_hdr_encode(&bad, raw);
	queue_tx_raw(raw, sizeof(raw), NULL, 0, VIRTQ_DESC_F_WRITE); /* no readable part */
	dev->ops->queue_notify(dev, VVSOCK_QUEUE_TX);
	ck_assert_uint_eq(vtest_used_idx(&g, txq()), 5);
	ck_assert_int_eq(take_rx(&h, NULL, 0), VSOCK_OP_RST);
	ck_assert_uint_eq(h.dst_port, 1);
	ck_assert_uint_eq(h.src_port, 2);
	ck_assert_int_eq(take_rx(&h, NULL, 0), -1);
	vvsock_get_stats(dev, &st);
	ck_assert_uint_eq(st.tx_dropped, 4);
	ck_assert_uint_eq(st.tx_refused, 1);
	ck_assert_uint_eq(st.tx_packets, 0);
}
END_TEST

START_TEST(test_device_skips_tiny_rx_buffers)
{
	struct vsock_hdr h;
	struct vvsock_stats st;

	post_rx(1, 20); /* cannot hold a header */
	send_tx(VSOCK_OP_REQUEST, 5000, 999, NULL, 0, 0);
	ck_assert_int_eq(take_rx(&h, NULL, 0), 0); /* returned empty */
	ck_assert_int_eq(take_rx(&h, NULL, 0), -1);
	post_rx(1, RX_BUF_SZ);
	ck_assert_int_eq(take_rx(&h, NULL, 0), VSOCK_OP_RST);
	vvsock_get_stats(dev, &st);
	ck_assert_uint_eq(st.bad_chains, 1);
}
END_TEST

START_TEST(test_device_stalls_tx_while_answers_cannot_be_delivered)
{
	enum {
		N = VSOCK_MUX_MAX_RST + 20
	};
	struct vsock_hdr h;
	unsigned rst = 0;

	for (unsigned i = 0; i < N; i++)
		queue_tx(VSOCK_OP_RW, CID, 6000 + i, 7, "z", 1, 0);
	dev->ops->queue_notify(dev, VVSOCK_QUEUE_TX);
	/* Without rx buffers only as many packets are taken as RSTs can be queued. */
	ck_assert_uint_eq(vtest_used_idx(&g, txq()), VSOCK_MUX_MAX_RST);
	post_rx(RX_NUM, RX_BUF_SZ);
	ck_assert_uint_eq(vtest_used_idx(&g, txq()), N);
	while (take_rx(&h, NULL, 0) == VSOCK_OP_RST) {
		ck_assert_uint_eq(h.dst_port, 6000 + rst);
		rst++;
	}
	ck_assert_uint_eq(rst, N);
}
END_TEST

static void *run_loop(void *arg)
{
	(void) evloop_run(arg);
	return NULL;
}

START_TEST(test_device_yields_to_the_event_loop)
{
	enum {
		N = 200
	};
	int lfd = listen_port(1234), afd;
	struct vsock_hdr h;
	pthread_t th;

	post_rx(1, RX_BUF_SZ);
	send_tx(VSOCK_OP_REQUEST, 5000, 1234, NULL, 0, 0);
	ck_assert_int_eq(take_rx(&h, NULL, 0), VSOCK_OP_RESPONSE);
	afd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	/* A burst of packets that need no answer: one run takes a budget's worth only. */
	for (unsigned i = 0; i < N; i++)
		queue_tx(VSOCK_OP_CREDIT_UPDATE, CID, 5000, 1234, NULL, 0, 0);
	dev->ops->queue_notify(dev, VVSOCK_QUEUE_TX);
	ck_assert_uint_eq(vtest_used_idx(&g, txq()), 1 + 128);
	/* The event loop picks the rest up without another kick. */
	ck_assert_int_eq(pthread_create(&th, NULL, run_loop, loop), 0);
	for (int i = 0; i < 500 && vtest_used_idx(&g, txq()) != 1 + N; i++)
		usleep(10000);
	evloop_stop(loop);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	ck_assert_uint_eq(vtest_used_idx(&g, txq()), 1 + N);
	close(afd);
	close(lfd);
}
END_TEST

START_TEST(test_device_reset_drops_connections)
{
	int lfd = listen_port(1234), afd;
	struct vsock_hdr h;
	char c;

	post_rx(4, RX_BUF_SZ);
	send_tx(VSOCK_OP_REQUEST, 5000, 1234, NULL, 0, 0);
	ck_assert_int_eq(take_rx(&h, NULL, 0), VSOCK_OP_RESPONSE);
	afd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	dev->ops->reset(dev);
	ck_assert_int_eq(read(afd, &c, 1), 0);
	/* Until the driver activates again, kicks do nothing. */
	memset(vtest_hva(&g, VTEST_AVAIL), 0, 6 + 2 * RX_NUM);
	memset(vtest_hva(&g, VTEST_USED), 0, 6 + 8 * RX_NUM);
	memset(vtest_hva(&g, TX_AVAIL), 0, 6 + 2 * TX_NUM);
	memset(vtest_hva(&g, TX_USED), 0, 6 + 8 * TX_NUM);
	vtest_vq_setup(&g, rxq(), RX_NUM);
	vtest_vq_setup(&g, txq(), TX_NUM);
	txq()->desc_gpa = TX_DESC;
	txq()->avail_gpa = TX_AVAIL;
	txq()->used_gpa = TX_USED;
	rx_posted = rx_seen = tx_sent = 0;
	post_rx(1, RX_BUF_SZ);
	ck_assert_uint_eq(vtest_used_idx(&g, rxq()), 0);
	ASSERT_OK(dev->ops->activate(dev, 0));
	/* The old connection is gone for good: its packets get an RST. */
	send_tx(VSOCK_OP_RW, 5000, 1234, "x", 1, 0);
	ck_assert_int_eq(take_rx(&h, NULL, 0), VSOCK_OP_RST);
	ck_assert_uint_eq(vtest_used_idx(&g, txq()), 1);
	close(afd);
	close(lfd);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vsock-device");
	TCase *tc = tcase_create("device");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_device_identity_and_config);
	tcase_add_test(tc, test_device_new_checks_arguments);
	tcase_add_test(tc, test_device_guest_to_host_stream);
	tcase_add_test(tc, test_device_host_to_guest_stream);
	tcase_add_test(tc, test_device_splits_data_over_rx_buffers);
	tcase_add_test(tc, test_device_fills_split_rx_buffers);
	tcase_add_test(tc, test_device_drops_or_resets_bad_packets);
	tcase_add_test(tc, test_device_skips_tiny_rx_buffers);
	tcase_add_test(tc, test_device_stalls_tx_while_answers_cannot_be_delivered);
	tcase_add_test(tc, test_device_yields_to_the_event_loop);
	tcase_add_test(tc, test_device_reset_drops_connections);
	suite_add_tcase(s, tc);
	return cctest_run_suite(s);
}
