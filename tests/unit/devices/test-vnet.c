/* SPDX-License-Identifier: Apache-2.0 */
/*
 * virtio-net device model against fake guest memory, with the socket backend on one end of a
 * SOCK_SEQPACKET socketpair standing in for the tap: the test holds the other end ("host").
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/macro.h"
#include "cctest.h"
#include "base/evloop.h"
#include "devtest.h"
#include "net/netbe-sock.h"
#include "net/vnet-hdr.h"
#include "net/vnet.h"

#define ALL_OFFLOADS (NETBE_OFFLOAD_CSUM | NETBE_OFFLOAD_TSO4 | NETBE_OFFLOAD_TSO6)
#define F(bit)	     (1ull << (bit))

static struct dt_guest g;
static struct dt_queue rxq, txq;
static struct dt_transport t;
static struct vdev *dev;
static struct net_backend *be;
static int host = -1;

static void make_dev(unsigned offloads, const struct vnet_config *cfg)
{
	static const struct vnet_config def = {
		.tap_fd = -1, .has_mac = true, .mac = {0x02, 0x11, 0x22, 0x33, 0x44, 0x55}};
	int sv[2];

	dt_guest_init(&g);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	host = sv[0];
	ASSERT_OK(netbe_sock_new(sv[1], offloads, &be));
	ASSERT_OK(vnet_new_with_backend(cfg ? cfg : &def, be, &dev));
	dt_transport_attach(&t, dev);
	dt_queue_init(&rxq, &g, dev, VNET_RXQ, 256);
	dt_queue_init(&txq, &g, dev, VNET_TXQ, 256);
}

static void activate(uint64_t features)
{
	ASSERT_OK(dev->ops->activate(dev, features | F(VIRTIO_F_VERSION_1)));
}

static void setup(void)
{
	make_dev(ALL_OFFLOADS, NULL);
}

static void teardown(void)
{
	if (dev)
		dev->ops->free(dev);
	dev = NULL;
	host = safe_close(host);
	dt_guest_done(&g);
}

static void fill_frame(uint8_t *p, size_t len, uint8_t seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t) (seed + i * 13 + i / 256);
}

/* The host sends one packet: a header (zeroed but for num_buffers garbage) + frame. */
static void host_send(size_t frame_len, uint8_t seed)
{
	_cleanup_free_ uint8_t *pkt = calloc(1, VNET_HDR_LEN + frame_len);

	ck_assert_ptr_nonnull(pkt);
	pkt[10] = 0xaa; /* num_buffers: the device must overwrite it */
	pkt[11] = 0xbb;
	fill_frame(pkt + VNET_HDR_LEN, frame_len, seed);
	ck_assert_int_eq(send(host, pkt, VNET_HDR_LEN + frame_len, 0),
			 (ssize_t) (VNET_HDR_LEN + frame_len));
}

/* The host's next packet, or -1 if none. */
static ssize_t host_recv(uint8_t *buf, size_t len)
{
	return recv(host, buf, len, MSG_DONTWAIT);
}

/* Guest: one writable rx buffer of len bytes. */
static uint8_t *post_rx(uint32_t len, uint16_t *ret_head)
{
	uint64_t gpa;
	uint8_t *p = dt_alloc(&g, len, &gpa);
	struct dt_buf b = {gpa, len, true};
	uint16_t head = dt_queue_add(&rxq, &b, 1);

	if (ret_head)
		*ret_head = head;
	return p;
}

/* Guest: a tx chain with the header and the frame in separate buffers. */
static void send_tx(const struct virtio_net_hdr_v1 *hdr, size_t frame_len, uint8_t seed)
{
	uint64_t hgpa, fgpa;
	uint8_t *h = dt_alloc(&g, VNET_HDR_LEN, &hgpa), *f = dt_alloc(&g, frame_len, &fgpa);
	struct dt_buf b[2] = {{hgpa, VNET_HDR_LEN, false}, {fgpa, (uint32_t) frame_len, false}};

	memcpy(h, hdr, VNET_HDR_LEN);
	fill_frame(f, frame_len, seed);
	dt_queue_add(&txq, b, 2);
}

