/* SPDX-License-Identifier: Apache-2.0 */
/* virtio-mmio transport: the register file and state machine, driven with a fake device. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cctest.h"
#include "base/evloop.h"
#include "virtio/mmio.h"
#include "vtest.h"

#define BASE 0xd0000000ull

/* Status bits. */
#define ACK	    1u
#define DRIVER	    2u
#define DRIVER_OK   4u
#define FEATURES_OK 8u
#define NEEDS_RESET 64u
#define FAILED	    128u

struct fake_dev {
	struct vdev dev;
	struct virtq queues[2];
	uint8_t config[8];
	int activate_ret;
	unsigned activates, resets, config_writes;
	uint64_t acked;
	unsigned notifies[2]; /* atomics: bumped on the event-loop thread */
	pthread_t notify_thread;
	/*
	 * When >= 0, queue_notify raises a used-buffer interrupt and then stays inside (as a
	 * long tx batch would) until this eventfd is signalled, or 2 s pass.
	 */
	int hold_efd;
	unsigned held; /* atomic: queue_notify calls that raised the interrupt and hold */
};

static void fake_dev_config_read(struct vdev *dev, uint32_t off, void *data, uint32_t len)
{
	struct fake_dev *f = (struct fake_dev *) dev;

	ck_assert_uint_le(off + len, sizeof(f->config));
	memcpy(data, f->config + off, len);
}

static void fake_dev_config_write(struct vdev *dev, uint32_t off, const void *data, uint32_t len)
{
	struct fake_dev *f = (struct fake_dev *) dev;

	ck_assert_uint_le(off + len, sizeof(f->config));
	memcpy(f->config + off, data, len);
	f->config_writes++;
}

static uint64_t fake_dev_features(struct vdev *dev)
{
	(void) dev;
	return (1ull << 0) | (1ull << 5) | (1ull << 40);
}

static int fake_dev_activate(struct vdev *dev, uint64_t acked)
{
	struct fake_dev *f = (struct fake_dev *) dev;

	f->activates++;
	f->acked = acked;
	return f->activate_ret;
}

static void fake_dev_notify(struct vdev *dev, unsigned q)
{
	struct fake_dev *f = (struct fake_dev *) dev;

	f->notify_thread = pthread_self();
	__atomic_fetch_add(&f->notifies[q], 1, __ATOMIC_SEQ_CST);
	if (f->hold_efd >= 0) {
		struct pollfd p = {.fd = f->hold_efd, .events = POLLIN};

		dev->transport.notify_used(dev->transport.opaque, q);
		__atomic_fetch_add(&f->held, 1, __ATOMIC_SEQ_CST);
		(void) poll(&p, 1, 2000);
	}
}

static void fake_dev_reset(struct vdev *dev)
{
	((struct fake_dev *) dev)->resets++;
}

static const struct vdev_ops fake_dev_ops = {
	.device_id = 42,
	.get_features = fake_dev_features,
	.config_read = fake_dev_config_read,
	.config_write = fake_dev_config_write,
	.activate = fake_dev_activate,
	.queue_notify = fake_dev_notify,
	.reset = fake_dev_reset,
};

static struct vtest_guest g;
static struct vtest_irq irq;
static struct fake_dev fdev;
static struct evloop *loop;
static pthread_t loop_thread;
static struct vtrans_mmio *t;
static struct {
	unsigned calls;
	uint64_t gpa[2];
	uint32_t datamatch[2];
	int efd[2];
	int ret;
} bind;

static int fake_bind(void *ctx, uint64_t gpa, uint32_t datamatch, int efd)
{
	(void) ctx;
	if (bind.calls < 2) {
		bind.gpa[bind.calls] = gpa;
		bind.datamatch[bind.calls] = datamatch;
		bind.efd[bind.calls] = efd;
	}
	bind.calls++;
	return bind.ret;
}

static void *loop_main(void *arg)
{
	(void) evloop_run(arg);
	return NULL;
}

static void setup_with_bind(bool with_bind)
{
	struct vtrans_mmio_env env;

	vtest_guest_init(&g);
	vtest_irq_init(&irq);
	memset(&fdev, 0, sizeof(fdev));
	memset(&bind, 0, sizeof(bind));
	fdev.hold_efd = -1;
	fdev.dev = (struct vdev){.ops = &fake_dev_ops,
				 .n_queues = 2,
				 .queues = fdev.queues,
				 .config_size = sizeof(fdev.config)};
	memcpy(fdev.config, "\x01\x02\x03\x04\x05\x06\x07\x08", 8);
	ASSERT_OK(evloop_new(&loop));
	env = (struct vtrans_mmio_env){
		.gm = &g.gm,
		.loop = loop,
		.irq = irq.line,
		.ioeventfd_bind = with_bind ? fake_bind : NULL,
	};
	ASSERT_OK(vtrans_mmio_new(&env, &fdev.dev, BASE, &t));
	ck_assert_int_eq(pthread_create(&loop_thread, NULL, loop_main, loop), 0);
}

