/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fuzz virtio-balloon's guest-facing parsing: what the guest may make the VMM discard.
 *
 * Input: [0] control. Bit 0 picks the mode:
 *   0, the balloon map: [1..32] four ranges removed from the map (le32 gpa, le32 size: the
 *      kernel segments), then operations, each an opcode byte (mod 4): 0 a PFN array (a length
 *      byte n, then n le32 PFNs), 1 a guest range (le32 gpa, le32 len) in low RAM, 2 a host
 *      range (le32 offset from low RAM's host base, le32 len), 3 a guest range in high RAM.
 *   1, the device: bit 1 EVENT_IDX, bit 2 INDIRECT_DESC, bit 3 PAGE_REPORTING acked;
 *      [1..] the guest memory image (FUZZ_MEM_SIZE bytes, zero-padded): queue i's descriptor
 *      table at 0x600*i (16 entries), avail ring at +0x100, used ring at +0x200. Balloon RAM
 *      (in the map but for a hole) is a separate region at RAM_GPA. All three queues are
 *      kicked.
 * The discard callback never touches memory: it aborts unless the range is whole pages of the
 * map's RAM outside every removed range (checked against the inputs, not the map).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "density/balloon-map.h"
#include "balloon/vballoon.h"
#include "base/gmem.h"

#define PG	      BALLOON_PAGE_SIZE
#define LOW_SIZE      0x10000000ull /* 256 MiB at gpa 0 */
#define HIGH_GPA      0x100000000ull
#define HIGH_SIZE     0x1000000ull
#define FAKE_LOW_HVA  0x7f0000000000ull /* never dereferenced */
#define FAKE_HIGH_HVA (FAKE_LOW_HVA + LOW_SIZE)
#define N_HOLES	      4

#define FUZZ_MEM_SIZE 0x2000u
#define FUZZ_QSIZE    16
#define RAM_GPA	      0x100000u
#define RAM_SIZE      0x8000u
#define HOLE_GPA      0x102000u
#define HOLE_SIZE     0x1000u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct oracle {
	uint64_t ram_gpa[2], ram_size[2], ram_hva[2];
	unsigned n_ram;
	uint64_t hole_start[N_HOLES], hole_end[N_HOLES];
	unsigned n_holes;
};

static void fuzz_check(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz-balloon: invariant broken: %s\n", what);
		abort();
	}
}

static int oracle_discard(void *hva, size_t len, void *opaque)
{
	const struct oracle *o = opaque;
	uint64_t h = (uint64_t) (uintptr_t) hva, gpa = 0;
	bool in_ram = false;

	fuzz_check(len > 0 && h % PG == 0 && len % PG == 0, "unaligned or empty discard");
	for (unsigned i = 0; i < o->n_ram; i++)
		if (h >= o->ram_hva[i] && h - o->ram_hva[i] + len <= o->ram_size[i]) {
			in_ram = true;
			gpa = o->ram_gpa[i] + (h - o->ram_hva[i]);
		}
	fuzz_check(in_ram, "discard outside guest RAM");
	for (unsigned i = 0; i < o->n_holes; i++)
		fuzz_check(gpa + len <= o->hole_start[i] || gpa >= o->hole_end[i],
			   "discard of a removed range");
	return 0;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 |
	       (uint32_t) p[3] << 24;
}

static void oracle_hole(struct oracle *o, uint64_t gpa, uint64_t size)
{
	uint64_t end = gpa + size;

	if (size == 0)
		return;
	o->hole_start[o->n_holes] = gpa & ~(PG - 1);
	o->hole_end[o->n_holes] = (end + PG - 1) & ~(PG - 1);
	o->n_holes++;
}