START_TEST(test_vnet_features_and_config)
{
	uint64_t f;
	uint8_t cfg[VNET_CONFIG_SIZE];
	uint16_t status;

	activate(0);
	f = dev->ops->get_features(dev);
	ck_assert_uint_eq(dev->ops->device_id, 1);
	ck_assert(f & F(VIRTIO_NET_F_MAC));
	ck_assert(f & F(VIRTIO_NET_F_STATUS));
	ck_assert(f & F(VIRTIO_NET_F_MRG_RXBUF));
	ck_assert(f & F(VIRTIO_NET_F_CSUM));
	ck_assert(f & F(VIRTIO_NET_F_HOST_TSO4));
	ck_assert(f & F(VIRTIO_NET_F_HOST_TSO6));
	ck_assert(f & F(VIRTIO_NET_F_GUEST_CSUM));
	ck_assert(f & F(VIRTIO_NET_F_GUEST_TSO4));
	ck_assert(f & F(VIRTIO_NET_F_GUEST_TSO6));
	ck_assert(!(f & F(VIRTIO_NET_F_HOST_UFO)));
	ck_assert(!(f & F(VIRTIO_NET_F_GUEST_UFO)));
	dev->ops->config_read(dev, 0, cfg, sizeof(cfg));
	ck_assert_mem_eq(cfg, "\x02\x11\x22\x33\x44\x55", 6);
	memcpy(&status, cfg + 6, 2);
	ck_assert_uint_eq(status, VIRTIO_NET_S_LINK_UP);
}
END_TEST

START_TEST(test_vnet_no_backend_offloads_no_guest_features)
{
	uint64_t f;

	teardown();
	make_dev(0, NULL);
	f = dev->ops->get_features(dev);
	ck_assert(!(f & F(VIRTIO_NET_F_GUEST_CSUM)));
	ck_assert(!(f & F(VIRTIO_NET_F_GUEST_TSO4)));
	ck_assert(f & F(VIRTIO_NET_F_HOST_TSO4)); /* tx offloads need nothing from the backend */
}
END_TEST

START_TEST(test_vnet_random_mac)
{
	struct vnet_config cfg = {.tap_fd = -1};
	uint8_t mac[6], mac2[6];

	teardown();
	make_dev(0, &cfg);
	vnet_get_mac(dev, mac);
	ck_assert_uint_eq(mac[0] & 1, 0); /* unicast */
	ck_assert_uint_eq(mac[0] & 2, 2); /* locally administered */
	teardown();
	make_dev(0, &cfg);
	vnet_get_mac(dev, mac2);
	ck_assert(memcmp(mac, mac2, 6) != 0);
	cfg.has_mac = true;
	cfg.mac[0] = 0x01; /* multicast */
	int sv[2];
	struct net_backend *b2;
	struct vdev *d2;
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	close(sv[0]);
	ASSERT_OK(netbe_sock_new(sv[1], 0, &b2));
	ASSERT_ERRNO(vnet_new_with_backend(&cfg, b2, &d2), EINVAL);
}
END_TEST

START_TEST(test_vnet_activate_sets_offloads)
{
	activate(F(VIRTIO_NET_F_GUEST_CSUM) | F(VIRTIO_NET_F_GUEST_TSO4));
	ck_assert_uint_eq(netbe_sock_enabled_offloads(be), NETBE_OFFLOAD_CSUM | NETBE_OFFLOAD_TSO4);
	dev->ops->reset(dev);
	ck_assert_uint_eq(netbe_sock_enabled_offloads(be), 0);
	/* TSO without checksum offload is refused (virtio 1.x 5.1.3.1). */
	ASSERT_ERRNO(dev->ops->activate(dev, F(VIRTIO_NET_F_GUEST_TSO6)), EINVAL);
	ASSERT_ERRNO(dev->ops->activate(dev, F(VIRTIO_NET_F_HOST_TSO4)), EINVAL);
	/* Both queues must be set up. */
	dev->queues[VNET_RXQ].ready = false;
	ASSERT_ERRNO(dev->ops->activate(dev, 0), EINVAL);
	dev->queues[VNET_RXQ].ready = true;
	ASSERT_OK(dev->ops->activate(dev, 0));
}
END_TEST

