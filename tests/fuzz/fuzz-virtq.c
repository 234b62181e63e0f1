/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fuzz the split virtqueue (device side) against a hostile driver.
 *
 * Input: a 16-byte header, then the guest memory image.
 *   [0]      log2 of the queue size (mod 11: 1..1024)
 *   [1]      bit 0 EVENT_IDX, bit 1 INDIRECT_DESC, bit 2 use the queue even if validation fails
 *   [2..3]   starting last_avail / used_idx (le16), to reach the 16-bit wrap
 *   [4..7]   desc gpa, [8..11] avail gpa, [12..15] used gpa (le32)
 *   [16..]   guest memory: region A [0, 16K), region B [16K, 32K) (adjacent), then a
 *            read-only region [1M, 1M+4K); missing bytes are zero.
 *
 * Every chain is popped, each of its buffers is read (out) or written (in) in full, so ASan
 * catches any iovec that leaves the region it came from, and it is pushed back. The loop is
 * bounded, so a queue that never drains is a hang the fuzzer reports.
 *
 * The seed corpus (tests/fuzz/corpus/fuzz-virtq/) is written by fuzz-virtq-seeds.py.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/gmem.h"
#include "virtio/virtq.h"

#define REGION_SIZE 0x4000u
#define RO_GPA	    0x100000u
#define RO_SIZE	    0x1000u
#define HEADER	    16u
#define MAX_ROUNDS  (4u * VIRTQ_MAX_SIZE)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 |
	       (uint32_t) p[3] << 24;
}

static void fuzz_touch(struct virtq_chain *chain)
{
	volatile uint8_t sink = 0;

	for (unsigned i = 0; i < chain->n_out; i++) {
		const uint8_t *p = chain->iov[i].iov_base;

		for (size_t j = 0; j < chain->iov[i].iov_len; j++)
			sink ^= p[j];
	}
	for (unsigned i = chain->n_out; i < chain->n_out + chain->n_in; i++)
		memset(chain->iov[i].iov_base, 0xa5, chain->iov[i].iov_len);
	(void) sink;
}

static void fuzz_run(struct virtq *vq, struct virtq_chain *chain)
{
	for (unsigned round = 0; round < MAX_ROUNDS; round++) {
		int r = virtq_pop(vq, chain);

		if (r == 0)
			break;
		if (r > 0) {
			uint64_t len = chain->in_len > UINT32_MAX ? UINT32_MAX : chain->in_len;

			fuzz_touch(chain);
			(void) virtq_push(vq, chain->head, (uint32_t) len);
		} else {
			(void) virtq_push(vq, chain->head, 0);
		}
		if (round % 8 == 0) {
			(void) virtq_should_notify(vq);
			virtq_enable_notify(vq);
			(void) virtq_has_avail(vq);
		}
	}
	(void) virtq_should_notify(vq);
	virtq_disable_notify(vq);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *a, *b, *ro;
	struct virtq_chain *chain;
	struct gmem gm;
	struct virtq vq;
	size_t img;

	if (size < HEADER)
		return 0;
	a = calloc(1, REGION_SIZE);
	b = calloc(1, REGION_SIZE);
	ro = calloc(1, RO_SIZE);
	chain = malloc(sizeof(*chain));
	if (!a || !b || !ro || !chain)
		abort();

	img = size - HEADER;
	memcpy(a, data + HEADER, img < REGION_SIZE ? img : REGION_SIZE);
	if (img > REGION_SIZE)
		memcpy(b, data + HEADER + REGION_SIZE,
		       img - REGION_SIZE < REGION_SIZE ? img - REGION_SIZE : REGION_SIZE);
	if (img > 2 * REGION_SIZE)
		memcpy(ro, data + HEADER + 2 * REGION_SIZE,
		       img - 2 * REGION_SIZE < RO_SIZE ? img - 2 * REGION_SIZE : RO_SIZE);

	gmem_init(&gm);
	if (gmem_add_region(&gm, 0, REGION_SIZE, a, 0) < 0 ||
	    gmem_add_region(&gm, REGION_SIZE, REGION_SIZE, b, 0) < 0 ||
	    gmem_add_region(&gm, RO_GPA, RO_SIZE, ro, GMEM_READONLY) < 0)
		abort();

	memset(&vq, 0, sizeof(vq));
	vq.gm = &gm;
	vq.num = (uint16_t) (1u << (data[0] % 11));
	vq.event_idx = data[1] & 1;
	vq.indirect = data[1] & 2;
	vq.desc_gpa = le32(data + 4);
	vq.avail_gpa = le32(data + 8);
	vq.used_gpa = le32(data + 12);
	virtq_reset(&vq);
	vq.last_avail = vq.used_idx = (uint16_t) (data[2] | data[3] << 8);
	vq.ready = virtq_validate(&vq) == 0 || (data[1] & 4);

	fuzz_run(&vq, chain);

	free(chain);
	free(ro);
	free(b);
	free(a);
	return 0;
}
