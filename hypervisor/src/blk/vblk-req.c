/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <string.h>

#include "blk/blk-iov.h"
#include "blk/vblk-req.h"
#include "cc/macro.h"

#define VBLK_HDR_SIZE	  16u
#define VBLK_DISCARD_SIZE 16u

/* What a request looks like once split out of the chain. */
struct vblk_req {
	uint32_t type;
	uint64_t sector;
	const struct iovec *out; /* past the header */
	unsigned n_out;
	size_t out_len;
	const struct iovec *in; /* before the status byte */
	unsigned n_in;
	size_t in_len;
};

/* Is [sector, sector + len/512) inside the disk? len is a multiple of 512. */
static bool vblk_range_ok(const struct blk_backend *be, uint64_t sector, uint64_t len)
{
	uint64_t capacity = be->size / BLK_SECTOR_SIZE;

	return sector <= capacity && len / BLK_SECTOR_SIZE <= capacity - sector;
}

static uint8_t vblk_errno_status(int r)
{
	return r < 0 ? VIRTIO_BLK_S_IOERR : VIRTIO_BLK_S_OK;
}

static uint8_t vblk_do_in(struct blk_backend *be, const struct vblk_req *req,
			  struct vblk_req_stats *stats)
{
	if (req->in_len % BLK_SECTOR_SIZE != 0 || !vblk_range_ok(be, req->sector, req->in_len))
		return VIRTIO_BLK_S_IOERR;
	stats->reads++;
	stats->read_bytes += req->in_len;
	return vblk_errno_status(
		be->ops->read(be, req->sector * BLK_SECTOR_SIZE, req->in, req->n_in));
}

static uint8_t vblk_do_out(struct blk_backend *be, const struct vblk_req *req,
			   struct vblk_req_stats *stats)
{
	if (be->read_only)
		return VIRTIO_BLK_S_IOERR;
	if (req->out_len % BLK_SECTOR_SIZE != 0 || !vblk_range_ok(be, req->sector, req->out_len))
		return VIRTIO_BLK_S_IOERR;
	stats->writes++;
	stats->write_bytes += req->out_len;
	return vblk_errno_status(
		be->ops->write(be, req->sector * BLK_SECTOR_SIZE, req->out, req->n_out));
}

static uint8_t vblk_do_discard(struct blk_backend *be, const struct vblk_req *req,
			       struct vblk_req_stats *stats)
{
	uint8_t segs[VBLK_MAX_DISCARD_SEG * VBLK_DISCARD_SIZE];
	size_t n_seg = req->out_len / VBLK_DISCARD_SIZE;

	if (req->out_len == 0 || req->out_len % VBLK_DISCARD_SIZE != 0 ||
	    n_seg > VBLK_MAX_DISCARD_SEG)
		return VIRTIO_BLK_S_IOERR;
	if (be->read_only)
		return VIRTIO_BLK_S_IOERR;
	/* Copy once, then check all, then act: the guest may change the buffers meanwhile. */
	(void) iov_to_buf(req->out, req->n_out, 0, segs, req->out_len);
	for (size_t i = 0; i < n_seg; i++) {
		uint64_t sector;
		uint32_t num, flags;

		memcpy(&sector, segs + i * VBLK_DISCARD_SIZE, 8);
		memcpy(&num, segs + i * VBLK_DISCARD_SIZE + 8, 4);
		memcpy(&flags, segs + i * VBLK_DISCARD_SIZE + 12, 4);
		if (flags != 0)
			return VIRTIO_BLK_S_UNSUPP; /* unmap is for WRITE_ZEROES; rest reserved */
		if (num > VBLK_MAX_DISCARD_SECTORS ||
		    !vblk_range_ok(be, sector, (uint64_t) num * BLK_SECTOR_SIZE))
			return VIRTIO_BLK_S_IOERR;
	}
	for (size_t i = 0; i < n_seg; i++) {
		uint64_t sector;
		uint32_t num;
		int r;

		memcpy(&sector, segs + i * VBLK_DISCARD_SIZE, 8);
		memcpy(&num, segs + i * VBLK_DISCARD_SIZE + 8, 4);
		if (num == 0)
			continue;
		stats->discards++;
		r = be->ops->discard(be, sector * BLK_SECTOR_SIZE,
				     (uint64_t) num * BLK_SECTOR_SIZE);
		if (r < 0)
			return VIRTIO_BLK_S_IOERR;
	}
	return VIRTIO_BLK_S_OK;
}