START_TEST(test_vnet_tx)
{
	struct virtio_net_hdr_v1 hdr = {.num_buffers = 0x1234};
	uint8_t buf[2048], expect[1000];
	uint32_t id, len;
	struct vnet_stats st;

	activate(0);
	send_tx(&hdr, 1000, 7);
	dev->ops->queue_notify(dev, VNET_TXQ);
	ck_assert_int_eq(host_recv(buf, sizeof(buf)), VNET_HDR_LEN + 1000);
	hdr.num_buffers = 0; /* zeroed on the way out */
	ck_assert_mem_eq(buf, &hdr, VNET_HDR_LEN);
	fill_frame(expect, 1000, 7);
	ck_assert_mem_eq(buf + VNET_HDR_LEN, expect, 1000);
	ck_assert(dt_queue_used(&txq, &id, &len));
	ck_assert_uint_eq(len, 0);
	ck_assert_uint_eq(t.used_irqs, 1);
	vnet_get_stats(dev, &st);
	ck_assert_uint_eq(st.tx_packets, 1);
	ck_assert_uint_eq(st.tx_bytes, 1000);
}
END_TEST

START_TEST(test_vnet_tx_split_header_and_offloads)
{
	uint64_t gpa;
	uint8_t *p = dt_alloc(&g, VNET_HDR_LEN + 3000, &gpa), buf[4096];
	struct virtio_net_hdr_v1 hdr = {
		.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
		.gso_type = VIRTIO_NET_HDR_GSO_TCPV4,
		.hdr_len = 54,
		.gso_size = 1448,
		.csum_start = 34,
		.csum_offset = 16,
	};
	/* The header split 5 + 7, the frame in three pieces. */
	struct dt_buf b[] = {{gpa, 5, false},
			     {gpa + 5, 7, false},
			     {gpa + 12, 100, false},
			     {gpa + 112, 1900, false},
			     {gpa + 2012, 1000, false}};

	activate(F(VIRTIO_NET_F_CSUM) | F(VIRTIO_NET_F_HOST_TSO4));
	memcpy(p, &hdr, VNET_HDR_LEN);
	fill_frame(p + VNET_HDR_LEN, 3000, 3);
	dt_queue_add(&txq, b, ARRAY_SIZE(b));
	dev->ops->queue_notify(dev, VNET_TXQ);
	ck_assert_int_eq(host_recv(buf, sizeof(buf)), VNET_HDR_LEN + 3000);
	ck_assert_mem_eq(buf, &hdr, VNET_HDR_LEN);
	ck_assert_mem_eq(buf + VNET_HDR_LEN, p + VNET_HDR_LEN, 3000);
}
END_TEST

