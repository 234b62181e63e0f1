/* SPDX-License-Identifier: Apache-2.0 */
/* Split virtqueue: chain walking, hostile rings, used ring, notification decisions. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cctest.h"
#include "virtio/vdev.h"
#include "virtio/virtq.h"
#include "vtest.h"

static struct vtest_guest g;
static struct virtq vq;
static struct virtq_chain *chain;

static void setup(void)
{
	vtest_guest_init(&g);
	vtest_vq_setup(&g, &vq, 256);
	chain = calloc(1, sizeof(*chain));
	ck_assert_ptr_nonnull(chain);
}

static void teardown(void)
{
	free(chain);
	vtest_guest_done(&g);
}

START_TEST(test_virtq_pop_empty_returns_zero)
{
	ck_assert(!virtq_has_avail(&vq));
	ck_assert_int_eq(virtq_pop(&vq, chain), 0);
}
END_TEST

START_TEST(test_virtq_pop_reads_out_then_in)
{
	uint32_t id, len;

	vtest_desc_set(&g, VTEST_DESC, 3, VTEST_BUF, 100, VIRTQ_DESC_F_NEXT, 7);
	vtest_desc_set(&g, VTEST_DESC, 7, VTEST_BUF + 0x1000, 50,
		       VIRTQ_DESC_F_WRITE | VIRTQ_DESC_F_NEXT, 9);
	vtest_desc_set(&g, VTEST_DESC, 9, VTEST_B_GPA + 0x100, 20, VIRTQ_DESC_F_WRITE, 0);
	vtest_avail_add(&g, &vq, 3);
	ck_assert(virtq_has_avail(&vq));

	ck_assert_int_eq(virtq_pop(&vq, chain), 1);
	ck_assert_uint_eq(chain->head, 3);
	ck_assert_uint_eq(chain->n_out, 1);
	ck_assert_uint_eq(chain->n_in, 2);
	ck_assert_uint_eq(chain->out_len, 100);
	ck_assert_uint_eq(chain->in_len, 70);
	ck_assert_ptr_eq(chain->iov[0].iov_base, vtest_hva(&g, VTEST_BUF));
	ck_assert_uint_eq(chain->iov[0].iov_len, 100);
	ck_assert_ptr_eq(chain->iov[1].iov_base, vtest_hva(&g, VTEST_BUF + 0x1000));
	ck_assert_ptr_eq(chain->iov[2].iov_base, vtest_hva(&g, VTEST_B_GPA + 0x100));
	ck_assert(!virtq_has_avail(&vq));
	ck_assert_int_eq(virtq_pop(&vq, chain), 0);

	ck_assert_uint_eq(vtest_used_idx(&g, &vq), 0);
	ASSERT_OK(virtq_push(&vq, 3, 42));
	ck_assert_uint_eq(vtest_used_idx(&g, &vq), 1);
	vtest_used_elem(&g, &vq, 0, &id, &len);
	ck_assert_uint_eq(id, 3);
	ck_assert_uint_eq(len, 42);
}
END_TEST

START_TEST(test_virtq_pop_wraps_indexes)
{
	/* Start both sides near the 16-bit wrap, with a small queue. */
	vtest_vq_setup(&g, &vq, 4);
	vq.last_avail = 0xfffe;
	vq.used_idx = 0xfffe;
	vtest_avail_set_idx(&g, &vq, 0xfffe);
	for (unsigned i = 0; i < 4; i++) {
		vtest_desc_set(&g, VTEST_DESC, i, VTEST_BUF + 16 * i, 16, 0, 0);
		vtest_avail_add(&g, &vq, (uint16_t) i);
	}
	for (unsigned i = 0; i < 4; i++) {
		ck_assert_int_eq(virtq_pop(&vq, chain), 1);
		ck_assert_uint_eq(chain->head, i);
		ASSERT_OK(virtq_push(&vq, chain->head, 0));
	}
	ck_assert_int_eq(virtq_pop(&vq, chain), 0);
	ck_assert_uint_eq(vtest_used_idx(&g, &vq), 2);
}
END_TEST

