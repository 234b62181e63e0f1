/* SPDX-License-Identifier: Apache-2.0 */
/* The virtio-9p glue: chains in fake guest memory through queue_notify. */
#include <check.h>
#include <stdio.h>
#include <errno.h>
#include <pthread.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "9p/9p-dev.h"
#include "9p/9p-pdu.h"
#include "9p/9p-worker.h"
#include "cctest.h"
#include "base/evloop.h"
#include "base/gmem.h"

#define MEM_SIZE  0x100000ull
#define DESC_GPA  0x0ull
#define AVAIL_GPA 0x1000ull
#define USED_GPA  0x2000ull
#define REQ_GPA	  0x10000ull
#define RESP_GPA  0x80000ull
#define QNUM	  16

static struct gmem gm;
static void *mem;
static char *dir;
static struct vdev *dev;
static unsigned irqs;
static uint16_t avail_idx;

static void count_irq(void *opaque, unsigned q)
{
	(void) opaque;
	ck_assert_uint_eq(q, 0);
	irqs++;
}

static void setup(void)
{
	struct virtq *vq;

	mem = calloc(1, MEM_SIZE);
	ck_assert_ptr_nonnull(mem);
	gmem_init(&gm);
	ASSERT_OK(gmem_add_region(&gm, 0, MEM_SIZE, mem, 0));
	dir = cctest_mkdtemp();
	ASSERT_OK(v9p_new("share", dir, false, NULL, &dev));
	dev->transport.notify_used = count_irq;
	vq = &dev->queues[0];
	vq->gm = &gm;
	vq->num = QNUM;
	vq->desc_gpa = DESC_GPA;
	vq->avail_gpa = AVAIL_GPA;
	vq->used_gpa = USED_GPA;
	vq->ready = true;
	virtq_reset(vq);
	ASSERT_OK(virtq_validate(vq));
	ASSERT_OK(dev->ops->activate(dev, 1));
	irqs = 0;
	avail_idx = 0;
}

static void teardown(void)
{
	dev->ops->free(dev);
	(void) cctest_rm_rf(dir);
	free(dir);
	free(mem);
}

static void desc_set(unsigned i, uint64_t addr, uint32_t len, uint16_t flags, uint16_t next)
{
	uint64_t gpa = DESC_GPA + 16ull * i;

	ASSERT_OK(gmem_write_u64(&gm, gpa, addr));
	ASSERT_OK(gmem_write_u32(&gm, gpa + 8, len));
	ASSERT_OK(gmem_write_u16(&gm, gpa + 12, flags));
	ASSERT_OK(gmem_write_u16(&gm, gpa + 14, next));
}

static void kick(uint16_t head)
{
	ASSERT_OK(gmem_write_u16(&gm, AVAIL_GPA + 4 + 2ull * (avail_idx % QNUM), head));
	avail_idx++;
	ASSERT_OK(gmem_write_u16(&gm, AVAIL_GPA + 2, avail_idx));
	dev->ops->queue_notify(dev, 0);
}

static uint32_t used_len(uint16_t i)
{
	uint32_t len;

	ASSERT_OK(gmem_read_u32(&gm, USED_GPA + 4 + 8ull * (i % QNUM) + 4, &len));
	return len;
}

static uint16_t used_idx(void)
{
	uint16_t idx;

	ASSERT_OK(gmem_read_u16(&gm, USED_GPA + 2, &idx));
	return idx;
}

/* Put a message in guest memory at REQ_GPA; returns its length. */
static uint32_t put_version(uint32_t msize)
{
	uint8_t buf[64];
	struct p9_out o;
	int len;

	p9_out_init(&o, buf, sizeof(buf));
	p9_put_u32(&o, msize);
	p9_put_str(&o, "9P2000.L");
	len = p9_out_finish(&o, P9_TVERSION, 1);
	ck_assert_int_gt(len, 0);
	ASSERT_OK(gmem_write(&gm, REQ_GPA, buf, (size_t) len));
	return (uint32_t) len;
}