static void setup(void)
{
	setup_with_bind(false);
}

static void teardown(void)
{
	evloop_stop(loop);
	pthread_join(loop_thread, NULL);
	t = vtrans_mmio_free(t);
	loop = evloop_free(loop);
	vtest_guest_done(&g);
	fdev.hold_efd = safe_close(fdev.hold_efd);
}

static uint32_t rd(uint64_t off)
{
	uint32_t v = 0xdeadbeef;

	vtrans_mmio_iobus_ops.read(t, off, &v, 4);
	return v;
}

static void wr(uint64_t off, uint32_t v)
{
	vtrans_mmio_iobus_ops.write(t, off, &v, 4);
}

/* Wait up to 5 s for *counter to reach want (it is bumped on the event-loop thread). */
static bool wait_count(unsigned *counter, unsigned want)
{
	for (unsigned i = 0; i < 5000; i++) {
		if (__atomic_load_n(counter, __ATOMIC_SEQ_CST) >= want)
			return true;
		usleep(1000);
	}
	return false;
}

/* The driver's side of feature negotiation (VERSION_1 plus the given low bits). */
static void negotiate(uint32_t low)
{
	wr(0x070, ACK);
	wr(0x070, ACK | DRIVER);
	wr(0x024, 0);
	wr(0x020, low);
	wr(0x024, 1);
	wr(0x020, 1); /* VERSION_1 */
	wr(0x070, ACK | DRIVER | FEATURES_OK);
}

static void setup_queue(unsigned q, uint32_t num)
{
	wr(0x030, q);
	wr(0x038, num);
	wr(0x080, (uint32_t) (VTEST_DESC + q * 0x1000));
	wr(0x084, 0);
	wr(0x090, (uint32_t) (VTEST_AVAIL + q * 0x1000));
	wr(0x094, 0);
	wr(0x0a0, (uint32_t) (VTEST_USED + q * 0x1000));
	wr(0x0a4, 0);
	wr(0x044, 1);
}

START_TEST(test_mmio_identity_registers)
{
	uint16_t half = 0xffff;

	ck_assert_uint_eq(rd(0x000), 0x74726976);
	ck_assert_uint_eq(rd(0x004), 2);
	ck_assert_uint_eq(rd(0x008), 42);
	ck_assert_uint_ne(rd(0x00c), 0);
	ck_assert_uint_eq(rd(0x070), 0);
	ck_assert_uint_eq(rd(0x0fc), 0);
	/* Write-only, reserved and misaligned/narrow register accesses read as 0. */
	ck_assert_uint_eq(rd(0x050), 0);
	ck_assert_uint_eq(rd(0x0f0), 0);
	ck_assert_uint_eq(rd(0x002), 0);
	/* No shared memory regions. */
	wr(0x0ac, 0);
	ck_assert_uint_eq(rd(0x0b0), 0xffffffff);
	ck_assert_uint_eq(rd(0x0b4), 0xffffffff);
	vtrans_mmio_iobus_ops.read(t, 0x000, &half, 2);
	ck_assert_uint_eq(half, 0);
}
END_TEST

START_TEST(test_mmio_offers_transport_features)
{
	wr(0x014, 0);
	ck_assert_uint_eq(rd(0x010), (1u << 0) | (1u << 5) | (1u << 28) | (1u << 29));
	wr(0x014, 1);
	ck_assert_uint_eq(rd(0x010), 1u | (1u << 8)); /* VERSION_1, device bit 40 */
	wr(0x014, 2);
	ck_assert_uint_eq(rd(0x010), 0);
	wr(0x014, 0xffffffff);
	ck_assert_uint_eq(rd(0x010), 0);
}
END_TEST

START_TEST(test_mmio_refuses_unoffered_features)
{
	/* Bit 3 was not offered: FEATURES_OK does not stick. */
	negotiate(1u << 3);
	ck_assert_uint_eq(rd(0x070), ACK | DRIVER);
	wr(0x070, 0);
	negotiate((1u << 0) | (1u << 29));
	ck_assert_uint_eq(rd(0x070), ACK | DRIVER | FEATURES_OK);
}
END_TEST