START_TEST(test_virtq_pop_rejects_loop)
{
	vtest_desc_set(&g, VTEST_DESC, 0, VTEST_BUF, 8, VIRTQ_DESC_F_NEXT, 1);
	vtest_desc_set(&g, VTEST_DESC, 1, VTEST_BUF, 8, VIRTQ_DESC_F_NEXT, 2);
	vtest_desc_set(&g, VTEST_DESC, 2, VTEST_BUF, 8, VIRTQ_DESC_F_NEXT, 0);
	vtest_avail_add(&g, &vq, 0);
	ASSERT_ERRNO(virtq_pop(&vq, chain), EINVAL);
	/* The bad chain is consumed and can be handed back. */
	ck_assert_uint_eq(chain->head, 0);
	ck_assert_uint_eq(chain->n_out + chain->n_in, 0);
	ck_assert_int_eq(virtq_pop(&vq, chain), 0);
	ASSERT_OK(virtq_push(&vq, 0, 0));
	ck_assert_uint_eq(vtest_used_idx(&g, &vq), 1);
}
END_TEST

START_TEST(test_virtq_pop_rejects_self_loop)
{
	vtest_vq_setup(&g, &vq, 1);
	vtest_desc_set(&g, VTEST_DESC, 0, 0, 0, VIRTQ_DESC_F_NEXT, 0);
	vtest_avail_add(&g, &vq, 0);
	ASSERT_ERRNO(virtq_pop(&vq, chain), EINVAL);
}
END_TEST

START_TEST(test_virtq_pop_rejects_bad_indexes)
{
	/* head out of range */
	vtest_avail_add(&g, &vq, 256);
	ASSERT_ERRNO(virtq_pop(&vq, chain), EINVAL);
	ck_assert_uint_eq(chain->head, 256);
	ASSERT_ERRNO(virtq_push(&vq, chain->head, 0), EINVAL);
	/* next out of range */
	vtest_desc_set(&g, VTEST_DESC, 0, VTEST_BUF, 8, VIRTQ_DESC_F_NEXT, 4000);
	vtest_avail_add(&g, &vq, 0);
	ASSERT_ERRNO(virtq_pop(&vq, chain), EINVAL);
	ck_assert_uint_eq(chain->head, 0);
}
END_TEST

START_TEST(test_virtq_pop_rejects_bad_addresses)
{
	static const struct {
		uint64_t addr;
		uint32_t len;
	} bad[] = {
		{VTEST_B_GPA + VTEST_B_SIZE - 4, 8},   /* runs off the end of B */
		{0x90000, 1},			       /* in no region */
		{UINT64_MAX - 2, 8},		       /* wraps */
		{VTEST_RO_GPA + VTEST_RO_SIZE - 1, 2}, /* leaves the read-only region */
	};

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		vtest_desc_set(&g, VTEST_DESC, i, bad[i].addr, bad[i].len, 0, 0);
		vtest_avail_add(&g, &vq, (uint16_t) i);
		ASSERT_ERRNO(virtq_pop(&vq, chain), EFAULT);
		ck_assert_uint_eq(chain->head, i);
	}
}
END_TEST

START_TEST(test_virtq_pop_rejects_write_in_readonly_memory)
{
	vtest_desc_set(&g, VTEST_DESC, 0, VTEST_RO_GPA, 64, 0, 0);
	vtest_desc_set(&g, VTEST_DESC, 1, VTEST_RO_GPA, 64, VIRTQ_DESC_F_WRITE, 0);
	vtest_avail_add(&g, &vq, 0);
	vtest_avail_add(&g, &vq, 1);
	ck_assert_int_eq(virtq_pop(&vq, chain), 1); /* reading read-only memory is fine */
	ASSERT_ERRNO(virtq_pop(&vq, chain), EFAULT);
}
END_TEST

START_TEST(test_virtq_pop_rejects_readable_after_writable)
{
	vtest_desc_set(&g, VTEST_DESC, 0, VTEST_BUF, 8, VIRTQ_DESC_F_WRITE | VIRTQ_DESC_F_NEXT, 1);
	vtest_desc_set(&g, VTEST_DESC, 1, VTEST_BUF + 8, 8, 0, 0);
	vtest_avail_add(&g, &vq, 0);
	ASSERT_ERRNO(virtq_pop(&vq, chain), EINVAL);
}
END_TEST