/* Send one request built in o (its body) as type, tag; returns the reply's type. */
static uint8_t send_msg(struct p9_out *o, uint8_t *buf, uint8_t type, uint16_t tag, uint16_t head)
{
	uint8_t rbuf[64], rtype;
	uint16_t rtag, used = used_idx();
	struct p9_in in;
	int len = p9_out_finish(o, type, tag);

	ck_assert_int_gt(len, 0);
	ASSERT_OK(gmem_write(&gm, REQ_GPA, buf, (size_t) len));
	desc_set(head, REQ_GPA, (uint32_t) len, 1, (uint16_t) (head + 1));
	desc_set(head + 1, RESP_GPA, 8192, 2, 0);
	kick(head);
	ck_assert_uint_eq(used_idx(), (uint16_t) (used + 1));
	ck_assert_uint_le(used_len(used), sizeof(rbuf));
	ASSERT_OK(gmem_read(&gm, RESP_GPA, rbuf, used_len(used)));
	p9_in_init(&in, rbuf, used_len(used));
	ASSERT_OK(p9_get_header(&in, &rtype, &rtag));
	ck_assert_uint_eq(rtag, tag);
	return rtype;
}

static void check_reply(uint64_t gpa, uint32_t len, uint8_t type, uint16_t tag)
{
	uint8_t buf[256], rtype;
	uint16_t rtag;
	struct p9_in in;

	ck_assert_uint_le(len, sizeof(buf));
	ASSERT_OK(gmem_read(&gm, gpa, buf, len));
	p9_in_init(&in, buf, len);
	ASSERT_OK(p9_get_header(&in, &rtype, &rtag));
	ck_assert_uint_eq(rtype, type);
	ck_assert_uint_eq(rtag, tag);
}

START_TEST(test_config_and_features)
{
	uint8_t cfg[16] = {0};

	ck_assert_uint_eq(dev->ops->device_id, 9);
	ck_assert_uint_eq(dev->ops->get_features(dev), 1);
	ck_assert_uint_eq(dev->config_size, 2 + 5);
	dev->ops->config_read(dev, 0, cfg, 7);
	ck_assert_uint_eq(cfg[0] | cfg[1] << 8, 5);
	ck_assert(memcmp(cfg + 2, "share", 5) == 0);
	memset(cfg, 0xff, sizeof(cfg));
	dev->ops->config_read(dev, 5, cfg, 8); /* past the end reads zeros */
	ck_assert(memcmp(cfg, "re\0\0\0\0\0\0", 8) == 0);
	ASSERT_ERRNO(v9p_new("", dir, false, NULL, &(struct vdev *){NULL}), EINVAL);
	ASSERT_ERRNO(v9p_new("t", "/nonexistent-9p-dir", false, NULL, &(struct vdev *){NULL}),
		     ENOENT);
}
END_TEST

START_TEST(test_request_through_queue)
{
	uint32_t len = put_version(8192);
	struct v9p_stats st;

	desc_set(0, REQ_GPA, len, 1, 1);
	desc_set(1, RESP_GPA, 8192, 2, 0);
	kick(0);
	ck_assert_uint_eq(used_idx(), 1);
	ck_assert_uint_eq(used_len(0), 7 + 4 + 2 + 8);
	check_reply(RESP_GPA, used_len(0), P9_TVERSION + 1, 1);
	ck_assert_uint_eq(irqs, 1);
	v9p_get_stats(dev, &st);
	ck_assert_uint_eq(st.requests, 1);
	ck_assert_uint_eq(st.bytes_out, 21);
}
END_TEST

START_TEST(test_split_buffers)
{
	uint32_t len = put_version(8192);

	/* Request in two pieces, reply across three small buffers. */
	desc_set(0, REQ_GPA, 5, 1, 1);
	desc_set(1, REQ_GPA + 5, len - 5, 1, 2);
	desc_set(2, RESP_GPA, 3, 2 | 1, 3);
	desc_set(3, RESP_GPA + 3, 4, 2 | 1, 4);
	desc_set(4, RESP_GPA + 7, 100, 2, 0);
	kick(0);
	ck_assert_uint_eq(used_len(0), 21);
	check_reply(RESP_GPA, 21, P9_TVERSION + 1, 1);
}
END_TEST

