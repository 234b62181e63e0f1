/* SPDX-License-Identifier: Apache-2.0 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "cc/macro.h"
#include "devtest.h"

void dt_guest_init(struct dt_guest *g)
{
	memset(g, 0, sizeof(*g));
	gmem_init(&g->gm);
	g->mem = calloc(1, DT_MEM_SIZE);
	ck_assert_ptr_nonnull(g->mem);
	ck_assert_int_eq(gmem_add_region(&g->gm, 0, DT_MEM_SIZE, g->mem, 0), 0);
	g->next_free = DT_BUF_BASE;
}

void dt_guest_done(struct dt_guest *g)
{
	free(g->mem);
	memset(g, 0, sizeof(*g));
}

void *dt_alloc(struct dt_guest *g, size_t len, uint64_t *ret_gpa)
{
	uint64_t gpa = g->next_free;

	ck_assert_uint_le(gpa + len, DT_MEM_SIZE);
	g->next_free = ALIGN_UP(gpa + len, 64u);
	memset(g->mem + gpa, 0, len);
	*ret_gpa = gpa;
	return g->mem + gpa;
}

void *dt_hva(struct dt_guest *g, uint64_t gpa)
{
	ck_assert_uint_lt(gpa, DT_MEM_SIZE);
	return g->mem + gpa;
}

static void put16(struct dt_guest *g, uint64_t gpa, uint16_t v)
{
	ck_assert_int_eq(gmem_write_u16(&g->gm, gpa, v), 0);
}

void dt_queue_driver_init(struct dt_queue *q, struct dt_guest *g, unsigned index, uint16_t num)
{
	ck_assert_uint_le(num, 1024);
	memset(q, 0, sizeof(*q));
	q->g = g;
	q->num = num;
	q->desc = DT_RING_BASE + index * 0x10000ull;
	q->avail = q->desc + 0x4000;
	q->used = q->desc + 0x8000;
	memset(g->mem + q->desc, 0, 0x10000);
}

void dt_queue_init(struct dt_queue *q, struct dt_guest *g, struct vdev *dev, unsigned index,
		   uint16_t num)
{
	struct virtq *vq;

	ck_assert_uint_lt(index, dev->n_queues);
	dt_queue_driver_init(q, g, index, num);
	vq = &dev->queues[index];
	q->vq = vq;
	memset(vq, 0, sizeof(*vq));
	vq->gm = &g->gm;
	vq->num = num;
	vq->desc_gpa = q->desc;
	vq->avail_gpa = q->avail;
	vq->used_gpa = q->used;
	vq->ready = true;
	virtq_reset(vq);
	ck_assert_int_eq(virtq_validate(vq), 0);
}

uint16_t dt_queue_add(struct dt_queue *q, const struct dt_buf *bufs, unsigned n)
{
	uint16_t head = q->next_desc;

	ck_assert_uint_gt(n, 0);
	ck_assert_uint_le(n, q->num);
	for (unsigned i = 0; i < n; i++) {
		uint16_t idx = (uint16_t) ((head + i) % q->num);
		uint64_t gpa = q->desc + 16ull * idx;
		uint16_t flags = bufs[i].writable ? 2 : 0;

		if (i + 1 < n)
			flags |= 1;
		ck_assert_int_eq(gmem_write_u64(&q->g->gm, gpa, bufs[i].gpa), 0);
		ck_assert_int_eq(gmem_write_u32(&q->g->gm, gpa + 8, bufs[i].len), 0);
		put16(q->g, gpa + 12, flags);
		put16(q->g, gpa + 14, (uint16_t) ((idx + 1) % q->num));
	}
	q->next_desc = (uint16_t) ((head + n) % q->num);
	put16(q->g, q->avail + 4 + 2ull * (q->avail_idx % q->num), head);
	q->avail_idx++;
	put16(q->g, q->avail + 2, q->avail_idx);
	return head;
}

void dt_queue_set_avail_idx(struct dt_queue *q, uint16_t idx)
{
	q->avail_idx = idx;
	put16(q->g, q->avail + 2, idx);
}

bool dt_queue_used(struct dt_queue *q, uint32_t *ret_id, uint32_t *ret_len)
{
	uint16_t used_idx;
	uint64_t elem;

	ck_assert_int_eq(gmem_read_u16(&q->g->gm, q->used + 2, &used_idx), 0);
	if (used_idx == q->used_seen)
		return false;
	elem = q->used + 4 + 8ull * (q->used_seen % q->num);
	ck_assert_int_eq(gmem_read_u32(&q->g->gm, elem, ret_id), 0);
	ck_assert_int_eq(gmem_read_u32(&q->g->gm, elem + 4, ret_len), 0);
	q->used_seen++;
	return true;
}

static void dt_notify_used(void *opaque, unsigned q)
{
	struct dt_transport *t = opaque;

	(void) q;
	t->used_irqs++;
}

static void dt_notify_config(void *opaque)
{
	(void) opaque;
}

static void dt_needs_reset(void *opaque)
{
	struct dt_transport *t = opaque;

	t->needs_reset++;
}

void dt_transport_attach(struct dt_transport *t, struct vdev *dev)
{
	memset(t, 0, sizeof(*t));
	dev->transport = (struct vdev_transport){
		.notify_used = dt_notify_used,
		.notify_config = dt_notify_config,
		.needs_reset = dt_needs_reset,
		.opaque = t,
	};
}