START_TEST(test_mmio_requires_version_1)
{
	wr(0x070, ACK);
	wr(0x070, ACK | DRIVER);
	wr(0x024, 0);
	wr(0x020, 1);
	wr(0x070, ACK | DRIVER | FEATURES_OK);
	ck_assert_uint_eq(rd(0x070), ACK | DRIVER);
}
END_TEST

START_TEST(test_mmio_driver_features_only_while_negotiating)
{
	/* Before DRIVER: ignored. */
	wr(0x024, 1);
	wr(0x020, 1);
	wr(0x070, ACK);
	wr(0x070, ACK | DRIVER);
	wr(0x070, ACK | DRIVER | FEATURES_OK);
	ck_assert_uint_eq(rd(0x070), ACK | DRIVER);
	negotiate(1);
	ck_assert_uint_eq(rd(0x070), ACK | DRIVER | FEATURES_OK);
	/* After FEATURES_OK: frozen; what activate() sees is what was accepted. */
	wr(0x024, 0);
	wr(0x020, 1u << 5);
	setup_queue(0, 64);
	wr(0x070, ACK | DRIVER | FEATURES_OK | DRIVER_OK);
	ck_assert_uint_eq(fdev.activates, 1);
	ck_assert_uint_eq(fdev.acked, (1ull << 32) | 1);
}
END_TEST

START_TEST(test_mmio_status_transitions_in_order)
{
	wr(0x070, DRIVER); /* without ACKNOWLEDGE */
	ck_assert_uint_eq(rd(0x070), 0);
	wr(0x070, ACK);
	wr(0x070, ACK | DRIVER | DRIVER_OK); /* DRIVER_OK before FEATURES_OK */
	ck_assert_uint_eq(rd(0x070), ACK);
	wr(0x070, ACK | DRIVER);
	ck_assert_uint_eq(rd(0x070), ACK | DRIVER);
	wr(0x070, DRIVER); /* clearing ACK needs a reset */
	ck_assert_uint_eq(rd(0x070), ACK | DRIVER);
	wr(0x070, ACK | DRIVER | NEEDS_RESET | 0x30); /* device-owned and undefined bits */
	ck_assert_uint_eq(rd(0x070), ACK | DRIVER);
	wr(0x070, ACK | DRIVER | FAILED);
	ck_assert_uint_eq(rd(0x070), ACK | DRIVER | FAILED);
	ck_assert_uint_eq(fdev.activates, 0);
	wr(0x070, 0);
	ck_assert_uint_eq(rd(0x070), 0);
	ck_assert_uint_eq(fdev.resets, 1);
}
END_TEST

START_TEST(test_mmio_queue_setup_and_validation)
{
	struct virtq *vq = &fdev.queues[0];

	negotiate((1u << 28) | (1u << 29));
	wr(0x030, 0);
	ck_assert_uint_eq(rd(0x034), VIRTQ_MAX_SIZE);
	wr(0x030, 2);
	ck_assert_uint_eq(rd(0x034), 0); /* no such queue */
	wr(0x044, 1);			 /* and nothing happens */
	ck_assert_uint_eq(rd(0x044), 0);

	setup_queue(0, 64);
	ck_assert_uint_eq(rd(0x044), 1);
	ck_assert(vq->ready);
	ck_assert_uint_eq(vq->num, 64);
	ck_assert_uint_eq(vq->desc_gpa, VTEST_DESC);
	ck_assert_uint_eq(vq->avail_gpa, VTEST_AVAIL);
	ck_assert_uint_eq(vq->used_gpa, VTEST_USED);
	ck_assert(vq->event_idx && vq->indirect);
	ck_assert_ptr_eq(vq->gm, &g.gm);
	/* A ready queue's setup is frozen. */
	wr(0x038, 32);
	wr(0x080, 0x1234);
	ck_assert_uint_eq(vq->num, 64);
	ck_assert_uint_eq(vq->desc_gpa, VTEST_DESC);
	ck_assert_uint_eq(rd(0x070) & NEEDS_RESET, 0);
}
END_TEST