START_TEST(test_virtq_pop_limits_chain_length)
{
	vtest_vq_setup(&g, &vq, 1024);
	/* VIRTQ_CHAIN_MAX descriptors: accepted. */
	for (unsigned i = 0; i < VIRTQ_CHAIN_MAX; i++)
		vtest_desc_set(&g, VTEST_DESC, i, VTEST_BUF + i, 1,
			       i + 1 < VIRTQ_CHAIN_MAX ? VIRTQ_DESC_F_NEXT : 0, (uint16_t) (i + 1));
	vtest_avail_add(&g, &vq, 0);
	ck_assert_int_eq(virtq_pop(&vq, chain), 1);
	ck_assert_uint_eq(chain->n_out, VIRTQ_CHAIN_MAX);
	ck_assert_uint_eq(chain->out_len, VIRTQ_CHAIN_MAX);
	/* One more, without any loop: refused. */
	for (unsigned i = 0; i <= VIRTQ_CHAIN_MAX; i++)
		vtest_desc_set(&g, VTEST_DESC, i, VTEST_BUF + i, 1,
			       i < VIRTQ_CHAIN_MAX ? VIRTQ_DESC_F_NEXT : 0, (uint16_t) (i + 1));
	vtest_avail_add(&g, &vq, 0);
	ASSERT_ERRNO(virtq_pop(&vq, chain), EINVAL);
}
END_TEST

START_TEST(test_virtq_pop_splits_buffer_across_regions)
{
	vtest_desc_set(&g, VTEST_DESC, 0, VTEST_B_GPA - 10, 30, VIRTQ_DESC_F_WRITE, 0);
	vtest_avail_add(&g, &vq, 0);
	ck_assert_int_eq(virtq_pop(&vq, chain), 1);
	ck_assert_uint_eq(chain->n_in, 2);
	ck_assert_ptr_eq(chain->iov[0].iov_base, vtest_hva(&g, VTEST_B_GPA - 10));
	ck_assert_uint_eq(chain->iov[0].iov_len, 10);
	ck_assert_ptr_eq(chain->iov[1].iov_base, vtest_hva(&g, VTEST_B_GPA));
	ck_assert_uint_eq(chain->iov[1].iov_len, 20);
	ck_assert_uint_eq(chain->in_len, 30);
	/* A chain whose descriptors sit in different regions. */
	vtest_desc_set(&g, VTEST_DESC, 1, VTEST_RO_GPA, 4, VIRTQ_DESC_F_NEXT, 2);
	vtest_desc_set(&g, VTEST_DESC, 2, VTEST_B_GPA + 8, 4, VIRTQ_DESC_F_WRITE, 0);
	vtest_avail_add(&g, &vq, 1);
	ck_assert_int_eq(virtq_pop(&vq, chain), 1);
	ck_assert_uint_eq(chain->n_out, 1);
	ck_assert_uint_eq(chain->n_in, 1);
}
END_TEST

START_TEST(test_virtq_pop_skips_empty_descriptors)
{
	vtest_desc_set(&g, VTEST_DESC, 0, 0xdead0000, 0, VIRTQ_DESC_F_NEXT, 1);
	vtest_desc_set(&g, VTEST_DESC, 1, VTEST_BUF, 4, 0, 0);
	vtest_avail_add(&g, &vq, 0);
	ck_assert_int_eq(virtq_pop(&vq, chain), 1);
	ck_assert_uint_eq(chain->n_out, 1);
}
END_TEST

#define ITABLE (VTEST_BUF + 0x4000)

START_TEST(test_virtq_pop_follows_indirect_table)
{
	vq.indirect = true;
	vtest_desc_set(&g, ITABLE, 0, VTEST_BUF, 10, VIRTQ_DESC_F_NEXT, 2);
	vtest_desc_set(&g, ITABLE, 2, VTEST_BUF + 100, 20, VIRTQ_DESC_F_WRITE, 0);
	vtest_desc_set(&g, VTEST_DESC, 5, ITABLE, 3 * 16, VIRTQ_DESC_F_INDIRECT, 0);
	vtest_avail_add(&g, &vq, 5);
	ck_assert_int_eq(virtq_pop(&vq, chain), 1);
	ck_assert_uint_eq(chain->head, 5);
	ck_assert_uint_eq(chain->n_out, 1);
	ck_assert_uint_eq(chain->n_in, 1);
	ck_assert_uint_eq(chain->in_len, 20);

	/* A direct descriptor before the indirect one is allowed too. */
	vtest_desc_set(&g, VTEST_DESC, 4, VTEST_BUF + 200, 5, VIRTQ_DESC_F_NEXT, 5);
	vtest_avail_add(&g, &vq, 4);
	ck_assert_int_eq(virtq_pop(&vq, chain), 1);
	ck_assert_uint_eq(chain->n_out, 2);
	ck_assert_uint_eq(chain->n_in, 1);
}
END_TEST

