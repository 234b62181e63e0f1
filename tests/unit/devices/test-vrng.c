/* SPDX-License-Identifier: Apache-2.0 */
/* virtio-rng against fake guest memory, with getrandom() and with a failing source. */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "cctest.h"
#include "devtest.h"
#include "rng/vrng.h"

static struct dt_guest g;
static struct dt_queue q;
static struct dt_transport t;
static struct vdev *dev;

static void start(struct vdev *d)
{
	dev = d;
	dt_guest_init(&g);
	dt_transport_attach(&t, dev);
	dt_queue_init(&q, &g, dev, 0, 16);
	ASSERT_OK(dev->ops->activate(dev, dev->ops->get_features(dev)));
}

static void stop(void)
{
	dev->ops->free(dev);
	dt_guest_done(&g);
}

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

START_TEST(test_vrng_fills_buffers)
{
	struct vdev *d;
	uint64_t a_gpa, b_gpa;
	uint8_t *a, *b;
	uint32_t id, len;

	ASSERT_OK(vrng_new(&d));
	start(d);
	ck_assert_uint_eq(dev->ops->device_id, 4);
	ck_assert_uint_eq(dev->ops->get_features(dev), 0);
	a = dt_alloc(&g, 64, &a_gpa);
	b = dt_alloc(&g, 4096, &b_gpa);
	struct dt_buf two[] = {{a_gpa, 64, true}, {b_gpa, 4096, true}};
	dt_queue_add(&q, two, 2);
	dev->ops->queue_notify(dev, 0);
	ck_assert(dt_queue_used(&q, &id, &len));
	ck_assert_uint_eq(len, 64 + 4096);
	ck_assert(!all_zero(a, 64));
	ck_assert(!all_zero(b + 4096 - 64, 64));
	ck_assert_uint_eq(vrng_get_bytes(dev), 64 + 4096);
	ck_assert_uint_eq(t.used_irqs, 1);
	stop();
}
END_TEST

START_TEST(test_vrng_caps_request)
{
	struct vdev *d;
	uint64_t gpa;
	uint8_t *p;
	uint32_t id, len;

	ASSERT_OK(vrng_new(&d));
	start(d);
	p = dt_alloc(&g, VRNG_MAX_REQ + 4096, &gpa);
	struct dt_buf big[] = {{gpa, VRNG_MAX_REQ + 4096, true}};
	dt_queue_add(&q, big, 1);
	dev->ops->queue_notify(dev, 0);
	ck_assert(dt_queue_used(&q, &id, &len));
	ck_assert_uint_eq(len, VRNG_MAX_REQ);
	ck_assert(all_zero(p + VRNG_MAX_REQ, 4096));
	stop();
}
END_TEST

START_TEST(test_vrng_readable_only_chain_gets_nothing)
{
	struct vdev *d;
	uint64_t gpa;
	uint8_t *p;
	uint32_t id, len;

	ASSERT_OK(vrng_new(&d));
	start(d);
	p = dt_alloc(&g, 128, &gpa);
	struct dt_buf ro[] = {{gpa, 128, false}};
	dt_queue_add(&q, ro, 1);
	dev->ops->queue_notify(dev, 0);
	ck_assert(dt_queue_used(&q, &id, &len));
	ck_assert_uint_eq(len, 0);
	ck_assert(all_zero(p, 128));
	stop();
}
END_TEST

static ssize_t empty_source(void *buf, size_t len, unsigned flags)
{
	(void) buf;
	(void) len;
	(void) flags;
	errno = EAGAIN;
	return -1;
}

START_TEST(test_vrng_source_not_ready)
{
	struct vdev *d;
	uint64_t gpa;
	uint32_t id, len;

	ASSERT_OK(vrng_new_with_source(empty_source, &d));
	start(d);
	(void) dt_alloc(&g, 32, &gpa);
	struct dt_buf one[] = {{gpa, 32, true}};
	dt_queue_add(&q, one, 1);
	dev->ops->queue_notify(dev, 0);
	ck_assert(dt_queue_used(&q, &id, &len));
	ck_assert_uint_eq(len, 0);
	stop();
}
END_TEST

static Suite *vrng_suite(void)
{
	Suite *s = suite_create("vrng");
	TCase *tc = tcase_create("rng");

	tcase_add_test(tc, test_vrng_fills_buffers);
	tcase_add_test(tc, test_vrng_caps_request);
	tcase_add_test(tc, test_vrng_readable_only_chain_gets_nothing);
	tcase_add_test(tc, test_vrng_source_not_ready);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(vrng_suite());
}
