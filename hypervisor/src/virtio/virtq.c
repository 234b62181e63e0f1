/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Split virtqueue, device side (virtio 1.x, 2.7).
 *
 * The rings are guest memory that the driver (another thread, or a hostile guest) changes at
 * any time. Rules followed here:
 *  - every ring and buffer address goes through gmem_ptr()/gmem_ptr_rw() with its length;
 *  - every value read from the guest is read once (atomic load or a copy into a local), then
 *    validated, then used; nothing is re-read after validation;
 *  - avail->idx is loaded with acquire semantics (the ring entries and descriptors it covers
 *    are visible after it), used->idx is stored with release semantics (the used elements are
 *    visible before it), and a full barrier separates our used->idx store from reading the
 *    driver's flags/used_event (and our avail_event store from re-reading avail->idx).
 */
#include <errno.h>
#include <string.h>

#include "cc/macro.h"
#include "virtio/virtq.h"

/* A descriptor as laid out in guest memory (little-endian; x86 is too). */
struct virtq_desc {
	uint64_t addr;
	uint32_t len;
	uint16_t flags;
	uint16_t next;
};

/* Host views of the three rings, valid for one call. */
struct virtq_rings {
	const uint8_t *desc; /* num descriptors, copied out one at a time */
	uint16_t *avail;     /* [0] flags, [1] idx, [2..2+num) ring, [2+num] used_event */
	uint8_t *used;	     /* u16 flags, u16 idx, num x {u32 id, u32 len}, u16 avail_event */
};

/* Where a chain walk is: the table being followed and how far. */
struct virtq_walk {
	const uint8_t *table;
	uint32_t table_num; /* descriptors in this table */
	uint32_t seen;	    /* descriptors visited in this table (loop bound) */
	uint32_t total;	    /* descriptors visited in the whole chain */
	bool in_indirect;
};

static bool virtq_num_valid(uint16_t num)
{
	return num >= 1 && num <= VIRTQ_MAX_SIZE && (num & (num - 1)) == 0;
}

/* Map one ring with its gpa alignment; the host pointer must be aligned the same way. */
static int virtq_map_ring(const struct gmem *gm, uint64_t gpa, uint64_t len, uint64_t align,
			  bool writable, void **ret)
{
	void *hva;
	int r;

	if (!IS_ALIGNED(gpa, align))
		return -EINVAL;
	r = writable ? gmem_ptr_rw(gm, gpa, len, &hva) : gmem_ptr(gm, gpa, len, &hva);
	if (r < 0)
		return r;
	if (!IS_ALIGNED((uintptr_t) hva, align))
		return -EINVAL;
	*ret = hva;
	return 0;
}

static int virtq_map(const struct virtq *vq, struct virtq_rings *ret)
{
	void *desc, *avail, *used;
	int r;

	if (!vq->gm || !virtq_num_valid(vq->num))
		return -EINVAL;
	r = virtq_map_ring(vq->gm, vq->desc_gpa, 16ull * vq->num, 16, false, &desc);
	if (r < 0)
		return r;
	r = virtq_map_ring(vq->gm, vq->avail_gpa, 6ull + 2ull * vq->num, 2, false, &avail);
	if (r < 0)
		return r;
	r = virtq_map_ring(vq->gm, vq->used_gpa, 6ull + 8ull * vq->num, 4, true, &used);
	if (r < 0)
		return r;
	*ret = (struct virtq_rings){.desc = desc, .avail = avail, .used = used};
	return 0;
}

static uint16_t *virtq_used_u16(const struct virtq_rings *rings, size_t off)
{
	return (uint16_t *) (void *) (rings->used + off);
}

void virtq_reset(struct virtq *vq)
{
	vq->last_avail = 0;
	vq->used_idx = 0;
	vq->signalled_used = 0;
	vq->signalled_used_valid = false;
	vq->broken = false;
}

int virtq_validate(const struct virtq *vq)
{
	struct virtq_rings rings;

	assert_return(vq, -EINVAL);
	return virtq_map(vq, &rings);
}

bool virtq_has_avail(const struct virtq *vq)
{
	struct virtq_rings rings;

	if (!vq || vq->broken || virtq_map(vq, &rings) < 0)
		return false;
	return __atomic_load_n(&rings.avail[1], __ATOMIC_ACQUIRE) != vq->last_avail;
}

/*
 * The largest piece of [gpa, gpa+len) that one guest memory region holds, mapped through
 * gmem (which checks it again). Lets a buffer span adjacent regions.
 */
static int virtq_map_piece(const struct gmem *gm, uint64_t gpa, uint64_t len, bool writable,
			   struct iovec *ret)
{
	uint64_t piece = 0;
	void *hva;
	int r;

	for (unsigned i = 0; i < gm->n_regions; i++) {
		const struct gmem_region *reg = &gm->regions[i];

		if (gpa >= reg->gpa && gpa - reg->gpa < reg->size) {
			piece = MIN(len, reg->size - (gpa - reg->gpa));
			break;
		}
	}
	if (piece == 0)
		return -EFAULT;
	r = writable ? gmem_ptr_rw(gm, gpa, piece, &hva) : gmem_ptr(gm, gpa, piece, &hva);
	if (r < 0)
		return r;
	*ret = (struct iovec){.iov_base = hva, .iov_len = piece};
	return 0;
}