START_TEST(test_virtq_pop_rejects_bad_indirect_tables)
{
	struct {
		uint64_t addr;
		uint32_t len;
		uint16_t flags;
		int err;
	} bad[] = {
		{ITABLE, 3 * 16 + 1, VIRTQ_DESC_F_INDIRECT, EINVAL}, /* len not a multiple */
		{ITABLE, 0, VIRTQ_DESC_F_INDIRECT, EINVAL},	     /* empty */
		{ITABLE + 0x100, 32, VIRTQ_DESC_F_INDIRECT, EINVAL}, /* nested */
		{ITABLE + 0x200, 32, VIRTQ_DESC_F_INDIRECT, EINVAL}, /* loop inside */
		{ITABLE + 0x300, 32, VIRTQ_DESC_F_INDIRECT, EINVAL}, /* next out of table */
		{ITABLE, 16 * (VIRTQ_CHAIN_MAX + 1), VIRTQ_DESC_F_INDIRECT, EINVAL}, /* too big */
		{0x90000, 32, VIRTQ_DESC_F_INDIRECT, EFAULT}, /* table not in memory */
		{ITABLE, 32, VIRTQ_DESC_F_INDIRECT | VIRTQ_DESC_F_NEXT, EINVAL},
		{ITABLE + 0x400, 32, VIRTQ_DESC_F_INDIRECT, EINVAL}, /* write then read */
	};

	vq.indirect = true;
	vtest_desc_set(&g, ITABLE, 0, VTEST_BUF, 10, 0, 0);
	vtest_desc_set(&g, ITABLE + 0x100, 0, ITABLE, 16, VIRTQ_DESC_F_INDIRECT, 0);
	vtest_desc_set(&g, ITABLE + 0x200, 0, VTEST_BUF, 1, VIRTQ_DESC_F_NEXT, 1);
	vtest_desc_set(&g, ITABLE + 0x200, 1, VTEST_BUF, 1, VIRTQ_DESC_F_NEXT, 0);
	vtest_desc_set(&g, ITABLE + 0x300, 0, VTEST_BUF, 1, VIRTQ_DESC_F_NEXT, 2);
	vtest_desc_set(&g, ITABLE + 0x400, 0, VTEST_BUF, 1, VIRTQ_DESC_F_WRITE | VIRTQ_DESC_F_NEXT,
		       1);
	vtest_desc_set(&g, ITABLE + 0x400, 1, VTEST_BUF, 1, 0, 0);
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		vtest_desc_set(&g, VTEST_DESC, i, bad[i].addr, bad[i].len, bad[i].flags, 1);
		vtest_avail_add(&g, &vq, (uint16_t) i);
		ck_assert_msg(virtq_pop(&vq, chain) == -bad[i].err, "case %u", i);
		ck_assert_uint_eq(chain->head, i);
	}
	/* Without VIRTIO_F_INDIRECT_DESC negotiated, even a good table is refused. */
	vq.indirect = false;
	vtest_desc_set(&g, VTEST_DESC, 20, ITABLE, 16, VIRTQ_DESC_F_INDIRECT, 0);
	vtest_avail_add(&g, &vq, 20);
	ASSERT_ERRNO(virtq_pop(&vq, chain), EINVAL);
}
END_TEST

START_TEST(test_virtq_broken_avail_idx_stops_queue)
{
	vtest_avail_set_idx(&g, &vq, 257); /* more than num ahead */
	ASSERT_ERRNO(virtq_pop(&vq, chain), EINVAL);
	ck_assert_uint_eq(chain->head, VIRTQ_NO_HEAD);
	ck_assert(vq.broken);
	ASSERT_ERRNO(virtq_push(&vq, chain->head, 0), EINVAL);
	/* No busy loop for a device that retries: the broken queue reads as empty. */
	ck_assert_int_eq(virtq_pop(&vq, chain), 0);
	ck_assert(!virtq_has_avail(&vq));
	virtq_reset(&vq);
	ck_assert(!vq.broken);
	vtest_avail_set_idx(&g, &vq, 0);
	ck_assert_int_eq(virtq_pop(&vq, chain), 0);
}
END_TEST

