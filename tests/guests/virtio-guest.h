/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The minimal virtio-mmio (version 2) driver shared by the test guests: finding windows from the
 * "virtio_mmio.device=<size>@0x<base>:<irq>" command-line entries, VERSION_1-only negotiation,
 * split-queue setup, posting buffers and polling the used ring.
 */

#include <stdint.h>

#define VG_NUM 8

#define VG_R_MAGIC	   0x000
#define VG_R_VERSION	   0x004
#define VG_R_DEVICE_ID	   0x008
#define VG_R_DEV_FEAT	   0x010
#define VG_R_DEV_FEAT_SEL  0x014
#define VG_R_DRV_FEAT	   0x020
#define VG_R_DRV_FEAT_SEL  0x024
#define VG_R_QUEUE_SEL	   0x030
#define VG_R_QUEUE_NUM_MAX 0x034
#define VG_R_QUEUE_NUM	   0x038
#define VG_R_QUEUE_READY   0x044
#define VG_R_QUEUE_NOTIFY  0x050
#define VG_R_ISR	   0x060
#define VG_R_ISR_ACK	   0x064
#define VG_R_STATUS	   0x070
#define VG_R_DESC_LO	   0x080
#define VG_R_DRIVER_LO	   0x090
#define VG_R_DEVICE_LO	   0x0a0
#define VG_R_CONFIG	   0x100

#define VG_DESC_NEXT  1
#define VG_DESC_WRITE 2

struct vg_desc {
	uint64_t addr;
	uint32_t len;
	uint16_t flags;
	uint16_t next;
};

struct vg_ring {
	struct vg_desc descs[VG_NUM] __attribute__((aligned(16)));
	struct {
		uint16_t flags, idx, ring[VG_NUM], used_event;
	} avail __attribute__((aligned(4)));
	struct {
		uint16_t flags;
		volatile uint16_t idx;
		struct {
			uint32_t id, len;
		} ring[VG_NUM];
		uint16_t avail_event;
	} used __attribute__((aligned(4)));
	uint16_t seen;
};

int vg_hexval(char c);
/* The base of the next command-line window at or after *p (advanced past it); 0 if none. */
uint64_t vg_next_window(const char **p);
/* The first declared virtio-mmio v2 device with this device ID; 0 if none. */
uint64_t vg_find_device(const char *cmdline, uint32_t id);
uint32_t vg_rd(uint64_t base, uint32_t off);
void vg_wr(uint64_t base, uint32_t off, uint32_t v);
/* Reset, ACKNOWLEDGE|DRIVER, VERSION_1 only, FEATURES_OK: 0, 1 (no VERSION_1), 2 (refused). */
int vg_negotiate(uint64_t base);
/* Queue q on the ring r: 0, 1 (busy or smaller than VG_NUM), 2 (not ready after enabling). */
int vg_queue_setup(uint64_t base, unsigned q, struct vg_ring *r);
/* Sets DRIVER_OK: 0, or 1 if the status does not read back. */
int vg_driver_ok(uint64_t base);
/*
 * vg_negotiate, then queues 0..nq-1 on rings[0..nq-1], then DRIVER_OK: 0, 1 or 2 (from
 * vg_negotiate), 3 (a queue failed), 4 (DRIVER_OK refused).
 */
int vg_setup(uint64_t base, struct vg_ring *rings, unsigned nq);
/* Publishes the chain starting at descriptor head on queue q and kicks it. */
void vg_kick(uint64_t base, unsigned q, struct vg_ring *r, unsigned head);
/* One single-descriptor chain in slot d of queue q; kicks the queue. */
void vg_post(uint64_t base, unsigned q, struct vg_ring *r, unsigned d, void *buf, uint32_t len,
	     int writable);
/* The next used entry's descriptor id (consumed), or -1 after max_spins polls. */
int vg_wait_used(struct vg_ring *r, unsigned long max_spins);
/*
 * InterruptStatus once any of bits is set, or its last value after max_reads reads. A device
 * publishes the used entry before it raises the interrupt, so a driver that polls the used
 * ring must wait for the bit rather than read it once.
 */
uint32_t vg_wait_isr(uint64_t base, uint32_t bits, unsigned long max_reads);
/* The length of the last consumed used entry. */
uint32_t vg_last_len(const struct vg_ring *r);