START_TEST(test_mmio_refuses_bad_queues)
{
	static const struct {
		uint32_t num;
		uint64_t desc;
	} bad[] = {
		{0, VTEST_DESC},	    /* size 0 */
		{100, VTEST_DESC},	    /* not a power of two */
		{2048, VTEST_DESC},	    /* above QueueNumMax */
		{0x10000, VTEST_DESC},	    /* truncates to 0 */
		{64, VTEST_DESC + 4},	    /* misaligned */
		{64, 0x4000000000ull},	    /* outside guest memory (high half) */
		{64, VTEST_B_GPA - 16 * 8}, /* straddles two regions */
	};

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		wr(0x070, 0);
		negotiate(0);
		wr(0x030, 1);
		wr(0x038, bad[i].num);
		wr(0x080, (uint32_t) bad[i].desc);
		wr(0x084, (uint32_t) (bad[i].desc >> 32));
		wr(0x090, (uint32_t) VTEST_AVAIL);
		wr(0x0a0, (uint32_t) VTEST_USED);
		wr(0x044, 1);
		ck_assert_msg(rd(0x044) == 0, "case %u", i);
		ck_assert_msg(rd(0x070) & NEEDS_RESET, "case %u", i);
		ck_assert_uint_ge(irq.count, i + 1);
		ck_assert_uint_ne(rd(0x060) & 2, 0);
	}
	/* A device that needs a reset is not activated. */
	wr(0x070, ACK | DRIVER | FEATURES_OK | DRIVER_OK);
	ck_assert_uint_eq(fdev.activates, 0);
	/* Reset clears NEEDS_RESET and the interrupt status. */
	wr(0x070, 0);
	ck_assert_uint_eq(rd(0x070), 0);
	ck_assert_uint_eq(rd(0x060), 0);
	/* The used ring must be writable. */
	negotiate(0);
	wr(0x030, 0);
	wr(0x038, 64);
	wr(0x080, (uint32_t) VTEST_DESC);
	wr(0x090, (uint32_t) VTEST_AVAIL);
	wr(0x0a0, (uint32_t) VTEST_RO_GPA);
	wr(0x044, 1);
	ck_assert_uint_eq(rd(0x044), 0);
}
END_TEST

START_TEST(test_mmio_queue_size_follows_the_device)
{
	/* The same device, offering queues of at most 64 entries. */
	static struct vdev_ops small_ops;

	small_ops = fake_dev_ops;
	small_ops.queue_max = 64;
	fdev.dev.ops = &small_ops;
	negotiate(0);
	wr(0x030, 1);
	ck_assert_uint_eq(rd(0x034), 64);
	/* A size above what the device offers is refused at QueueReady. */
	setup_queue(1, 128);
	ck_assert_uint_eq(rd(0x044), 0);
	ck_assert(!fdev.queues[1].ready);
	ck_assert_uint_ne(rd(0x070) & NEEDS_RESET, 0);
	wr(0x070, 0);
	negotiate(0);
	setup_queue(1, 64);
	ck_assert_uint_eq(rd(0x044), 1);
	ck_assert_uint_eq(fdev.queues[1].num, 64);
}
END_TEST

START_TEST(test_mmio_activate_and_reset)
{
	negotiate(1u << 29);
	setup_queue(0, 64);
	setup_queue(1, 128);
	wr(0x070, ACK | DRIVER | FEATURES_OK | DRIVER_OK);
	ck_assert_uint_eq(rd(0x070), ACK | DRIVER | FEATURES_OK | DRIVER_OK);
	ck_assert_uint_eq(fdev.activates, 1);
	/* Queue setup after DRIVER_OK is ignored. */
	wr(0x030, 0);
	wr(0x044, 0);
	ck_assert_uint_eq(rd(0x044), 1);
	/* DRIVER_OK signals each ready queue once (kicks sent before it are not lost). */
	ck_assert(wait_count(&fdev.notifies[0], 1));
	ck_assert(wait_count(&fdev.notifies[1], 1));
	ck_assert(!pthread_equal(fdev.notify_thread, pthread_self()));

	wr(0x070, 0);
	ck_assert_uint_eq(fdev.resets, 1);
	ck_assert_uint_eq(rd(0x070), 0);
	ck_assert(!fdev.queues[0].ready && !fdev.queues[1].ready);
	ck_assert_uint_eq(fdev.queues[1].num, 0);
	ck_assert_uint_eq(fdev.queues[1].desc_gpa, 0);
	/* After reset, kicks no longer reach the device. */
	wr(0x050, 0);
	usleep(20000);
	ck_assert_uint_eq(__atomic_load_n(&fdev.notifies[0], __ATOMIC_SEQ_CST), 1);
	/* And the device can be brought up again. */
	negotiate(0);
	setup_queue(0, 64);
	wr(0x070, ACK | DRIVER | FEATURES_OK | DRIVER_OK);
	ck_assert_uint_eq(fdev.activates, 2);
	ck_assert(!fdev.queues[0].event_idx);
}
END_TEST