struct fake_transport {
	unsigned used[2], config, resets;
};

static void fake_notify_used(void *opaque, unsigned q)
{
	((struct fake_transport *) opaque)->used[q]++;
}

static void fake_notify_config(void *opaque)
{
	((struct fake_transport *) opaque)->config++;
}

static void fake_needs_reset(void *opaque)
{
	((struct fake_transport *) opaque)->resets++;
}

START_TEST(test_vdev_queue_done_interrupts_when_wanted)
{
	struct fake_transport ft;
	struct virtq qs[2];
	struct vdev dev = {
		.n_queues = 2,
		.queues = qs,
		.transport = {.notify_used = fake_notify_used,
			      .notify_config = fake_notify_config,
			      .needs_reset = fake_needs_reset,
			      .opaque = &ft},
	};

	memset(&ft, 0, sizeof(ft));
	vtest_vq_setup(&g, &qs[0], 256);
	memset(&qs[1], 0, sizeof(qs[1]));
	vtest_desc_set(&g, VTEST_DESC, 0, VTEST_BUF, 4, 0, 0);
	vtest_avail_add(&g, &qs[0], 0);
	ck_assert_int_eq(virtq_pop(&qs[0], chain), 1);
	ASSERT_OK(virtq_push(&qs[0], 0, 0));
	vdev_queue_done(&dev, 0);
	ck_assert_uint_eq(ft.used[0], 1);
	/* Driver suppressed interrupts: none. */
	vtest_avail_set_flags(&g, &qs[0], VIRTQ_AVAIL_F_NO_INTERRUPT);
	vdev_queue_done(&dev, 0);
	ck_assert_uint_eq(ft.used[0], 1);
	/* A queue that is not set up and an out-of-range index: nothing. */
	vdev_queue_done(&dev, 1);
	vdev_queue_done(&dev, 2);
	ck_assert_uint_eq(ft.used[1], 0);
	ck_assert_uint_eq(ft.resets, 0);
	/* A broken queue fails the device instead. */
	vtest_avail_set_idx(&g, &qs[0], 1000);
	ck_assert_int_lt(virtq_pop(&qs[0], chain), 0);
	vdev_queue_done(&dev, 0);
	ck_assert_uint_eq(ft.resets, 1);
	ck_assert_uint_eq(ft.used[0], 1);
	/* Without the hook, vdev_fail() is a no-op. */
	dev.transport.needs_reset = NULL;
	vdev_fail(&dev);
	ck_assert_uint_eq(ft.config, 0);
}
END_TEST

START_TEST(test_virtq_validate_checks_rings)
{
	ASSERT_OK(virtq_validate(&vq));
	vq.num = 0;
	ASSERT_ERRNO(virtq_validate(&vq), EINVAL);
	vq.num = 3;
	ASSERT_ERRNO(virtq_validate(&vq), EINVAL);
	vq.num = 2048;
	ASSERT_ERRNO(virtq_validate(&vq), EINVAL);
	vq.num = 1024;
	ASSERT_OK(virtq_validate(&vq));

	vq.desc_gpa = VTEST_DESC + 8; /* misaligned */
	ASSERT_ERRNO(virtq_validate(&vq), EINVAL);
	vq.desc_gpa = VTEST_A_SIZE - 16 * 4; /* straddles A and B: gmem_ptr refuses */
	ASSERT_ERRNO(virtq_validate(&vq), EFAULT);
	vq.desc_gpa = VTEST_DESC;
	vq.avail_gpa = VTEST_AVAIL + 1;
	ASSERT_ERRNO(virtq_validate(&vq), EINVAL);
	vq.avail_gpa = 0x200000;
	ASSERT_ERRNO(virtq_validate(&vq), EFAULT);
	vq.avail_gpa = VTEST_RO_GPA; /* the driver's ring may be read-only to us */
	ASSERT_OK(virtq_validate(&vq));
	vq.used_gpa = VTEST_USED + 2;
	ASSERT_ERRNO(virtq_validate(&vq), EINVAL);
	vq.used_gpa = VTEST_RO_GPA + 0x4000; /* we write the used ring */
	ASSERT_ERRNO(virtq_validate(&vq), EFAULT);
	vq.used_gpa = VTEST_B_GPA + VTEST_B_SIZE - 8;
	ASSERT_ERRNO(virtq_validate(&vq), EFAULT);
}
END_TEST

