/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>

#include "cc/macro.h"
#include "vsock/packet.h"

static uint16_t get_le16(const uint8_t *p)
{
	return (uint16_t) (p[0] | p[1] << 8);
}

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 |
	       (uint32_t) p[3] << 24;
}

static uint64_t get_le64(const uint8_t *p)
{
	return (uint64_t) get_le32(p) | (uint64_t) get_le32(p + 4) << 32;
}

static void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t) v;
	p[1] = (uint8_t) (v >> 8);
}

static void put_le32(uint8_t *p, uint32_t v)
{
	for (unsigned i = 0; i < 4; i++)
		p[i] = (uint8_t) (v >> (8 * i));
}

static void put_le64(uint8_t *p, uint64_t v)
{
	put_le32(p, (uint32_t) v);
	put_le32(p + 4, (uint32_t) (v >> 32));
}

/* Field offsets of struct virtio_vsock_hdr (packed, little-endian). */
enum {
	OFF_SRC_CID = 0,
	OFF_DST_CID = 8,
	OFF_SRC_PORT = 16,
	OFF_DST_PORT = 20,
	OFF_LEN = 24,
	OFF_TYPE = 28,
	OFF_OP = 30,
	OFF_FLAGS = 32,
	OFF_BUF_ALLOC = 36,
	OFF_FWD_CNT = 40,
};

void vsock_hdr_decode(const uint8_t raw[VSOCK_HDR_SIZE], struct vsock_hdr *ret)
{
	*ret = (struct vsock_hdr){
		.src_cid = get_le64(raw + OFF_SRC_CID),
		.dst_cid = get_le64(raw + OFF_DST_CID),
		.src_port = get_le32(raw + OFF_SRC_PORT),
		.dst_port = get_le32(raw + OFF_DST_PORT),
		.len = get_le32(raw + OFF_LEN),
		.type = get_le16(raw + OFF_TYPE),
		.op = get_le16(raw + OFF_OP),
		.flags = get_le32(raw + OFF_FLAGS),
		.buf_alloc = get_le32(raw + OFF_BUF_ALLOC),
		.fwd_cnt = get_le32(raw + OFF_FWD_CNT),
	};
}

void vsock_hdr_encode(const struct vsock_hdr *h, uint8_t raw[VSOCK_HDR_SIZE])
{
	put_le64(raw + OFF_SRC_CID, h->src_cid);
	put_le64(raw + OFF_DST_CID, h->dst_cid);
	put_le32(raw + OFF_SRC_PORT, h->src_port);
	put_le32(raw + OFF_DST_PORT, h->dst_port);
	put_le32(raw + OFF_LEN, h->len);
	put_le16(raw + OFF_TYPE, h->type);
	put_le16(raw + OFF_OP, h->op);
	put_le32(raw + OFF_FLAGS, h->flags);
	put_le32(raw + OFF_BUF_ALLOC, h->buf_alloc);
	put_le32(raw + OFF_FWD_CNT, h->fwd_cnt);
}

int vsock_pkt_parse_tx(const void *raw, size_t raw_len, uint64_t readable_len, uint64_t guest_cid,
		       struct vsock_hdr *ret)
{
	struct vsock_hdr h;

	if (!raw || raw_len < VSOCK_HDR_SIZE || readable_len < VSOCK_HDR_SIZE)
		return -EBADMSG;
	vsock_hdr_decode(raw, &h);
	*ret = h;
	if (h.len > VSOCK_PKT_MAX_PAYLOAD || h.len > readable_len - VSOCK_HDR_SIZE)
		return -EBADMSG;
	if (h.src_cid != guest_cid || h.dst_cid != VSOCK_HOST_CID)
		return -EADDRNOTAVAIL;
	if (h.type != VSOCK_TYPE_STREAM)
		return -EPROTONOSUPPORT;
	if (h.op == VSOCK_OP_INVALID || h.op >= _VSOCK_OP_MAX)
		return -EOPNOTSUPP;
	return 0;
}

bool vsock_pkt_error_wants_rst(int r)
{
	return r == -EPROTONOSUPPORT || r == -EOPNOTSUPP;
}

void vsock_hdr_reply(const struct vsock_hdr *req, uint16_t op, struct vsock_hdr *ret)
{
	*ret = (struct vsock_hdr){
		.src_cid = req->dst_cid,
		.dst_cid = req->src_cid,
		.src_port = req->dst_port,
		.dst_port = req->src_port,
		.type = VSOCK_TYPE_STREAM,
		.op = op,
	};
}

const char *vsock_op_to_string(uint16_t op)
{
	static const char *const names[_VSOCK_OP_MAX] = {
		[VSOCK_OP_INVALID] = "invalid",
		[VSOCK_OP_REQUEST] = "request",
		[VSOCK_OP_RESPONSE] = "response",
		[VSOCK_OP_RST] = "rst",
		[VSOCK_OP_SHUTDOWN] = "shutdown",
		[VSOCK_OP_RW] = "rw",
		[VSOCK_OP_CREDIT_UPDATE] = "credit-update",
		[VSOCK_OP_CREDIT_REQUEST] = "credit-request",
	};

	return op < _VSOCK_OP_MAX ? names[op] : "unknown";
}

unsigned vsock_iov_slice(const struct iovec *iov, unsigned n, size_t off, size_t len,
			 struct iovec *out, unsigned max, size_t *ret_len)
{
	unsigned k = 0;
	size_t done = 0;

	for (unsigned i = 0; i < n && done < len && k < max; i++) {
		size_t chunk;

		if (off >= iov[i].iov_len) {
			off -= iov[i].iov_len;
			continue;
		}
		chunk = MIN(iov[i].iov_len - off, len - done);
		out[k++] = (struct iovec){.iov_base = (uint8_t *) iov[i].iov_base + off,
					  .iov_len = chunk};
		done += chunk;
		off = 0;
	}
	if (ret_len)
		*ret_len = done;
	return k;
}