START_TEST(test_vnet_tx_rejects_bad_headers)
{
	struct virtio_net_hdr_v1 csum = {
		.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM, .csum_start = 34, .csum_offset = 6};
	struct virtio_net_hdr_v1 csum_out = {
		.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM, .csum_start = 90, .csum_offset = 9};
	struct virtio_net_hdr_v1 tso6 = {.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
					 .gso_type = VIRTIO_NET_HDR_GSO_TCPV6,
					 .gso_size = 1400,
					 .csum_start = 54,
					 .csum_offset = 16};
	struct virtio_net_hdr_v1 ufo = {.gso_type = VIRTIO_NET_HDR_GSO_UDP, .gso_size = 1400};
	struct virtio_net_hdr_v1 ecn = {
		.gso_type = VIRTIO_NET_HDR_GSO_TCPV4 | VIRTIO_NET_HDR_GSO_ECN, .gso_size = 1400};
	struct virtio_net_hdr_v1 nosize = {.gso_type = VIRTIO_NET_HDR_GSO_TCPV4};
	struct virtio_net_hdr_v1 valid = {.flags = VIRTIO_NET_HDR_F_DATA_VALID};
	struct virtio_net_hdr_v1 zero = {0};
	uint8_t buf[128];
	uint32_t id, len;
	unsigned n = 0;
	struct vnet_stats st;

	/* Checksum offload and TSO4 negotiated, not TSO6/UFO/ECN. */
	activate(F(VIRTIO_NET_F_CSUM) | F(VIRTIO_NET_F_HOST_TSO4));
	send_tx(&csum_out, 100, 0); /* checksum field beyond the frame */
	send_tx(&tso6, 2000, 0);
	send_tx(&ufo, 2000, 0);
	send_tx(&ecn, 2000, 0);
	send_tx(&nosize, 2000, 0);
	send_tx(&valid, 100, 0); /* a receive-only flag */
	send_tx(&zero, 13, 0);	 /* shorter than an Ethernet header */
	send_tx(&zero, VNET_MAX_FRAME + 1, 0);
	/* A chain shorter than the header, and one with a writable buffer. */
	uint64_t gpa;
	(void) dt_alloc(&g, 64, &gpa);
	struct dt_buf short_chain = {gpa, 8, false};
	dt_queue_add(&txq, &short_chain, 1);
	struct dt_buf with_in[] = {{gpa, 12, false}, {gpa + 12, 50, true}};
	dt_queue_add(&txq, with_in, 2);
	dev->ops->queue_notify(dev, VNET_TXQ);
	ck_assert_int_lt(host_recv(buf, sizeof(buf)), 0); /* nothing reached the host */
	while (dt_queue_used(&txq, &id, &len)) {
		ck_assert_uint_eq(len, 0);
		n++;
	}
	ck_assert_uint_eq(n, 10);
	vnet_get_stats(dev, &st);
	ck_assert_uint_eq(st.malformed, 10);
	ck_assert_uint_eq(st.tx_packets, 0);
	/* The same checksum header, valid, gets through. */
	send_tx(&csum, 100, 0);
	dev->ops->queue_notify(dev, VNET_TXQ);
	ck_assert_int_eq(host_recv(buf, sizeof(buf)), VNET_HDR_LEN + 100);
	/* And it is refused when CSUM was not negotiated. */
	dev->ops->reset(dev);
	dt_queue_init(&txq, &g, dev, VNET_TXQ, 256);
	activate(0);
	send_tx(&csum, 100, 0);
	dev->ops->queue_notify(dev, VNET_TXQ);
	ck_assert_int_lt(host_recv(buf, sizeof(buf)), 0);
}
END_TEST

static uint16_t num_buffers(const uint8_t *hdr)
{
	return (uint16_t) (hdr[10] | hdr[11] << 8);
}

START_TEST(test_vnet_rx_single_buffer)
{
	uint8_t *p, expect[1500];
	uint16_t head;
	uint32_t id, len;

	activate(0);
	p = post_rx(VNET_HDR_LEN + 1514, &head);
	host_send(1500, 9);
	vnet_rx_poll(dev);
	ck_assert(dt_queue_used(&rxq, &id, &len));
	ck_assert_uint_eq(id, head);
	ck_assert_uint_eq(len, VNET_HDR_LEN + 1500);
	ck_assert_uint_eq(num_buffers(p), 1);
	fill_frame(expect, 1500, 9);
	ck_assert_mem_eq(p + VNET_HDR_LEN, expect, 1500);
	ck_assert_uint_eq(t.used_irqs, 1);
}
END_TEST

START_TEST(test_vnet_rx_mergeable)
{
	uint8_t *b[3], expect[5000];
	uint16_t heads[3];
	uint32_t id, len;

	activate(F(VIRTIO_NET_F_MRG_RXBUF));
	for (unsigned i = 0; i < 3; i++)
		b[i] = post_rx(2048, &heads[i]);
	host_send(5000, 1);
	vnet_rx_poll(dev);
	fill_frame(expect, 5000, 1);
	ck_assert(dt_queue_used(&rxq, &id, &len));
	ck_assert_uint_eq(id, heads[0]);
	ck_assert_uint_eq(len, 2048);
	ck_assert_uint_eq(num_buffers(b[0]), 3);
	ck_assert_mem_eq(b[0] + VNET_HDR_LEN, expect, 2048 - VNET_HDR_LEN);
	ck_assert(dt_queue_used(&rxq, &id, &len));
	ck_assert_uint_eq(id, heads[1]);
	ck_assert_uint_eq(len, 2048);
	ck_assert_mem_eq(b[1], expect + 2036, 2048);
	ck_assert(dt_queue_used(&rxq, &id, &len));
	ck_assert_uint_eq(id, heads[2]);
	ck_assert_uint_eq(len, VNET_HDR_LEN + 5000 - 4096);
	ck_assert_mem_eq(b[2], expect + 4084, 5000 - 4084);
	ck_assert(!dt_queue_used(&rxq, &id, &len));
}
END_TEST