/* GET_ID: up to 20 bytes of serial; returns how many were written. */
static size_t vblk_do_get_id(struct blk_backend *be, const struct vblk_req *req,
			     struct vblk_req_stats *stats)
{
	stats->get_ids++;
	return iov_from_buf(req->in, req->n_in, 0, be->serial,
			    MIN(req->in_len, (size_t) BLK_SERIAL_LEN));
}

/* Run a decoded request; sets *data_written (bytes of in[] filled before the status). */
static uint8_t vblk_req_exec(struct blk_backend *be, const struct vblk_req *req,
			     struct vblk_req_stats *stats, size_t *data_written)
{
	uint8_t status;

	*data_written = 0;
	switch (req->type) {
	case VIRTIO_BLK_T_IN:
		status = vblk_do_in(be, req, stats);
		if (status == VIRTIO_BLK_S_OK)
			*data_written = req->in_len;
		return status;
	case VIRTIO_BLK_T_OUT:
		return vblk_do_out(be, req, stats);
	case VIRTIO_BLK_T_FLUSH:
		stats->flushes++;
		return vblk_errno_status(be->ops->flush(be));
	case VIRTIO_BLK_T_GET_ID:
		*data_written = vblk_do_get_id(be, req, stats);
		return VIRTIO_BLK_S_OK;
	case VIRTIO_BLK_T_DISCARD:
		return vblk_do_discard(be, req, stats);
	default:
		return VIRTIO_BLK_S_UNSUPP;
	}
}

int vblk_req_handle(struct blk_backend *be, const struct virtq_chain *chain,
		    struct vblk_req_stats *stats)
{
	struct iovec out[VIRTQ_CHAIN_MAX], in[VIRTQ_CHAIN_MAX];
	const struct iovec *in_iov = chain->iov + chain->n_out;
	uint8_t hdr[VBLK_HDR_SIZE], status;
	struct vblk_req req = {0};
	size_t data_written;
	int n;

	if (chain->in_len < 1) {
		stats->malformed++;
		return -EINVAL;
	}
	req.in_len = chain->in_len - 1;
	n = blk_iov_slice(in_iov, chain->n_in, 0, req.in_len, in, ARRAY_SIZE(in));
	if (n < 0) {
		stats->malformed++;
		return -EINVAL;
	}
	req.in = in;
	req.n_in = (unsigned) n;

	if (chain->out_len < VBLK_HDR_SIZE || chain->out_len - VBLK_HDR_SIZE > VBLK_MAX_REQ_BYTES ||
	    req.in_len > VBLK_MAX_REQ_BYTES) {
		stats->malformed++;
		status = VIRTIO_BLK_S_IOERR;
		data_written = 0;
	} else {
		(void) iov_to_buf(chain->iov, chain->n_out, 0, hdr, sizeof(hdr));
		memcpy(&req.type, hdr, 4);
		memcpy(&req.sector, hdr + 8, 8);
		req.out_len = chain->out_len - VBLK_HDR_SIZE;
		n = blk_iov_slice(chain->iov, chain->n_out, VBLK_HDR_SIZE, req.out_len, out,
				  ARRAY_SIZE(out));
		if (n < 0)
			return -EINVAL; /* cannot happen: out_len is the sum of out[] */
		req.out = out;
		req.n_out = (unsigned) n;
		status = vblk_req_exec(be, &req, stats, &data_written);
	}
	if (status == VIRTIO_BLK_S_IOERR)
		stats->ioerr++;
	else if (status == VIRTIO_BLK_S_UNSUPP)
		stats->unsupp++;
	(void) iov_from_buf(in_iov, chain->n_in, req.in_len, &status, 1);
	return (int) (data_written + 1); /* <= VBLK_MAX_REQ_BYTES + 1 */
}
