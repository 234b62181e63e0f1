/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Test helpers for the virtio suites: fake guest memory (malloc'd buffers in a gmem), the
 * driver's side of a split virtqueue, and a fake interrupt line that counts triggers.
 *
 * Guest physical layout:
 *   [0x00000, 0x40000) region A (RAM)      rings at VTEST_DESC/AVAIL/USED, buffers above
 *   [0x40000, 0x80000) region B (RAM), adjacent to A
 *   [0x100000, 0x110000) region C, read-only
 */

#include <stdint.h>

#include "base/gmem.h"
#include "base/irq.h"
#include "virtio/virtq.h"

#define VTEST_A_GPA   0x0ull
#define VTEST_A_SIZE  0x40000ull
#define VTEST_B_GPA   0x40000ull
#define VTEST_B_SIZE  0x40000ull
#define VTEST_RO_GPA  0x100000ull
#define VTEST_RO_SIZE 0x10000ull

#define VTEST_DESC  0x10000ull
#define VTEST_AVAIL 0x20000ull
#define VTEST_USED  0x30000ull
#define VTEST_BUF   0x34000ull /* scratch buffers from here to the end of region A */

struct vtest_guest {
	struct gmem gm;
	uint8_t *a, *b, *ro;
};

void vtest_guest_init(struct vtest_guest *g);
void vtest_guest_done(struct vtest_guest *g);
/* Host pointer for a guest address (test-side shortcut; asserts it is mapped). */
void *vtest_hva(struct vtest_guest *g, uint64_t gpa);

/* Set vq up as the transport would, at the standard ring addresses. */
void vtest_vq_setup(struct vtest_guest *g, struct virtq *vq, uint16_t num);

/* Driver side. */
void vtest_desc_set(struct vtest_guest *g, uint64_t table_gpa, unsigned i, uint64_t addr,
		    uint32_t len, uint16_t flags, uint16_t next);
void vtest_avail_add(struct vtest_guest *g, const struct virtq *vq, uint16_t head);
void vtest_avail_set_idx(struct vtest_guest *g, const struct virtq *vq, uint16_t idx);
void vtest_avail_set_flags(struct vtest_guest *g, const struct virtq *vq, uint16_t flags);
void vtest_avail_set_used_event(struct vtest_guest *g, const struct virtq *vq, uint16_t ev);
uint16_t vtest_used_idx(struct vtest_guest *g, const struct virtq *vq);
uint16_t vtest_used_flags(struct vtest_guest *g, const struct virtq *vq);
uint16_t vtest_used_avail_event(struct vtest_guest *g, const struct virtq *vq);
void vtest_used_elem(struct vtest_guest *g, const struct virtq *vq, uint16_t i, uint32_t *ret_id,
		     uint32_t *ret_len);

/* An irq_line that counts triggers. */
struct vtest_irq {
	struct irq_line line;
	unsigned count;
};
void vtest_irq_init(struct vtest_irq *irq);