START_TEST(test_vnet_rx_header_split_across_descriptors)
{
	uint64_t gpa;
	uint8_t *p = dt_alloc(&g, 2000, &gpa);
	/* num_buffers straddles the first two descriptors (bytes 10 | 11). */
	struct dt_buf b[] = {{gpa, 11, true}, {gpa + 11, 1989, true}};
	uint32_t id, len;

	activate(F(VIRTIO_NET_F_MRG_RXBUF));
	dt_queue_add(&rxq, b, 2);
	host_send(100, 0);
	vnet_rx_poll(dev);
	ck_assert(dt_queue_used(&rxq, &id, &len));
	ck_assert_uint_eq(len, VNET_HDR_LEN + 100);
	ck_assert_uint_eq(num_buffers(p), 1);
}
END_TEST

START_TEST(test_vnet_rx_empty_queue_then_kick)
{
	uint8_t *p;
	uint32_t id, len;

	activate(F(VIRTIO_NET_F_MRG_RXBUF));
	host_send(600, 4);
	vnet_rx_poll(dev);
	ck_assert(vnet_rx_paused(dev));
	ck_assert(!dt_queue_used(&rxq, &id, &len));
	ck_assert_uint_eq(t.used_irqs, 0);
	p = post_rx(4096, NULL);
	post_rx(4096, NULL); /* a spare: reading the backend goes on afterwards */
	dev->ops->queue_notify(dev, VNET_RXQ);
	ck_assert(!vnet_rx_paused(dev));
	ck_assert(dt_queue_used(&rxq, &id, &len));
	ck_assert_uint_eq(len, VNET_HDR_LEN + 600);
	ck_assert_uint_eq(num_buffers(p), 1);
}
END_TEST

START_TEST(test_vnet_rx_runs_out_mid_packet)
{
	uint8_t *first, *second, *third, expect[5000];
	uint32_t id, len;

	activate(F(VIRTIO_NET_F_MRG_RXBUF));
	first = post_rx(2048, NULL);
	host_send(5000, 2);
	host_send(100, 3);
	vnet_rx_poll(dev);
	ck_assert(vnet_rx_paused(dev));
	ck_assert(!dt_queue_used(&rxq, &id, &len)); /* nothing returned until complete */
	second = post_rx(2048, NULL);
	third = post_rx(2048, NULL);
	dev->ops->queue_notify(dev, VNET_RXQ);
	fill_frame(expect, 5000, 2);
	ck_assert_uint_eq(num_buffers(first), 3);
	ck_assert_mem_eq(second, expect + 2036, 2048);
	ck_assert_mem_eq(third, expect + 4084, 5000 - 4084);
	for (unsigned i = 0; i < 3; i++)
		ck_assert(dt_queue_used(&rxq, &id, &len));
	/* The second packet waits for a buffer again. */
	ck_assert(vnet_rx_paused(dev));
	post_rx(2048, NULL);
	dev->ops->queue_notify(dev, VNET_RXQ);
	ck_assert(dt_queue_used(&rxq, &id, &len));
	ck_assert_uint_eq(len, VNET_HDR_LEN + 100);
}
END_TEST

