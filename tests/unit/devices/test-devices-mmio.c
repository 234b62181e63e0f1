/* SPDX-License-Identifier: Apache-2.0 */
/*
 * net, blk and rng behind the real virtio-mmio transport, with the event loop on its own
 * thread: a fake driver programs the registers (features, queues, DRIVER_OK), posts chains and
 * kicks through QueueNotify, as Linux's drivers do.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "blk/blkbe-mem.h"
#include "blk/vblk.h"
#include "cc/cleanup.h"
#include "cctest.h"
#include "base/evloop.h"
#include "devtest.h"
#include "net/netbe-sock.h"
#include "net/vnet-hdr.h"
#include "net/vnet.h"
#include "rng/vrng.h"
#include "virtio/mmio.h"

#define BASE 0xd0000000ull
#define NUM  64

static struct dt_guest g;
static struct evloop *loop;
static pthread_t loop_thread;
static struct vtrans_mmio *t;
static struct vdev *dev;
static struct dt_queue qs[2];
static unsigned irqs;
static int host = -1;

static void *loop_main(void *arg)
{
	(void) evloop_run(arg);
	return NULL;
}

static int count_irq(void *opaque)
{
	(void) opaque;
	__atomic_fetch_add(&irqs, 1, __ATOMIC_RELAXED);
	return 0;
}

static const struct irq_line_ops irq_ops = {.trigger = count_irq};

static uint32_t rd(uint64_t off)
{
	uint32_t v = 0;

	vtrans_mmio_iobus_ops.read(t, off, &v, 4);
	return v;
}

static void wr(uint64_t off, uint32_t v)
{
	vtrans_mmio_iobus_ops.write(t, off, &v, 4);
}

/* Reset, negotiate features (device bits & want, plus VERSION_1), set queues up, DRIVER_OK. */
static void driver_init(uint32_t device_id, uint32_t want, unsigned n_queues)
{
	wr(0x070, 0);
	ck_assert_uint_eq(rd(0x000), 0x74726976); /* "virt" */
	ck_assert_uint_eq(rd(0x008), device_id);
	wr(0x070, 1);
	wr(0x070, 1 | 2);
	wr(0x014, 0);
	want &= rd(0x010);
	wr(0x024, 0);
	wr(0x020, want);
	wr(0x024, 1);
	wr(0x020, 1); /* VERSION_1 */
	wr(0x070, 1 | 2 | 8);
	ck_assert_uint_eq(rd(0x070), 1 | 2 | 8);
	for (unsigned q = 0; q < n_queues; q++) {
		dt_queue_driver_init(&qs[q], &g, q, NUM);
		wr(0x030, q);
		wr(0x038, NUM);
		wr(0x080, (uint32_t) qs[q].desc);
		wr(0x090, (uint32_t) qs[q].avail);
		wr(0x0a0, (uint32_t) qs[q].used);
		wr(0x044, 1);
		ck_assert_uint_eq(rd(0x044), 1);
	}
	wr(0x070, 1 | 2 | 8 | 4);
	ck_assert_uint_eq(rd(0x070), 1 | 2 | 8 | 4);
}

static void start(struct vdev *d)
{
	dev = d;
	dt_guest_init(&g);
	irqs = 0;
	ASSERT_OK(evloop_new(&loop));
	ASSERT_OK(vtrans_mmio_new(
		&(struct vtrans_mmio_env){.gm = &g.gm, .loop = loop, .irq = {.ops = &irq_ops}}, dev,
		BASE, &t));
	ck_assert_int_eq(pthread_create(&loop_thread, NULL, loop_main, loop), 0);
}

static void teardown(void)
{
	evloop_stop(loop);
	pthread_join(loop_thread, NULL);
	t = vtrans_mmio_free(t);
	dev->ops->free(dev);
	loop = evloop_free(loop);
	host = safe_close(host);
	dt_guest_done(&g);
}

static bool wait_used(struct dt_queue *q, uint32_t *ret_id, uint32_t *ret_len)
{
	for (unsigned i = 0; i < 2000; i++) {
		if (dt_queue_used(q, ret_id, ret_len))
			return true;
		(void) usleep(1000);
	}
	return false;
}