static void fuzz_map(const uint8_t *data, size_t size)
{
	struct oracle o = {
		.ram_gpa = {0, HIGH_GPA},
		.ram_size = {LOW_SIZE, HIGH_SIZE},
		.ram_hva = {FAKE_LOW_HVA, FAKE_HIGH_HVA},
		.n_ram = 2,
	};
	struct balloon_sink sink = {.discard = oracle_discard, .opaque = &o};
	struct balloon_map map;
	size_t pos = 0;

	balloon_map_init(&map);
	fuzz_check(balloon_map_add(&map, 0, LOW_SIZE, (void *) (uintptr_t) FAKE_LOW_HVA) == 0,
		   "low RAM");
	fuzz_check(balloon_map_add(&map, HIGH_GPA, HIGH_SIZE, (void *) (uintptr_t) FAKE_HIGH_HVA) ==
			   0,
		   "high RAM");
	for (unsigned i = 0; i < N_HOLES && pos + 8 <= size; i++, pos += 8) {
		uint64_t gpa = le32(data + pos), len = le32(data + pos + 4);

		if (balloon_map_remove(&map, gpa, len) == 0)
			oracle_hole(&o, gpa, len);
	}
	while (pos < size) {
		uint8_t op = data[pos++] & 3;

		if (op == 0) {
			size_t n = pos < size ? 4u * data[pos++] : 0;

			n = n < size - pos ? n : size - pos;
			(void) balloon_pfns_discard(&map, data + pos, n, &sink);
			pos += n;
			continue;
		}
		if (pos + 8 > size)
			break;
		uint64_t a = le32(data + pos), len = le32(data + pos + 4);

		pos += 8;
		if (op == 1)
			(void) balloon_map_discard_gpa(&map, a, len, &sink);
		else if (op == 2)
			(void) balloon_map_discard_hva(
				&map, (void *) (uintptr_t) (FAKE_LOW_HVA + a), len, &sink);
		else
			(void) balloon_map_discard_gpa(&map, HIGH_GPA + a, len, &sink);
	}
}

static void fuzz_device(uint8_t control, const uint8_t *data, size_t size)
{
	struct oracle o = {.n_ram = 1, .ram_gpa = {RAM_GPA}, .ram_size = {RAM_SIZE}};
	struct vballoon_config cfg = {.reporting = true, .discard = oracle_discard};
	uint64_t features = 0;
	struct balloon_map map;
	struct vdev *dev = NULL;
	struct gmem gm;
	uint8_t *mem, *ram;

	mem = calloc(1, FUZZ_MEM_SIZE);
	ram = aligned_alloc(PG, RAM_SIZE);
	fuzz_check(mem && ram, "out of memory");
	memcpy(mem, data, size < FUZZ_MEM_SIZE ? size : FUZZ_MEM_SIZE);
	gmem_init(&gm);
	fuzz_check(gmem_add_region(&gm, 0, FUZZ_MEM_SIZE, mem, 0) == 0 &&
			   gmem_add_region(&gm, RAM_GPA, RAM_SIZE, ram, 0) == 0,
		   "gmem");
	o.ram_hva[0] = (uint64_t) (uintptr_t) ram;
	balloon_map_init(&map);
	fuzz_check(balloon_map_add(&map, RAM_GPA, RAM_SIZE, ram) == 0 &&
			   balloon_map_remove(&map, HOLE_GPA, HOLE_SIZE) == 0,
		   "map");
	oracle_hole(&o, HOLE_GPA, HOLE_SIZE);
	cfg.map = &map;
	cfg.discard_opaque = &o;
	fuzz_check(vballoon_new(&cfg, &dev) == 0, "vballoon_new");
	if (control & 8)
		features |= 1ull << VIRTIO_BALLOON_F_REPORTING;
	for (unsigned i = 0; i < dev->n_queues; i++) {
		struct virtq *vq = &dev->queues[i];

		*vq = (struct virtq){
			.num = FUZZ_QSIZE,
			.ready = true,
			.desc_gpa = 0x600u * i,
			.avail_gpa = 0x600u * i + 0x100,
			.used_gpa = 0x600u * i + 0x200,
			.event_idx = control & 2,
			.indirect = control & 4,
			.gm = &gm,
		};
		virtq_reset(vq);
	}
	if (dev->ops->activate(dev, features) == 0)
		for (unsigned i = 0; i < dev->n_queues; i++)
			dev->ops->queue_notify(dev, i);
	dev->ops->free(dev);
	free(ram);
	free(mem);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 1)
		fuzz_device(data[0], data + 1, size - 1);
	else
		fuzz_map(data + 1, size - 1);
	return 0;
}