START_TEST(test_vnet_rx_oversize_and_runt_dropped)
{
	_cleanup_free_ uint8_t *big = calloc(1, VNET_HDR_LEN + VNET_MAX_FRAME + 1);
	uint32_t id, len;
	struct vnet_stats st;
	int sz = 1 << 20;

	activate(F(VIRTIO_NET_F_MRG_RXBUF));
	ck_assert_int_eq(setsockopt(host, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz)), 0);
	for (unsigned i = 0; i < 40; i++)
		post_rx(2048, NULL);
	ck_assert_int_eq(send(host, big, VNET_HDR_LEN + VNET_MAX_FRAME + 1, 0),
			 (ssize_t) (VNET_HDR_LEN + VNET_MAX_FRAME + 1));
	ck_assert_int_eq(send(host, big, VNET_HDR_LEN + 5, 0), VNET_HDR_LEN + 5);
	host_send(VNET_MAX_FRAME, 5); /* the largest allowed: 33 buffers */
	vnet_rx_poll(dev);
	vnet_get_stats(dev, &st);
	ck_assert_uint_eq(st.rx_dropped, 2);
	ck_assert_uint_eq(st.rx_packets, 1);
	ck_assert(dt_queue_used(&rxq, &id, &len));
	ck_assert_uint_eq(len, 2048);
}
END_TEST

START_TEST(test_vnet_rx_small_chain_without_mrg)
{
	uint8_t *p;
	uint32_t id, len;
	struct vnet_stats st;

	activate(0);
	post_rx(VNET_HDR_LEN + 1000, NULL);
	p = post_rx(VNET_HDR_LEN + 3000, NULL);
	host_send(2000, 0); /* does not fit the first chain: dropped, chain returned empty */
	host_send(2000, 1);
	vnet_rx_poll(dev);
	ck_assert(dt_queue_used(&rxq, &id, &len));
	ck_assert_uint_eq(len, 0);
	ck_assert(dt_queue_used(&rxq, &id, &len));
	ck_assert_uint_eq(len, VNET_HDR_LEN + 2000);
	ck_assert_uint_eq(p[VNET_HDR_LEN], 1); /* seed 1: the second packet */
	vnet_get_stats(dev, &st);
	ck_assert_uint_eq(st.rx_dropped, 1);
}
END_TEST

START_TEST(test_vnet_rx_malformed_chain_skipped)
{
	uint64_t gpa;
	uint32_t id, len;
	uint8_t *good;

	activate(F(VIRTIO_NET_F_MRG_RXBUF));
	(void) dt_alloc(&g, 2048, &gpa);
	struct dt_buf readable = {gpa, 2048, false};
	struct dt_buf tiny = {gpa, 4, true}; /* smaller than a header */
	dt_queue_add(&rxq, &readable, 1);
	dt_queue_add(&rxq, &tiny, 1);
	good = post_rx(2048, NULL);
	host_send(300, 0);
	vnet_rx_poll(dev);
	ck_assert(dt_queue_used(&rxq, &id, &len));
	ck_assert_uint_eq(len, 0);
	ck_assert(dt_queue_used(&rxq, &id, &len));
	ck_assert_uint_eq(len, 0);
	ck_assert(dt_queue_used(&rxq, &id, &len));
	ck_assert_uint_eq(len, VNET_HDR_LEN + 300);
	ck_assert_uint_eq(num_buffers(good), 1);
}
END_TEST

START_TEST(test_vnet_rx_broken_queue_fails_device)
{
	activate(0);
	host_send(100, 0);
	dt_queue_set_avail_idx(&rxq, 1000);
	vnet_rx_poll(dev);
	dev->ops->queue_notify(dev, VNET_RXQ);
	ck_assert_uint_ge(t.needs_reset, 1);
}
END_TEST

START_TEST(test_vnet_inactive_ignores_kicks)
{
	struct virtio_net_hdr_v1 hdr = {0};
	uint8_t buf[256];
	uint32_t id, len;

	send_tx(&hdr, 100, 0);
	dev->ops->queue_notify(dev, VNET_TXQ);
	ck_assert(!dt_queue_used(&txq, &id, &len));
	ck_assert_int_lt(host_recv(buf, sizeof(buf)), 0);
}
END_TEST

static void *loop_thread(void *loop)
{
	(void) evloop_run(loop);
	return NULL;
}