START_TEST(test_virtq_notify_without_event_idx)
{
	vtest_desc_set(&g, VTEST_DESC, 0, VTEST_BUF, 4, 0, 0);
	vtest_avail_add(&g, &vq, 0);
	ck_assert_int_eq(virtq_pop(&vq, chain), 1);
	ASSERT_OK(virtq_push(&vq, 0, 0));
	ck_assert(virtq_should_notify(&vq));
	vtest_avail_set_flags(&g, &vq, VIRTQ_AVAIL_F_NO_INTERRUPT);
	ck_assert(!virtq_should_notify(&vq));

	virtq_disable_notify(&vq);
	ck_assert_uint_eq(vtest_used_flags(&g, &vq), VIRTQ_USED_F_NO_NOTIFY);
	virtq_enable_notify(&vq);
	ck_assert_uint_eq(vtest_used_flags(&g, &vq), 0);
}
END_TEST

START_TEST(test_virtq_notify_with_event_idx)
{
	vq.event_idx = true;
	for (unsigned i = 0; i < 8; i++)
		vtest_desc_set(&g, VTEST_DESC, i, VTEST_BUF, 4, 0, 0);

	/* The first decision always interrupts (nothing signalled yet). */
	vtest_avail_add(&g, &vq, 0);
	ck_assert_int_eq(virtq_pop(&vq, chain), 1);
	ck_assert_uint_eq(vtest_used_avail_event(&g, &vq), 1); /* pop re-arms the kick */
	ASSERT_OK(virtq_push(&vq, 0, 0));
	vtest_avail_set_used_event(&g, &vq, 5);
	ck_assert(virtq_should_notify(&vq));
	/* Nothing new since: no interrupt. */
	ck_assert(!virtq_should_notify(&vq));

	/* used 1 -> 3: the driver waits for used_idx to pass 5, so no interrupt. */
	for (unsigned i = 1; i < 3; i++) {
		vtest_avail_add(&g, &vq, (uint16_t) i);
		ck_assert_int_eq(virtq_pop(&vq, chain), 1);
		ASSERT_OK(virtq_push(&vq, chain->head, 0));
	}
	ck_assert(!virtq_should_notify(&vq));
	/* used 3 -> 6 crosses used_event 5: interrupt. */
	for (unsigned i = 3; i < 6; i++) {
		vtest_avail_add(&g, &vq, (uint16_t) i);
		ck_assert_int_eq(virtq_pop(&vq, chain), 1);
		ASSERT_OK(virtq_push(&vq, chain->head, 0));
	}
	ck_assert(virtq_should_notify(&vq));
	/* avail_event follows last_avail, so the driver kicks for the next buffer. */
	ck_assert_int_eq(virtq_pop(&vq, chain), 0);
	ck_assert_uint_eq(vtest_used_avail_event(&g, &vq), 6);
	/* used_event exactly at the new index - 1 interrupts. */
	vtest_avail_set_used_event(&g, &vq, 6);
	vtest_avail_add(&g, &vq, 6);
	ck_assert_int_eq(virtq_pop(&vq, chain), 1);
	ASSERT_OK(virtq_push(&vq, chain->head, 0));
	ck_assert(virtq_should_notify(&vq));
	/* The NO_INTERRUPT flag is ignored with EVENT_IDX. */
	vtest_avail_set_flags(&g, &vq, VIRTQ_AVAIL_F_NO_INTERRUPT);
	vtest_avail_set_used_event(&g, &vq, 7);
	vtest_avail_add(&g, &vq, 7);
	ck_assert_int_eq(virtq_pop(&vq, chain), 1);
	ASSERT_OK(virtq_push(&vq, chain->head, 0));
	ck_assert(virtq_should_notify(&vq));
}
END_TEST

START_TEST(test_virtq_not_ready_does_nothing)
{
	vq.ready = false;
	vtest_desc_set(&g, VTEST_DESC, 0, VTEST_BUF, 4, 0, 0);
	vtest_avail_add(&g, &vq, 0);
	ck_assert_int_eq(virtq_pop(&vq, chain), 0);
	ASSERT_ERRNO(virtq_push(&vq, 0, 0), EINVAL);
	ck_assert(!virtq_should_notify(&vq));
}
END_TEST