START_TEST(test_mmio_failed_activation_needs_reset)
{
	fdev.activate_ret = -EINVAL;
	negotiate(0);
	setup_queue(0, 64);
	wr(0x070, ACK | DRIVER | FEATURES_OK | DRIVER_OK);
	ck_assert_uint_eq(rd(0x070) & NEEDS_RESET, NEEDS_RESET);
	ck_assert_uint_eq(irq.count, 1);
	ck_assert_uint_eq(rd(0x060), 2);
	wr(0x050, 0); /* kicks are not delivered to a failed device */
	usleep(20000);
	ck_assert_uint_eq(__atomic_load_n(&fdev.notifies[0], __ATOMIC_SEQ_CST), 0);
}
END_TEST

START_TEST(test_mmio_queue_notify_runs_on_event_loop)
{
	negotiate(0);
	setup_queue(0, 64);
	setup_queue(1, 64);
	wr(0x070, ACK | DRIVER | FEATURES_OK | DRIVER_OK);
	ck_assert(wait_count(&fdev.notifies[1], 1));
	wr(0x050, 1);
	ck_assert(wait_count(&fdev.notifies[1], 2));
	ck_assert(!pthread_equal(fdev.notify_thread, pthread_self()));
	wr(0x050, 7); /* no such queue: ignored */
	wr(0x050, 0xffffffff);
	usleep(20000);
	ck_assert_uint_eq(__atomic_load_n(&fdev.notifies[1], __ATOMIC_SEQ_CST), 2);
}
END_TEST

START_TEST(test_mmio_interrupt_status_and_ack)
{
	fdev.dev.transport.notify_used(fdev.dev.transport.opaque, 0);
	ck_assert_uint_eq(irq.count, 1);
	ck_assert_uint_eq(rd(0x060), 1);
	fdev.dev.transport.notify_config(fdev.dev.transport.opaque);
	ck_assert_uint_eq(irq.count, 2);
	ck_assert_uint_eq(rd(0x060), 3);
	ck_assert_uint_eq(rd(0x0fc), 1); /* config generation moved */
	wr(0x064, 1);
	ck_assert_uint_eq(rd(0x060), 2);
	wr(0x064, 2);
	ck_assert_uint_eq(rd(0x060), 0);
	/* vdev_fail() sets NEEDS_RESET and interrupts once. */
	vdev_fail(&fdev.dev);
	vdev_fail(&fdev.dev);
	ck_assert_uint_eq(irq.count, 3);
	ck_assert_uint_eq(rd(0x070) & NEEDS_RESET, NEEDS_RESET);
}
END_TEST

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000 + (uint64_t) ts.tv_nsec / 1000000;
}

/*
 * Issue #5: the guest's interrupt handler (read InterruptStatus, write InterruptAck) must not
 * wait for a queue_notify in progress on the event-loop thread; with the transport lock taken
 * for them it sat there until the whole tx batch was sent.
 */
START_TEST(test_mmio_interrupt_registers_do_not_wait_for_queue_notify)
{
	uint64_t one = 1, start, took;
	uint32_t isr;

	negotiate(0);
	setup_queue(0, 64);
	setup_queue(1, 64);
	wr(0x070, ACK | DRIVER | FEATURES_OK | DRIVER_OK);
	ck_assert(wait_count(&fdev.notifies[1], 1));
	fdev.hold_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ck_assert_int_ge(fdev.hold_efd, 0);
	wr(0x050, 1);
	ck_assert(wait_count(&fdev.held, 1)); /* queue_notify is running and holds */

	start = now_ms();
	isr = rd(0x060);
	wr(0x064, isr);
	took = now_ms() - start;
	ck_assert_int_eq(write(fdev.hold_efd, &one, sizeof(one)), (ssize_t) sizeof(one));

	ck_assert_uint_eq(isr, 1);
	ck_assert_uint_lt(took, 1000);
	ck_assert_uint_eq(rd(0x060), 0);
	/* Other registers still serialise with queue_notify as before. */
	ck_assert_uint_eq(rd(0x070), ACK | DRIVER | FEATURES_OK | DRIVER_OK);
}
END_TEST