static bool wait_used(uint32_t *ret_len)
{
	uint32_t id;

	for (unsigned i = 0; i < 2000; i++) {
		if (dt_queue_used(&rxq, &id, ret_len))
			return true;
		(void) usleep(1000);
	}
	return false;
}

static void noop_cb(void *userdata, uint32_t events)
{
	(void) userdata;
	(void) events;
}

static double cpu_seconds(void)
{
	struct timespec ts;

	ck_assert_int_eq(clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts), 0);
	return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

/* On the event loop: packets flow on EPOLLIN; with no buffers the fd is not watched (no busy
 * loop) and a kick resumes. */
START_TEST(test_vnet_rx_event_loop)
{
	struct evloop *loop;
	pthread_t th;
	uint32_t id, len;
	double cpu;

	ASSERT_OK(evloop_new(&loop));
	dev->loop = loop;
	activate(F(VIRTIO_NET_F_MRG_RXBUF));
	post_rx(2048, NULL);
	post_rx(2048, NULL);
	/* The driver kicks after posting buffers: that starts watching the backend. */
	dev->ops->queue_notify(dev, VNET_RXQ);
	ck_assert_int_eq(pthread_create(&th, NULL, loop_thread, loop), 0);
	host_send(500, 1);
	ck_assert(wait_used(&len));
	ck_assert_uint_eq(len, VNET_HDR_LEN + 500);
	host_send(500, 2);
	ck_assert(wait_used(&len));
	host_send(500, 3); /* no buffer left for this one */
	cpu = cpu_seconds();
	(void) usleep(300 * 1000);
	ck_assert_double_lt(cpu_seconds() - cpu, 0.1);
	ck_assert(vnet_rx_paused(dev));
	/* New buffers and a kick (here from this thread, as a vCPU's QueueNotify would). */
	post_rx(2048, NULL);
	post_rx(2048, NULL); /* a spare: the fd stays watched */
	dev->ops->queue_notify(dev, VNET_RXQ);
	ck_assert(wait_used(&len));
	ck_assert_uint_eq(len, VNET_HDR_LEN + 500);
	ck_assert(!vnet_rx_paused(dev));
	/* A reset (a vCPU thread) while the loop runs: the next event unregisters the fd on the
	 * loop thread and touches no queue. */
	dev->ops->reset(dev);
	post_rx(2048, NULL);
	host_send(500, 4);
	/* The loop thread unregisters the fd at that event; give a loaded machine 10 s. */
	for (int i = 0; i < 1000 && vnet_rx_watching(dev); i++)
		(void) usleep(10 * 1000);
	ck_assert(!vnet_rx_watching(dev));
	evloop_stop(loop);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	ck_assert(!dt_queue_used(&rxq, &id, &len));
	ck_assert_int_eq(evloop_add(loop, be->ops->fd(be), 1, noop_cb, NULL), 0); /* unregistered */
	ck_assert_int_eq(evloop_remove(loop, be->ops->fd(be)), 0);
	dev->ops->free(dev);
	dev = NULL;
	evloop_free(loop);
}
END_TEST