START_TEST(test_bad_chains_do_not_stop_the_queue)
{
	uint32_t len = put_version(8192);

	/* No room for a reply: pushed back with 0 bytes. */
	desc_set(0, REQ_GPA, len, 0, 0);
	kick(0);
	ck_assert_uint_eq(used_idx(), 1);
	ck_assert_uint_eq(used_len(0), 0);
	/* A buffer outside guest memory. */
	desc_set(1, MEM_SIZE + 0x1000, 64, 0, 0);
	kick(1);
	ck_assert_uint_eq(used_idx(), 2);
	ck_assert_uint_eq(used_len(1), 0);
	/* Garbage request: an Rlerror comes back. */
	ASSERT_OK(gmem_write(&gm, REQ_GPA, "\x09\x00\x00\x00\x64\x07\x00\xff\xff", 9));
	desc_set(2, REQ_GPA, 9, 1, 3);
	desc_set(3, RESP_GPA, 64, 2, 0);
	kick(2);
	ck_assert_uint_eq(used_idx(), 3);
	ck_assert_uint_eq(used_len(2), 11);
	check_reply(RESP_GPA, 11, P9_RLERROR, 7);
	/* And a good one still works. */
	len = put_version(8192);
	desc_set(4, REQ_GPA, len, 1, 5);
	desc_set(5, RESP_GPA, 64, 2, 0);
	kick(4);
	ck_assert_uint_eq(used_len(3), 21);
}
END_TEST

START_TEST(test_reset_forgets_session)
{
	uint32_t len = put_version(8192);

	desc_set(0, REQ_GPA, len, 1, 1);
	desc_set(1, RESP_GPA, 64, 2, 0);
	kick(0);
	dev->ops->reset(dev);
	/* Not active: nothing is consumed. */
	kick(0);
	ck_assert_uint_eq(used_idx(), 1);
}
END_TEST

START_TEST(test_idle_trim)
{
	const uint32_t big = 96 * 1024;
	struct v9p_stats st;
	uint32_t len;

	/* As long as a large Twrite (its size field does not match: an Rlerror comes back), so
	 * the request buffer is touched up to 96 KiB. */
	(void) put_version(8192);
	desc_set(0, REQ_GPA, big, 1, 1);
	desc_set(1, RESP_GPA, 64, 2, 0);
	kick(0);
	ck_assert_uint_eq(used_idx(), 1);
	check_reply(RESP_GPA, used_len(0), P9_RLERROR, 1);
	/* A request came since the last look: not idle yet. */
	ck_assert(!v9p_idle_tick(dev));
	v9p_get_stats(dev, &st);
	ck_assert_uint_eq(st.trims, 0);
	/* Idle: everything above the working set goes back. */
	ck_assert(v9p_idle_tick(dev));
	v9p_get_stats(dev, &st);
	ck_assert_uint_eq(st.trims, 1);
	ck_assert_uint_eq(st.bytes_trimmed, big - V9P_BUF_KEEP);
	/* Nothing left above it: a later idle tick releases nothing. */
	ck_assert(v9p_idle_tick(dev));
	v9p_get_stats(dev, &st);
	ck_assert_uint_eq(st.trims, 1);
	/* The device still serves, from the trimmed buffers. */
	len = put_version(8192);
	desc_set(2, REQ_GPA, len, 1, 3);
	desc_set(3, RESP_GPA, 64, 2, 0);
	kick(2);
	ck_assert_uint_eq(used_len(1), 21);
	check_reply(RESP_GPA, 21, P9_TVERSION + 1, 1);
}
END_TEST

static void *loop_thread(void *loop)
{
	(void) evloop_run(loop);
	return NULL;
}

/* The same through the device's own timer on a running event loop. */
START_TEST(test_idle_trim_timer)
{
	struct evloop *loop;
	struct vdev *tdev;
	struct v9p_stats st;
	pthread_t th;

	ASSERT_OK(evloop_new(&loop));
	ASSERT_OK(v9p_new("timed", dir, false, loop, &tdev));
	/* swap the fixture's device for this one, on the same queue memory */
	tdev->transport.notify_used = count_irq;
	tdev->queues[0] = dev->queues[0];
	ASSERT_OK(tdev->ops->activate(tdev, 1));
	dev->ops->free(dev);
	dev = tdev;
	ck_assert_int_eq(pthread_create(&th, NULL, loop_thread, loop), 0);
	(void) put_version(8192);
	desc_set(0, REQ_GPA, 96 * 1024, 1, 1);
	desc_set(1, RESP_GPA, 64, 2, 0);
	kick(0);
	ck_assert_uint_eq(used_idx(), 1);
	/* armed at the request; idle for a whole V9P_IDLE_NS by the second expiry at the latest */
	for (int i = 0; i < 100; i++) {
		v9p_get_stats(dev, &st);
		if (st.trims)
			break;
		usleep(50 * 1000);
	}
	evloop_stop(loop);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	ck_assert_uint_eq(st.trims, 1);
	ck_assert_uint_eq(st.bytes_trimmed, 96 * 1024 - V9P_BUF_KEEP);
	/* A freed device leaves the loop: its timerfd's number, reused at once, registers again. */
	dev->ops->free(dev);
	ASSERT_OK(v9p_new("timed", dir, false, loop, &dev));
	dev->ops->free(dev);
	evloop_free(loop);
	ASSERT_OK(v9p_new("share", dir, false, NULL, &dev)); /* for the teardown */
}
END_TEST