/* Append one data descriptor's buffer to the chain, split at region boundaries. */
static int virtq_chain_add(const struct virtq *vq, struct virtq_chain *chain,
			   const struct virtq_desc *d)
{
	bool writable = d->flags & VIRTQ_DESC_F_WRITE;
	uint64_t gpa = d->addr, left = d->len, end;

	if (!writable && chain->n_in > 0)
		return -EINVAL; /* device-readable after device-writable */
	if (add_overflows_u64(gpa, left, &end))
		return -EFAULT;
	while (left > 0) {
		struct iovec *iov;
		int r;

		if (chain->n_out + chain->n_in >= VIRTQ_CHAIN_MAX)
			return -EINVAL;
		iov = &chain->iov[chain->n_out + chain->n_in];
		r = virtq_map_piece(vq->gm, gpa, left, writable, iov);
		if (r < 0)
			return r;
		if (writable) {
			chain->n_in++;
			chain->in_len += iov->iov_len;
		} else {
			chain->n_out++;
			chain->out_len += iov->iov_len;
		}
		gpa += iov->iov_len;
		left -= iov->iov_len;
	}
	return 0;
}

/* Switch the walk to the indirect table described by d. */
static int virtq_walk_indirect(const struct virtq *vq, struct virtq_walk *w,
			       const struct virtq_desc *d)
{
	void *table;
	int r;

	if (!vq->indirect || w->in_indirect)
		return -EINVAL; /* not negotiated, or nested */
	if (d->flags & VIRTQ_DESC_F_NEXT)
		return -EINVAL; /* INDIRECT and NEXT together are forbidden */
	if (d->len == 0 || d->len % sizeof(struct virtq_desc) != 0 ||
	    d->len / sizeof(struct virtq_desc) > VIRTQ_CHAIN_MAX)
		return -EINVAL;
	r = gmem_ptr(vq->gm, d->addr, d->len, &table);
	if (r < 0)
		return r;
	*w = (struct virtq_walk){
		.table = table,
		.table_num = d->len / sizeof(struct virtq_desc),
		.total = w->total,
		.in_indirect = true,
	};
	return 0;
}

/* Follow the chain starting at head; fills chain->iov. */
static int virtq_walk_chain(const struct virtq *vq, const struct virtq_rings *rings, uint16_t head,
			    struct virtq_chain *chain)
{
	struct virtq_walk w = {.table = rings->desc, .table_num = vq->num};
	uint32_t idx = head;

	for (;;) {
		struct virtq_desc d;
		int r;

		/* In one table a chain without a loop visits each descriptor at most once. */
		if (idx >= w.table_num || w.seen >= w.table_num || w.total >= VIRTQ_CHAIN_MAX)
			return -EINVAL;
		w.seen++;
		w.total++;
		memcpy(&d, w.table + (size_t) idx * sizeof(d), sizeof(d));

		if (d.flags & VIRTQ_DESC_F_INDIRECT) {
			r = virtq_walk_indirect(vq, &w, &d);
			if (r < 0)
				return r;
			idx = 0;
			continue;
		}
		r = virtq_chain_add(vq, chain, &d);
		if (r < 0)
			return r;
		if (!(d.flags & VIRTQ_DESC_F_NEXT))
			return 0;
		idx = d.next;
	}
}

/* With EVENT_IDX, ask for a kick as soon as the driver adds anything past last_avail. */
static void virtq_set_avail_event(const struct virtq *vq, const struct virtq_rings *rings)
{
	uint16_t *avail_event = virtq_used_u16(rings, 4 + 8 * (size_t) vq->num);

	__atomic_store_n(avail_event, vq->last_avail, __ATOMIC_RELAXED);
}

/* How many chains the driver made available: 0 (empty, re-armed), or -EINVAL (broken). */
static int virtq_avail_pending(struct virtq *vq, const struct virtq_rings *rings)
{
	uint16_t avail_idx = __atomic_load_n(&rings->avail[1], __ATOMIC_ACQUIRE);
	uint16_t pending = (uint16_t) (avail_idx - vq->last_avail);

	if (pending == 0 && vq->event_idx) {
		/* Re-arm, then look again: the driver may have added a buffer meanwhile. */
		virtq_set_avail_event(vq, rings);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		avail_idx = __atomic_load_n(&rings->avail[1], __ATOMIC_ACQUIRE);
		pending = (uint16_t) (avail_idx - vq->last_avail);
	}
	if (pending > vq->num)
		return -EINVAL;
	return pending;
}