START_TEST(test_vnet_config_parse)
{
	struct vnet_config c;

	ASSERT_OK(vnet_config_parse("tap=tap0", &c));
	ck_assert_str_eq(c.tap_name, "tap0");
	ck_assert_int_eq(c.tap_fd, -1);
	ck_assert(!c.has_mac);
	ASSERT_OK(vnet_config_parse("fd=7,mac=02:aB:cd:00:11:ff", &c));
	ck_assert_int_eq(c.tap_fd, 7);
	ck_assert_str_eq(c.tap_name, "");
	ck_assert(c.has_mac);
	ck_assert_mem_eq(c.mac, "\x02\xab\xcd\x00\x11\xff", 6);
	ASSERT_OK(vnet_config_parse("mac=02:00:00:00:00:01,tap=x", &c));
	static const char *const bad[] = {
		"",
		"tap=",
		"fd=",
		"fd=-1",
		"fd=1x",
		"fd=12345678901",
		"tap=a,fd=3",
		"tap=a,tap=b",
		"tap=0123456789abcdef",
		"tap=a/b",
		"tap=a,mac=01:00:00:00:00:01",
		"tap=a,mac=02:00:00:00:00",
		"tap=a,mac=02-00-00-00-00-01",
		"tap=a,mac=02:00:00:00:00:0g",
		"tap=a,mac=02:00:00:00:00:01,mac=02:00:00:00:00:02",
		"mac=02:00:00:00:00:01",
		"tap=a,",
		"tap=a,queues=2",
		"tap",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		ck_assert_msg(vnet_config_parse(bad[i], &c) == -EINVAL, "accepted '%s'", bad[i]);
}
END_TEST

/* The backend goes away (the tap deleted, here the peer closed): epoll reports HUP forever,
 * so the device must stop watching the fd rather than spin; transmit is unaffected. */
START_TEST(test_vnet_rx_backend_gone)
{
	struct evloop *loop;
	pthread_t th;
	struct vnet_stats st;
	double cpu;

	ASSERT_OK(evloop_new(&loop));
	dev->loop = loop;
	activate(F(VIRTIO_NET_F_MRG_RXBUF));
	post_rx(2048, NULL);
	dev->ops->queue_notify(dev, VNET_RXQ);
	host = safe_close(host);
	cpu = cpu_seconds();
	ck_assert_int_eq(pthread_create(&th, NULL, loop_thread, loop), 0);
	(void) usleep(300 * 1000);
	evloop_stop(loop);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	ck_assert_double_lt(cpu_seconds() - cpu, 0.1);
	vnet_get_stats(dev, &st);
	ck_assert_uint_ge(st.rx_errors, 1);
	ck_assert_uint_le(st.rx_errors, 2);
	/* It was removed from the loop: registering the fd again works. */
	ck_assert_int_eq(evloop_add(loop, be->ops->fd(be), 1, noop_cb, NULL), 0);
	ck_assert_int_eq(evloop_remove(loop, be->ops->fd(be)), 0);
	dev->ops->free(dev);
	dev = NULL;
	evloop_free(loop);
}
END_TEST

static Suite *vnet_suite(void)
{
	Suite *s = suite_create("vnet");
	TCase *tc = tcase_create("device");
	TCase *tx = tcase_create("tx");
	TCase *rx = tcase_create("rx");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_vnet_features_and_config);
	tcase_add_test(tc, test_vnet_no_backend_offloads_no_guest_features);
	tcase_add_test(tc, test_vnet_random_mac);
	tcase_add_test(tc, test_vnet_activate_sets_offloads);
	tcase_add_test(tc, test_vnet_inactive_ignores_kicks);
	tcase_add_test(tc, test_vnet_config_parse);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(tx, setup, teardown);
	tcase_add_test(tx, test_vnet_tx);
	tcase_add_test(tx, test_vnet_tx_split_header_and_offloads);
	tcase_add_test(tx, test_vnet_tx_rejects_bad_headers);
	tcase_set_timeout(tx, 30);
	suite_add_tcase(s, tx);

	tcase_add_checked_fixture(rx, setup, teardown);
	tcase_add_test(rx, test_vnet_rx_single_buffer);
	tcase_add_test(rx, test_vnet_rx_mergeable);
	tcase_add_test(rx, test_vnet_rx_header_split_across_descriptors);
	tcase_add_test(rx, test_vnet_rx_empty_queue_then_kick);
	tcase_add_test(rx, test_vnet_rx_runs_out_mid_packet);
	tcase_add_test(rx, test_vnet_rx_oversize_and_runt_dropped);
	tcase_add_test(rx, test_vnet_rx_small_chain_without_mrg);
	tcase_add_test(rx, test_vnet_rx_malformed_chain_skipped);
	tcase_add_test(rx, test_vnet_rx_broken_queue_fails_device);
	tcase_add_test(rx, test_vnet_rx_event_loop);
	tcase_add_test(rx, test_vnet_rx_backend_gone);
	tcase_set_timeout(rx, 30);
	suite_add_tcase(s, rx);
	return s;
}

int main(void)
{
	return cctest_run_suite(vnet_suite());
}