START_TEST(test_mmio_net_rx_tx)
{
	struct net_backend *be;
	struct vdev *d;
	int sv[2];
	uint64_t gpa;
	uint8_t *rxbuf, pkt[12 + 600] = {0}, got[2048], mac[6];
	uint32_t id, len;
	struct vnet_config cfg = {.tap_fd = -1, .has_mac = true, .mac = {2, 0, 0, 0, 0, 9}};

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	host = sv[0];
	ASSERT_OK(netbe_sock_new(sv[1], 0, &be));
	ASSERT_OK(vnet_new_with_backend(&cfg, be, &d));
	start(d);
	driver_init(VIRTIO_ID_NET,
		    (1u << VIRTIO_NET_F_MAC) | (1u << VIRTIO_NET_F_STATUS) |
			    (1u << VIRTIO_NET_F_MRG_RXBUF) | (1u << VIRTIO_NET_F_CSUM),
		    2);
	for (unsigned i = 0; i < 6; i++)
		mac[i] = (uint8_t) rd(0x100 + i);
	ck_assert_mem_eq(mac, cfg.mac, 6);
	ck_assert_uint_eq(rd(0x106) & 0xffff, VIRTIO_NET_S_LINK_UP);

	/* rx: post, kick, the host sends. */
	rxbuf = dt_alloc(&g, 2048, &gpa);
	struct dt_buf b = {gpa, 2048, true};
	dt_queue_add(&qs[VNET_RXQ], &b, 1);
	wr(0x050, VNET_RXQ);
	memset(pkt + 12, 0xab, 600);
	ck_assert_int_eq(send(host, pkt, sizeof(pkt), 0), (ssize_t) sizeof(pkt));
	ck_assert(wait_used(&qs[VNET_RXQ], &id, &len));
	ck_assert_uint_eq(len, sizeof(pkt));
	ck_assert_uint_eq(rxbuf[10], 1);
	ck_assert_uint_eq(rxbuf[12 + 599], 0xab);
	ck_assert_uint_ge(__atomic_load_n(&irqs, __ATOMIC_RELAXED), 1);

	/* tx */
	uint8_t *txbuf = dt_alloc(&g, 12 + 100, &gpa);
	memset(txbuf + 12, 0xcd, 100);
	struct dt_buf tb = {gpa, 12 + 100, false};
	dt_queue_add(&qs[VNET_TXQ], &tb, 1);
	wr(0x050, VNET_TXQ);
	ck_assert(wait_used(&qs[VNET_TXQ], &id, &len));
	ck_assert_int_eq(recv(host, got, sizeof(got), MSG_DONTWAIT), 12 + 100);
	ck_assert_uint_eq(got[12], 0xcd);

	/* A reset from the driver while the loop runs: nothing reaches the old rings. */
	wr(0x070, 0);
	ck_assert_int_eq(send(host, pkt, sizeof(pkt), 0), (ssize_t) sizeof(pkt));
	(void) usleep(50 * 1000);
	ck_assert(!dt_queue_used(&qs[VNET_RXQ], &id, &len));
	/* And the device comes back after a new initialisation. */
	driver_init(VIRTIO_ID_NET, (1u << VIRTIO_NET_F_MRG_RXBUF), 2);
	(void) dt_alloc(&g, 2048, &gpa);
	b.gpa = gpa;
	dt_queue_add(&qs[VNET_RXQ], &b, 1);
	wr(0x050, VNET_RXQ);
	ck_assert(wait_used(&qs[VNET_RXQ], &id, &len));
	ck_assert_uint_eq(len, sizeof(pkt));
}
END_TEST

START_TEST(test_mmio_blk_read)
{
	struct blk_backend *be;
	struct vdev *d;
	uint64_t hgpa, dgpa, sgpa;
	uint8_t *hdr, *data, *st;
	uint32_t id, len, type = 0;
	uint64_t sector = 1;

	ASSERT_OK(blkbe_mem_new(8 * 512, false, "mmio", &be));
	memset(blkbe_mem_data(be) + 512, 0x3c, 512);
	ASSERT_OK(vblk_new_with_backend(be, &d));
	start(d);
	driver_init(VIRTIO_ID_BLOCK, (1u << VIRTIO_BLK_F_FLUSH) | (1u << VIRTIO_BLK_F_BLK_SIZE), 1);
	ck_assert_uint_eq(rd(0x100), 8); /* capacity, low half */
	hdr = dt_alloc(&g, 16, &hgpa);
	data = dt_alloc(&g, 512, &dgpa);
	st = dt_alloc(&g, 1, &sgpa);
	memcpy(hdr, &type, 4);
	memcpy(hdr + 8, &sector, 8);
	*st = 0xff;
	struct dt_buf b[] = {{hgpa, 16, false}, {dgpa, 512, true}, {sgpa, 1, true}};
	dt_queue_add(&qs[0], b, 3);
	wr(0x050, 0);
	ck_assert(wait_used(&qs[0], &id, &len));
	ck_assert_uint_eq(len, 513);
	ck_assert_uint_eq(*st, VIRTIO_BLK_S_OK);
	ck_assert_uint_eq(data[0], 0x3c);
	ck_assert_uint_eq(data[511], 0x3c);
}
END_TEST

START_TEST(test_mmio_rng)
{
	struct vdev *d;
	uint64_t gpa;
	uint32_t id, len;

	ASSERT_OK(vrng_new(&d));
	start(d);
	driver_init(VIRTIO_ID_RNG, 0, 1);
	(void) dt_alloc(&g, 64, &gpa);
	struct dt_buf b = {gpa, 64, true};
	dt_queue_add(&qs[0], &b, 1);
	wr(0x050, 0);
	ck_assert(wait_used(&qs[0], &id, &len));
	ck_assert_uint_eq(len, 64);
}
END_TEST

static Suite *mmio_suite(void)
{
	Suite *s = suite_create("devices-mmio");
	TCase *tc = tcase_create("mmio");

	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, test_mmio_net_rx_tx);
	tcase_add_test(tc, test_mmio_blk_read);
	tcase_add_test(tc, test_mmio_rng);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(mmio_suite());
}
