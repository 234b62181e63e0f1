/* SPDX-License-Identifier: Apache-2.0 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "vtest.h"

void vtest_guest_init(struct vtest_guest *g)
{
	memset(g, 0, sizeof(*g));
	gmem_init(&g->gm);
	g->a = calloc(1, VTEST_A_SIZE);
	g->b = calloc(1, VTEST_B_SIZE);
	g->ro = calloc(1, VTEST_RO_SIZE);
	ck_assert(g->a && g->b && g->ro);
	ck_assert_int_eq(gmem_add_region(&g->gm, VTEST_A_GPA, VTEST_A_SIZE, g->a, 0), 0);
	ck_assert_int_eq(gmem_add_region(&g->gm, VTEST_B_GPA, VTEST_B_SIZE, g->b, 0), 0);
	ck_assert_int_eq(gmem_add_region(&g->gm, VTEST_RO_GPA, VTEST_RO_SIZE, g->ro, GMEM_READONLY),
			 0);
}

void vtest_guest_done(struct vtest_guest *g)
{
	free(g->a);
	free(g->b);
	free(g->ro);
	memset(g, 0, sizeof(*g));
}

void *vtest_hva(struct vtest_guest *g, uint64_t gpa)
{
	void *hva = NULL;

	ck_assert_int_eq(gmem_ptr(&g->gm, gpa, 1, &hva), 0);
	return hva;
}

void vtest_vq_setup(struct vtest_guest *g, struct virtq *vq, uint16_t num)
{
	memset(vq, 0, sizeof(*vq));
	vq->gm = &g->gm;
	vq->num = num;
	vq->desc_gpa = VTEST_DESC;
	vq->avail_gpa = VTEST_AVAIL;
	vq->used_gpa = VTEST_USED;
	vq->ready = true;
	virtq_reset(vq);
}

void vtest_desc_set(struct vtest_guest *g, uint64_t table_gpa, unsigned i, uint64_t addr,
		    uint32_t len, uint16_t flags, uint16_t next)
{
	uint64_t gpa = table_gpa + 16ull * i;

	ck_assert_int_eq(gmem_write_u64(&g->gm, gpa, addr), 0);
	ck_assert_int_eq(gmem_write_u32(&g->gm, gpa + 8, len), 0);
	ck_assert_int_eq(gmem_write_u16(&g->gm, gpa + 12, flags), 0);
	ck_assert_int_eq(gmem_write_u16(&g->gm, gpa + 14, next), 0);
}

void vtest_avail_add(struct vtest_guest *g, const struct virtq *vq, uint16_t head)
{
	uint16_t idx;

	ck_assert_int_eq(gmem_read_u16(&g->gm, vq->avail_gpa + 2, &idx), 0);
	ck_assert_int_eq(gmem_write_u16(&g->gm, vq->avail_gpa + 4 + 2ull * (idx % vq->num), head),
			 0);
	__atomic_store_n((uint16_t *) vtest_hva(g, vq->avail_gpa + 2), (uint16_t) (idx + 1),
			 __ATOMIC_RELEASE);
}

void vtest_avail_set_idx(struct vtest_guest *g, const struct virtq *vq, uint16_t idx)
{
	__atomic_store_n((uint16_t *) vtest_hva(g, vq->avail_gpa + 2), idx, __ATOMIC_RELEASE);
}

void vtest_avail_set_flags(struct vtest_guest *g, const struct virtq *vq, uint16_t flags)
{
	ck_assert_int_eq(gmem_write_u16(&g->gm, vq->avail_gpa, flags), 0);
}

void vtest_avail_set_used_event(struct vtest_guest *g, const struct virtq *vq, uint16_t ev)
{
	ck_assert_int_eq(gmem_write_u16(&g->gm, vq->avail_gpa + 4 + 2ull * vq->num, ev), 0);
}

uint16_t vtest_used_idx(struct vtest_guest *g, const struct virtq *vq)
{
	uint16_t v;

	/* Atomic, as a real driver's read: the device thread writes it concurrently. */
	v = __atomic_load_n((uint16_t *) vtest_hva(g, vq->used_gpa + 2), __ATOMIC_ACQUIRE);
	return v;
}

uint16_t vtest_used_flags(struct vtest_guest *g, const struct virtq *vq)
{
	uint16_t v;

	ck_assert_int_eq(gmem_read_u16(&g->gm, vq->used_gpa, &v), 0);
	return v;
}

uint16_t vtest_used_avail_event(struct vtest_guest *g, const struct virtq *vq)
{
	uint16_t v;

	ck_assert_int_eq(gmem_read_u16(&g->gm, vq->used_gpa + 4 + 8ull * vq->num, &v), 0);
	return v;
}

void vtest_used_elem(struct vtest_guest *g, const struct virtq *vq, uint16_t i, uint32_t *ret_id,
		     uint32_t *ret_len)
{
	uint64_t gpa = vq->used_gpa + 4 + 8ull * (i % vq->num);

	ck_assert_int_eq(gmem_read_u32(&g->gm, gpa, ret_id), 0);
	ck_assert_int_eq(gmem_read_u32(&g->gm, gpa + 4, ret_len), 0);
}

static int vtest_irq_trigger(void *opaque)
{
	struct vtest_irq *irq = opaque;

	__atomic_fetch_add(&irq->count, 1, __ATOMIC_SEQ_CST);
	return 0;
}

static const struct irq_line_ops vtest_irq_ops = {.trigger = vtest_irq_trigger};

void vtest_irq_init(struct vtest_irq *irq)
{
	memset(irq, 0, sizeof(*irq));
	irq->line = (struct irq_line){.ops = &vtest_irq_ops, .opaque = irq, .gsi = 5};
}
