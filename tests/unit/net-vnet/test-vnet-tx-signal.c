/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Issue #5: guest -> host TCP through cc-vmm's virtio-net sometimes crawled at a few Mbit/s.
 * Linux (napi_tx) frees a sent skb only when it hears about the used tx buffer, and TCP keeps
 * only a couple of unfreed skbs per socket in flight (TSQ), so the device must tell the guest
 * about used tx buffers while it works through a long batch, not only once the ring is empty.
 * The device runs against fake guest memory with the socket backend standing in for the tap.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "cc/cleanup.h"
#include "cctest.h"
#include "devtest.h"
#include "net/netbe-sock.h"
#include "net/vnet-hdr.h"
#include "net/vnet.h"

#define N_TX	    40
#define FRAME_LEN   200
#define EVENT_IDX_F (1ull << VIRTIO_F_EVENT_IDX)

static struct dt_guest g;
static struct dt_queue rxq, txq;
static struct dt_transport t;
static struct vdev *dev;
static int host = -1;

/* Interrupts seen, and how many tx chains the device had used at the first one. */
static unsigned irqs;
static uint16_t used_at_first_irq;

static void record_irq(void *opaque, unsigned q)
{
	(void) opaque;
	if (q != VNET_TXQ)
		return;
	if (irqs++ == 0)
		used_at_first_irq = dev->queues[VNET_TXQ].used_idx;
}

static void setup(void)
{
	static const struct vnet_config cfg = {
		.tap_fd = -1, .has_mac = true, .mac = {0x02, 0x11, 0x22, 0x33, 0x44, 0x55}};
	struct net_backend *be;
	int sv[2];

	dt_guest_init(&g);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	host = sv[0];
	ASSERT_OK(netbe_sock_new(sv[1], 0, &be));
	ASSERT_OK(vnet_new_with_backend(&cfg, be, &dev));
	dt_transport_attach(&t, dev);
	dev->transport.notify_used = record_irq;
	dt_queue_init(&rxq, &g, dev, VNET_RXQ, 256);
	dt_queue_init(&txq, &g, dev, VNET_TXQ, 256);
	dev->queues[VNET_RXQ].event_idx = dev->queues[VNET_TXQ].event_idx = true;
	ASSERT_OK(dev->ops->activate(dev, (1ull << VIRTIO_F_VERSION_1) | EVENT_IDX_F));
	irqs = 0;
	used_at_first_irq = 0;
}

static void teardown(void)
{
	if (dev)
		dev->ops->free(dev);
	dev = NULL;
	host = safe_close(host);
	dt_guest_done(&g);
}

/* used_event, the last u16 of the avail ring (VIRTIO_F_EVENT_IDX). */
static void set_used_event(uint16_t ev)
{
	memcpy(dt_hva(&g, txq.avail + 4 + 2ull * txq.num), &ev, sizeof(ev));
}

static void post_tx(unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		uint64_t gpa;
		uint8_t *p = dt_alloc(&g, VNET_HDR_LEN + FRAME_LEN, &gpa);
		struct dt_buf b = {gpa, VNET_HDR_LEN + FRAME_LEN, false};

		memset(p + VNET_HDR_LEN, (int) i, FRAME_LEN);
		dt_queue_add(&txq, &b, 1);
	}
}

static unsigned host_drain(void)
{
	uint8_t buf[VNET_HDR_LEN + FRAME_LEN + 16];
	unsigned n = 0;

	while (recv(host, buf, sizeof(buf), MSG_DONTWAIT) == VNET_HDR_LEN + FRAME_LEN)
		n++;
	return n;
}

/* The driver asked to hear about the first used buffer: it must not wait for all N_TX. */
START_TEST(test_vnet_tx_signals_used_buffers_during_a_batch)
{
	uint32_t id, len;
	unsigned used = 0;

	set_used_event(0);
	post_tx(N_TX);
	dev->ops->queue_notify(dev, VNET_TXQ);

	ck_assert_uint_eq(host_drain(), N_TX);
	while (dt_queue_used(&txq, &id, &len))
		used++;
	ck_assert_uint_eq(used, N_TX);
	ck_assert_uint_ge(irqs, 1);
	ck_assert_uint_ge(used_at_first_irq, 1);
	ck_assert_uint_lt(used_at_first_irq, N_TX);
	ck_assert_uint_le(used_at_first_irq, 16);
}
END_TEST

/* Signalling mid-batch still honours used_event: one interrupt per crossing, none without. */
START_TEST(test_vnet_tx_mid_batch_signals_honour_used_event)
{
	/* The first check always interrupts (nothing signalled yet): get it out of the way. */
	set_used_event(0);
	post_tx(1);
	dev->ops->queue_notify(dev, VNET_TXQ);
	ck_assert_uint_eq(host_drain(), 1);
	ck_assert_uint_eq(irqs, 1);
	irqs = 0;

	/* used_event 0x8000: far ahead, the driver does not want to hear yet. */
	set_used_event(0x8000);
	post_tx(N_TX);
	dev->ops->queue_notify(dev, VNET_TXQ);
	ck_assert_uint_eq(host_drain(), N_TX);
	ck_assert_uint_eq(irqs, 0);

	/* Now the driver wants to hear once entry 1 + N_TX + 4 is used: exactly one interrupt,
	 * not one per check, and before the batch ends. */
	set_used_event(1 + N_TX + 4);
	post_tx(N_TX);
	dev->ops->queue_notify(dev, VNET_TXQ);
	ck_assert_uint_eq(host_drain(), N_TX);
	ck_assert_uint_eq(irqs, 1);
	ck_assert_uint_gt(used_at_first_irq, 1 + N_TX + 4);
	ck_assert_uint_lt(used_at_first_irq, 1 + 2 * N_TX);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vnet-tx-signal");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_vnet_tx_signals_used_buffers_during_a_batch);
	tcase_add_test(tc, test_vnet_tx_mid_batch_signals_honour_used_event);
	suite_add_tcase(s, tc);
	return cctest_run_suite(s);
}