/*
 * The device over the 9p worker: requests go through the shared areas, and a reset on a vCPU
 * thread reaches the worker from the event loop at once: the fids it held (here a walked
 * directory's descriptor) are gone without waiting for the guest's next request.
 */
START_TEST(test_remote_reset_reaches_the_worker)
{
	struct p9_export e = {.dir = dir};
	struct p9_export_result res;
	struct p9_worker *w = NULL;
	struct evloop *loop;
	struct vdev *tdev;
	uint8_t buf[256];
	struct p9_out o;
	char sub[4200];
	pthread_t th;
	unsigned held = 1;

	cctest_mkdir_at(dir, "sub");
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	ASSERT_OK(p9_worker_start(&e, 1, NULL, NULL, NULL, &w, &res));
	ASSERT_OK(res.error);
	ASSERT_OK(evloop_new(&loop));
	ASSERT_OK(v9p_new_remote("remote", w, 0, loop, &tdev));
	tdev->transport.notify_used = count_irq;
	tdev->queues[0] = dev->queues[0];
	ASSERT_OK(tdev->ops->activate(tdev, 1));
	dev->ops->free(dev);
	dev = tdev;
	p9_out_init(&o, buf, sizeof(buf));
	p9_put_u32(&o, 8192);
	p9_put_str(&o, "9P2000.L");
	ck_assert_uint_eq(send_msg(&o, buf, P9_TVERSION, 1, 0), P9_TVERSION + 1);
	p9_out_init(&o, buf, sizeof(buf));
	p9_put_u32(&o, 0);
	p9_put_u32(&o, ~0u);
	p9_put_str(&o, "");
	p9_put_str(&o, "");
	p9_put_u32(&o, 0);
	ck_assert_uint_eq(send_msg(&o, buf, P9_TATTACH, 2, 2), P9_TATTACH + 1);
	p9_out_init(&o, buf, sizeof(buf));
	p9_put_u32(&o, 0);
	p9_put_u32(&o, 1);
	p9_put_u16(&o, 1);
	p9_put_str(&o, "sub");
	ck_assert_uint_eq(send_msg(&o, buf, P9_TWALK, 3, 4), P9_TWALK + 1);
	ck_assert_uint_eq(cctest_fds_on(p9_worker_pid(w), sub, false), 1);
	ck_assert_int_eq(pthread_create(&th, NULL, loop_thread, loop), 0);
	dev->ops->reset(dev); /* as a vCPU thread does: no request follows */
	for (int i = 0; i < 200 && held; i++) {
		held = cctest_fds_on(p9_worker_pid(w), sub, false);
		if (held)
			usleep(10 * 1000);
	}
	evloop_stop(loop);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	ck_assert_msg(held == 0, "the worker still holds fid 1 after the reset");
	dev->ops->free(dev);
	evloop_free(loop);
	p9_worker_free(w);
	ASSERT_OK(v9p_new("share", dir, false, NULL, &dev)); /* for the teardown */
}
END_TEST

static Suite *p9_dev_suite(void)
{
	Suite *s = suite_create("9p-dev");
	TCase *tc = tcase_create("dev");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_config_and_features);
	tcase_add_test(tc, test_request_through_queue);
	tcase_add_test(tc, test_split_buffers);
	tcase_add_test(tc, test_bad_chains_do_not_stop_the_queue);
	tcase_add_test(tc, test_reset_forgets_session);
	tcase_add_test(tc, test_idle_trim);
	tcase_add_test(tc, test_idle_trim_timer);
	tcase_add_test(tc, test_remote_reset_reaches_the_worker);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(p9_dev_suite());
}