START_TEST(test_virtq_push_batch_publishes_once)
{
	uint16_t heads[3] = {4, 9, 2};
	uint32_t lens[3] = {100, 200, 300};
	uint16_t bad[2] = {1, 256};
	uint32_t id, len;

	/* One invalid head: nothing is pushed. */
	ASSERT_ERRNO(virtq_push_batch(&vq, bad, lens, 2), EINVAL);
	ck_assert_uint_eq(vtest_used_idx(&g, &vq), 0);
	ck_assert_uint_eq(vq.used_idx, 0);

	ASSERT_OK(virtq_push_batch(&vq, heads, lens, 3));
	ck_assert_uint_eq(vtest_used_idx(&g, &vq), 3);
	for (uint16_t i = 0; i < 3; i++) {
		vtest_used_elem(&g, &vq, i, &id, &len);
		ck_assert_uint_eq(id, heads[i]);
		ck_assert_uint_eq(len, lens[i]);
	}
	ASSERT_OK(virtq_push_batch(&vq, heads, lens, 0));
	ck_assert_uint_eq(vtest_used_idx(&g, &vq), 3);
}
END_TEST

START_TEST(test_iov_helpers_copy_across_entries)
{
	char a[3], b[4], c[5], out[16] = {0};
	struct iovec iov[] = {{a, sizeof(a)}, {b, sizeof(b)}, {c, sizeof(c)}};

	ck_assert_uint_eq(iov_size(iov, 3), 12);
	ck_assert_uint_eq(iov_from_buf(iov, 3, 0, "abcdefghijkl", 12), 12);
	ck_assert_uint_eq(iov_to_buf(iov, 3, 2, out, sizeof(out)), 10);
	ck_assert_str_eq(out, "cdefghijkl");
	ck_assert_uint_eq(iov_from_buf(iov, 3, 5, "XYZ", 3), 3);
	memset(out, 0, sizeof(out));
	ck_assert_uint_eq(iov_to_buf(iov, 3, 0, out, 9), 9);
	ck_assert_str_eq(out, "abcdeXYZi");
	ck_assert_uint_eq(iov_to_buf(iov, 3, 12, out, 4), 0);
	ck_assert_uint_eq(iov_from_buf(iov, 3, 11, "QQ", 2), 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("virtq");
	TCase *tc = tcase_create("virtq");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_virtq_pop_empty_returns_zero);
	tcase_add_test(tc, test_virtq_pop_reads_out_then_in);
	tcase_add_test(tc, test_virtq_pop_wraps_indexes);
	tcase_add_test(tc, test_virtq_pop_rejects_loop);
	tcase_add_test(tc, test_virtq_pop_rejects_self_loop);
	tcase_add_test(tc, test_virtq_pop_rejects_bad_indexes);
	tcase_add_test(tc, test_virtq_pop_rejects_bad_addresses);
	tcase_add_test(tc, test_virtq_pop_rejects_write_in_readonly_memory);
	tcase_add_test(tc, test_virtq_pop_rejects_readable_after_writable);
	tcase_add_test(tc, test_virtq_pop_limits_chain_length);
	tcase_add_test(tc, test_virtq_pop_splits_buffer_across_regions);
	tcase_add_test(tc, test_virtq_pop_skips_empty_descriptors);
	tcase_add_test(tc, test_virtq_pop_follows_indirect_table);
	tcase_add_test(tc, test_virtq_pop_rejects_bad_indirect_tables);
	tcase_add_test(tc, test_virtq_broken_avail_idx_stops_queue);
	tcase_add_test(tc, test_vdev_queue_done_interrupts_when_wanted);
	tcase_add_test(tc, test_virtq_validate_checks_rings);
	tcase_add_test(tc, test_virtq_notify_without_event_idx);
	tcase_add_test(tc, test_virtq_notify_with_event_idx);
	tcase_add_test(tc, test_virtq_not_ready_does_nothing);
	tcase_add_test(tc, test_virtq_push_batch_publishes_once);
	tcase_add_test(tc, test_iov_helpers_copy_across_entries);
	suite_add_tcase(s, tc);
	return cctest_run_suite(s);
}