START_TEST(test_mmio_config_space_bounds)
{
	uint8_t b = 0;
	uint16_t h = 0;
	uint64_t q = 0;
	uint32_t v = 0x11223344;

	vtrans_mmio_iobus_ops.read(t, 0x100, &b, 1);
	ck_assert_uint_eq(b, 1);
	vtrans_mmio_iobus_ops.read(t, 0x106, &h, 2);
	ck_assert_uint_eq(h, 0x0807);
	vtrans_mmio_iobus_ops.read(t, 0x100, &q, 8);
	ck_assert_uint_eq(q, 0x0807060504030201ull);
	/* Past config_size: zeros, and the device is not called. */
	vtrans_mmio_iobus_ops.read(t, 0x106, &v, 4);
	ck_assert_uint_eq(v, 0);
	vtrans_mmio_iobus_ops.read(t, 0x1fc, &v, 4);
	ck_assert_uint_eq(v, 0);
	vtrans_mmio_iobus_ops.write(t, 0x107, &v, 4);
	vtrans_mmio_iobus_ops.write(t, 0x1ff, &v, 1);
	ck_assert_uint_eq(fdev.config_writes, 0);
	v = 0xaabbccdd;
	vtrans_mmio_iobus_ops.write(t, 0x104, &v, 4);
	ck_assert_uint_eq(fdev.config_writes, 1);
	ck_assert_uint_eq(fdev.config[4], 0xdd);
}
END_TEST

START_TEST(test_mmio_cmdline_appends_device)
{
	char buf[96] = "console=hvc0";
	char small[24] = "quiet";

	ASSERT_OK(vtrans_mmio_cmdline(t, 5, buf, sizeof(buf)));
	ck_assert_str_eq(buf, "console=hvc0 virtio_mmio.device=0x200@0xd0000000:5");
	ASSERT_ERRNO(vtrans_mmio_cmdline(t, 5, small, sizeof(small)), ENOSPC);
	ck_assert_str_eq(small, "quiet");
}
END_TEST

START_TEST(test_mmio_binds_ioeventfds)
{
	uint64_t one = 1;

	ck_assert_uint_eq(bind.calls, 2);
	ck_assert_uint_eq(bind.gpa[0], BASE + 0x50);
	ck_assert_uint_eq(bind.gpa[1], BASE + 0x50);
	ck_assert_uint_eq(bind.datamatch[0], 0);
	ck_assert_uint_eq(bind.datamatch[1], 1);
	negotiate(0);
	setup_queue(1, 64);
	wr(0x070, ACK | DRIVER | FEATURES_OK | DRIVER_OK);
	ck_assert(wait_count(&fdev.notifies[1], 1));
	/* What KVM does on a matching QueueNotify write. */
	ck_assert_int_eq(write(bind.efd[1], &one, sizeof(one)), sizeof(one));
	ck_assert(wait_count(&fdev.notifies[1], 2));
	ck_assert_uint_eq(__atomic_load_n(&fdev.notifies[0], __ATOMIC_SEQ_CST), 0);
}
END_TEST

static void setup_bind(void)
{
	setup_with_bind(true);
}

int main(void)
{
	Suite *s = suite_create("mmio");
	TCase *tc = tcase_create("mmio");
	TCase *tb = tcase_create("ioeventfd");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_mmio_identity_registers);
	tcase_add_test(tc, test_mmio_offers_transport_features);
	tcase_add_test(tc, test_mmio_refuses_unoffered_features);
	tcase_add_test(tc, test_mmio_requires_version_1);
	tcase_add_test(tc, test_mmio_driver_features_only_while_negotiating);
	tcase_add_test(tc, test_mmio_status_transitions_in_order);
	tcase_add_test(tc, test_mmio_queue_setup_and_validation);
	tcase_add_test(tc, test_mmio_refuses_bad_queues);
	tcase_add_test(tc, test_mmio_queue_size_follows_the_device);
	tcase_add_test(tc, test_mmio_activate_and_reset);
	tcase_add_test(tc, test_mmio_failed_activation_needs_reset);
	tcase_add_test(tc, test_mmio_queue_notify_runs_on_event_loop);
	tcase_add_test(tc, test_mmio_interrupt_status_and_ack);
	tcase_add_test(tc, test_mmio_interrupt_registers_do_not_wait_for_queue_notify);
	tcase_add_test(tc, test_mmio_config_space_bounds);
	tcase_add_test(tc, test_mmio_cmdline_appends_device);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(tb, setup_bind, teardown);
	tcase_set_timeout(tb, 30);
	tcase_add_test(tb, test_mmio_binds_ioeventfds);
	suite_add_tcase(s, tb);
	return cctest_run_suite(s);
}
