/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * virtio-vsock packet codec (virtio 1.2, section 5.10.6): the 44-byte little-endian
 * virtio_vsock_hdr, validation of packets the guest sends, and iovec helpers to place
 * headers and payloads in descriptor chains. No I/O, no state: everything here is pure and
 * safe on hostile bytes.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#define VSOCK_HOST_CID 2
#define VSOCK_HDR_SIZE 44
/* Largest payload we accept from the guest in one packet (Linux sends at most 64 KiB). */
#define VSOCK_PKT_MAX_PAYLOAD (64u * 1024)
/* Most iovec entries a payload slice may span (matches VIRTQ_CHAIN_MAX). */
#define VSOCK_IOV_MAX 512

enum {
	VSOCK_TYPE_STREAM = 1,
};

enum vsock_op {
	VSOCK_OP_INVALID = 0,
	VSOCK_OP_REQUEST = 1,
	VSOCK_OP_RESPONSE = 2,
	VSOCK_OP_RST = 3,
	VSOCK_OP_SHUTDOWN = 4,
	VSOCK_OP_RW = 5,
	VSOCK_OP_CREDIT_UPDATE = 6,
	VSOCK_OP_CREDIT_REQUEST = 7,
	_VSOCK_OP_MAX,
};

/* SHUTDOWN flags: the sender will receive no more (RCV) / send no more (SEND). */
#define VSOCK_SHUTDOWN_RCV  1u
#define VSOCK_SHUTDOWN_SEND 2u
#define VSOCK_SHUTDOWN_BOTH (VSOCK_SHUTDOWN_RCV | VSOCK_SHUTDOWN_SEND)

/* The header in host byte order. */
struct vsock_hdr {
	uint64_t src_cid;
	uint64_t dst_cid;
	uint32_t src_port;
	uint32_t dst_port;
	uint32_t len;
	uint16_t type;
	uint16_t op;
	uint32_t flags;
	uint32_t buf_alloc;
	uint32_t fwd_cnt;
};

void vsock_hdr_decode(const uint8_t raw[VSOCK_HDR_SIZE], struct vsock_hdr *ret);
void vsock_hdr_encode(const struct vsock_hdr *h, uint8_t raw[VSOCK_HDR_SIZE]);

/*
 * Validate a packet from the guest's tx queue. raw holds the first raw_len bytes of the
 * chain's device-readable part, whose total size is readable_len. Returns:
 *   0                 valid; *ret holds the header, the payload is bytes
 *                     [VSOCK_HDR_SIZE, VSOCK_HDR_SIZE + len) of the chain;
 *   -EBADMSG          malformed (short header, len larger than the chain or the cap): drop;
 *   -EADDRNOTAVAIL    src_cid is not the guest's or dst_cid is not the host: drop;
 *   -EPROTONOSUPPORT  not a stream packet: answer RST;
 *   -EOPNOTSUPP       unknown op: answer RST.
 * *ret is filled whenever a whole header was present, so the caller can address an RST.
 */
int vsock_pkt_parse_tx(const void *raw, size_t raw_len, uint64_t readable_len, uint64_t guest_cid,
		       struct vsock_hdr *ret);

/* Whether a packet the guest sent that failed with error r deserves an RST answer. */
bool vsock_pkt_error_wants_rst(int r);

/* Header for a reply to req (addresses swapped), with op; other fields zero. */
void vsock_hdr_reply(const struct vsock_hdr *req, uint16_t op, struct vsock_hdr *ret);

const char *vsock_op_to_string(uint16_t op);

/*
 * Describe bytes [off, off + len) of iov[0..n) as up to max entries in out[]. Returns the
 * number of entries used; *ret_len gets the bytes covered (less than len when iov is shorter
 * or max is too small).
 */
unsigned vsock_iov_slice(const struct iovec *iov, unsigned n, size_t off, size_t len,
			 struct iovec *out, unsigned max, size_t *ret_len);