int virtq_pop(struct virtq *vq, struct virtq_chain *chain)
{
	struct virtq_rings rings;
	uint16_t head;
	int r;

	assert_return(vq && chain, -EINVAL);
	chain->head = VIRTQ_NO_HEAD;
	chain->n_out = chain->n_in = 0;
	chain->out_len = chain->in_len = 0;
	if (!vq->ready || vq->broken)
		return 0;
	r = virtq_map(vq, &rings);
	if (r >= 0)
		r = virtq_avail_pending(vq, &rings);
	if (r < 0) {
		vq->broken = true;
		return r;
	}
	if (r == 0)
		return 0;

	head = __atomic_load_n(&rings.avail[2 + vq->last_avail % vq->num], __ATOMIC_RELAXED);
	vq->last_avail++;
	if (vq->event_idx)
		virtq_set_avail_event(vq, &rings);
	chain->head = head;
	r = virtq_walk_chain(vq, &rings, head, chain);
	if (r < 0) {
		chain->n_out = chain->n_in = 0;
		chain->out_len = chain->in_len = 0;
		return r;
	}
	return 1;
}

int virtq_push_batch(struct virtq *vq, const uint16_t *heads, const uint32_t *written, unsigned n)
{
	struct virtq_rings rings;
	uint16_t idx;
	int r;

	assert_return(vq && (n == 0 || (heads && written)), -EINVAL);
	if (!vq->ready || n > vq->num)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++)
		if (heads[i] >= vq->num)
			return -EINVAL;
	r = virtq_map(vq, &rings);
	if (r < 0)
		return r;
	idx = vq->used_idx;
	for (unsigned i = 0; i < n; i++, idx++) {
		uint8_t *elem = rings.used + 4 + 8 * (size_t) (idx % vq->num);
		uint32_t id = heads[i];

		__atomic_store_n((uint32_t *) (void *) elem, id, __ATOMIC_RELAXED);
		__atomic_store_n((uint32_t *) (void *) (elem + 4), written[i], __ATOMIC_RELAXED);
	}
	/* One release store publishes every element at once. */
	vq->used_idx = idx;
	__atomic_store_n(virtq_used_u16(&rings, 2), vq->used_idx, __ATOMIC_RELEASE);
	return 0;
}

int virtq_push(struct virtq *vq, uint16_t head, uint32_t written)
{
	return virtq_push_batch(vq, &head, &written, 1);
}

bool virtq_should_notify(struct virtq *vq)
{
	struct virtq_rings rings;
	uint16_t old, used_event;
	bool valid;

	if (!vq || !vq->ready || virtq_map(vq, &rings) < 0)
		return false;
	/* Our used->idx store must be visible before we read the driver's suppression state. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!vq->event_idx)
		return !(__atomic_load_n(&rings.avail[0], __ATOMIC_RELAXED) &
			 VIRTQ_AVAIL_F_NO_INTERRUPT);

	old = vq->signalled_used;
	valid = vq->signalled_used_valid;
	vq->signalled_used = vq->used_idx;
	vq->signalled_used_valid = true;
	if (!valid)
		return true;
	used_event = __atomic_load_n(&rings.avail[2 + vq->num], __ATOMIC_RELAXED);
	/* Interrupt if used_event lies in (old, used_idx]: the driver asked to hear about it. */
	return (uint16_t) (vq->used_idx - used_event - 1) < (uint16_t) (vq->used_idx - old);
}

void virtq_enable_notify(struct virtq *vq)
{
	struct virtq_rings rings;

	if (!vq || !vq->ready || virtq_map(vq, &rings) < 0)
		return;
	if (vq->event_idx) {
		virtq_set_avail_event(vq, &rings);
	} else {
		uint16_t *flags = virtq_used_u16(&rings, 0);

		__atomic_store_n(flags, 0, __ATOMIC_RELAXED);
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void virtq_disable_notify(struct virtq *vq)
{
	struct virtq_rings rings;

	if (!vq || !vq->ready || vq->event_idx || virtq_map(vq, &rings) < 0)
		return;
	__atomic_store_n(virtq_used_u16(&rings, 0), VIRTQ_USED_F_NO_NOTIFY, __ATOMIC_RELAXED);
}

size_t iov_to_buf(const struct iovec *iov, unsigned n, size_t off, void *buf, size_t len)
{
	size_t done = 0;

	for (unsigned i = 0; i < n && done < len; i++) {
		size_t chunk;

		if (off >= iov[i].iov_len) {
			off -= iov[i].iov_len;
			continue;
		}
		chunk = MIN(iov[i].iov_len - off, len - done);
		memcpy((uint8_t *) buf + done, (const uint8_t *) iov[i].iov_base + off, chunk);
		done += chunk;
		off = 0;
	}
	return done;
}

size_t iov_from_buf(const struct iovec *iov, unsigned n, size_t off, const void *buf, size_t len)
{
	size_t done = 0;

	for (unsigned i = 0; i < n && done < len; i++) {
		size_t chunk;

		if (off >= iov[i].iov_len) {
			off -= iov[i].iov_len;
			continue;
		}
		chunk = MIN(iov[i].iov_len - off, len - done);
		memcpy((uint8_t *) iov[i].iov_base + off, (const uint8_t *) buf + done, chunk);
		done += chunk;
		off = 0;
	}
	return done;
}

size_t iov_size(const struct iovec *iov, unsigned n)
{
	size_t total = 0;

	for (unsigned i = 0; i < n; i++)
		total += iov[i].iov_len;
	return total;
}
