/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <string.h>

#include "cctest.h"
#include "virtio/virtq.h"
#include "vsock/packet.h"

#define GUEST_CID 42

static void make_raw(uint8_t raw[VSOCK_HDR_SIZE], uint64_t src_cid, uint64_t dst_cid, uint32_t len,
		     uint16_t type, uint16_t op)
{
	struct vsock_hdr h = {
		.src_cid = src_cid,
		.dst_cid = dst_cid,
		.src_port = 1000,
		.dst_port = 2000,
		.len = len,
		.type = type,
		.op = op,
		.buf_alloc = 4096,
		.fwd_cnt = 7,
	};

	vsock_hdr_encode(&h, raw);
}

START_TEST(test_hdr_encode_matches_wire_layout)
{
	struct vsock_hdr h =
				 {
					 .src_cid = 0x0102030405060708ull,
					 .dst_cid = 2,
					 .src_port = 0xaabbccdd,
					 .dst_port = 5,
					 .len = 0x10,
					 .type = 1,
					 .op = VSOCK_OP_RW,
					 .flags = 3,
					 .buf_alloc = 0x10000,
					 .fwd_cnt = 0xffffffff,
				 },
			 back;
	uint8_t raw[VSOCK_HDR_SIZE];

	vsock_hdr_encode(&h, raw);
	ck_assert_uint_eq(raw[0], 0x08); /* le64 src_cid */
	ck_assert_uint_eq(raw[7], 0x01);
	ck_assert_uint_eq(raw[8], 2);	  /* dst_cid */
	ck_assert_uint_eq(raw[16], 0xdd); /* src_port */
	ck_assert_uint_eq(raw[19], 0xaa);
	ck_assert_uint_eq(raw[20], 5);	  /* dst_port */
	ck_assert_uint_eq(raw[24], 0x10); /* len */
	ck_assert_uint_eq(raw[28], 1);	  /* type */
	ck_assert_uint_eq(raw[30], VSOCK_OP_RW);
	ck_assert_uint_eq(raw[32], 3);	  /* flags */
	ck_assert_uint_eq(raw[38], 1);	  /* buf_alloc 0x10000 */
	ck_assert_uint_eq(raw[43], 0xff); /* fwd_cnt */
	vsock_hdr_decode(raw, &back);
	ck_assert_uint_eq(back.src_cid, h.src_cid);
	ck_assert_uint_eq(back.dst_cid, h.dst_cid);
	ck_assert_uint_eq(back.src_port, h.src_port);
	ck_assert_uint_eq(back.dst_port, h.dst_port);
	ck_assert_uint_eq(back.len, h.len);
	ck_assert_uint_eq(back.type, h.type);
	ck_assert_uint_eq(back.op, h.op);
	ck_assert_uint_eq(back.flags, h.flags);
	ck_assert_uint_eq(back.buf_alloc, h.buf_alloc);
	ck_assert_uint_eq(back.fwd_cnt, h.fwd_cnt);
}
END_TEST

START_TEST(test_parse_tx_accepts_valid_packet)
{
	uint8_t raw[VSOCK_HDR_SIZE];
	struct vsock_hdr h;

	make_raw(raw, GUEST_CID, VSOCK_HOST_CID, 100, VSOCK_TYPE_STREAM, VSOCK_OP_RW);
	ASSERT_OK(vsock_pkt_parse_tx(raw, sizeof(raw), VSOCK_HDR_SIZE + 100, GUEST_CID, &h));
	ck_assert_uint_eq(h.len, 100);
	ck_assert_uint_eq(h.src_port, 1000);
	ck_assert_uint_eq(h.dst_port, 2000);
	ck_assert_uint_eq(h.buf_alloc, 4096);
	ck_assert_uint_eq(h.fwd_cnt, 7);
	/* A chain larger than the packet is fine (trailing bytes ignored). */
	ASSERT_OK(vsock_pkt_parse_tx(raw, sizeof(raw), VSOCK_HDR_SIZE + 4096, GUEST_CID, &h));
}
END_TEST

START_TEST(test_parse_tx_rejects_malformed)
{
	uint8_t raw[VSOCK_HDR_SIZE];
	struct vsock_hdr h;

	make_raw(raw, GUEST_CID, VSOCK_HOST_CID, 100, VSOCK_TYPE_STREAM, VSOCK_OP_RW);
	ASSERT_ERRNO(vsock_pkt_parse_tx(raw, VSOCK_HDR_SIZE - 1, 1000, GUEST_CID, &h), EBADMSG);
	ASSERT_ERRNO(vsock_pkt_parse_tx(raw, sizeof(raw), VSOCK_HDR_SIZE - 1, GUEST_CID, &h),
		     EBADMSG);
	ASSERT_ERRNO(vsock_pkt_parse_tx(NULL, 0, 0, GUEST_CID, &h), EBADMSG);
	/* len larger than what the chain carries */
	ASSERT_ERRNO(vsock_pkt_parse_tx(raw, sizeof(raw), VSOCK_HDR_SIZE + 99, GUEST_CID, &h),
		     EBADMSG);
	/* len above the cap, even when the chain is that big */
	make_raw(raw, GUEST_CID, VSOCK_HOST_CID, VSOCK_PKT_MAX_PAYLOAD + 1, VSOCK_TYPE_STREAM,
		 VSOCK_OP_RW);
	ASSERT_ERRNO(vsock_pkt_parse_tx(raw, sizeof(raw), 1ull << 40, GUEST_CID, &h), EBADMSG);
	make_raw(raw, GUEST_CID, VSOCK_HOST_CID, UINT32_MAX, VSOCK_TYPE_STREAM, VSOCK_OP_RW);
	ASSERT_ERRNO(vsock_pkt_parse_tx(raw, sizeof(raw), UINT64_MAX, GUEST_CID, &h), EBADMSG);
	ck_assert(!vsock_pkt_error_wants_rst(-EBADMSG));
}
END_TEST

START_TEST(test_parse_tx_rejects_foreign_addresses)
{
	uint8_t raw[VSOCK_HDR_SIZE];
	struct vsock_hdr h;

	make_raw(raw, GUEST_CID + 1, VSOCK_HOST_CID, 0, VSOCK_TYPE_STREAM, VSOCK_OP_REQUEST);
	ASSERT_ERRNO(vsock_pkt_parse_tx(raw, sizeof(raw), sizeof(raw), GUEST_CID, &h),
		     EADDRNOTAVAIL);
	make_raw(raw, GUEST_CID, GUEST_CID, 0, VSOCK_TYPE_STREAM, VSOCK_OP_REQUEST);
	ASSERT_ERRNO(vsock_pkt_parse_tx(raw, sizeof(raw), sizeof(raw), GUEST_CID, &h),
		     EADDRNOTAVAIL);
	make_raw(raw, GUEST_CID | (1ull << 32), VSOCK_HOST_CID, 0, VSOCK_TYPE_STREAM,
		 VSOCK_OP_REQUEST);
	ASSERT_ERRNO(vsock_pkt_parse_tx(raw, sizeof(raw), sizeof(raw), GUEST_CID, &h),
		     EADDRNOTAVAIL);
	ck_assert(!vsock_pkt_error_wants_rst(-EADDRNOTAVAIL));
}
END_TEST

START_TEST(test_parse_tx_flags_bad_type_and_op_for_rst)
{
	static const uint16_t bad_ops[] = {VSOCK_OP_INVALID, _VSOCK_OP_MAX, 0x100, 0xffff};
	uint8_t raw[VSOCK_HDR_SIZE];
	struct vsock_hdr h;

	make_raw(raw, GUEST_CID, VSOCK_HOST_CID, 0, 2 /* seqpacket */, VSOCK_OP_REQUEST);
	ASSERT_ERRNO(vsock_pkt_parse_tx(raw, sizeof(raw), sizeof(raw), GUEST_CID, &h),
		     EPROTONOSUPPORT);
	ck_assert(vsock_pkt_error_wants_rst(-EPROTONOSUPPORT));
	ck_assert_uint_eq(h.src_port, 1000); /* filled so the RST can be addressed */
	for (size_t i = 0; i < sizeof(bad_ops) / sizeof(bad_ops[0]); i++) {
		make_raw(raw, GUEST_CID, VSOCK_HOST_CID, 0, VSOCK_TYPE_STREAM, bad_ops[i]);
		ASSERT_ERRNO(vsock_pkt_parse_tx(raw, sizeof(raw), sizeof(raw), GUEST_CID, &h),
			     EOPNOTSUPP);
	}
	ck_assert(vsock_pkt_error_wants_rst(-EOPNOTSUPP));
	for (uint16_t op = VSOCK_OP_REQUEST; op < _VSOCK_OP_MAX; op++) {
		make_raw(raw, GUEST_CID, VSOCK_HOST_CID, 0, VSOCK_TYPE_STREAM, op);
		ASSERT_OK(vsock_pkt_parse_tx(raw, sizeof(raw), sizeof(raw), GUEST_CID, &h));
		ck_assert_str_ne(vsock_op_to_string(op), "unknown");
	}
	ck_assert_str_eq(vsock_op_to_string(0x1234), "unknown");
}
END_TEST

START_TEST(test_hdr_reply_swaps_addresses)
{
	struct vsock_hdr req = {.src_cid = GUEST_CID,
				.dst_cid = VSOCK_HOST_CID,
				.src_port = 1,
				.dst_port = 2,
				.len = 9,
				.op = VSOCK_OP_RW,
				.fwd_cnt = 5},
			 rep;

	vsock_hdr_reply(&req, VSOCK_OP_RST, &rep);
	ck_assert_uint_eq(rep.src_cid, VSOCK_HOST_CID);
	ck_assert_uint_eq(rep.dst_cid, GUEST_CID);
	ck_assert_uint_eq(rep.src_port, 2);
	ck_assert_uint_eq(rep.dst_port, 1);
	ck_assert_uint_eq(rep.op, VSOCK_OP_RST);
	ck_assert_uint_eq(rep.type, VSOCK_TYPE_STREAM);
	ck_assert_uint_eq(rep.len, 0);
	ck_assert_uint_eq(rep.fwd_cnt, 0);
}
END_TEST

START_TEST(test_iov_helpers_span_entries)
{
	char a[3], b[1], c[5], out[9];
	struct iovec iov[] = {{a, sizeof(a)}, {b, 0}, {b, sizeof(b)}, {c, sizeof(c)}};
	struct iovec slice[4];
	size_t covered;
	unsigned n;

	ck_assert_uint_eq(iov_from_buf(iov, 4, 0, "abcdefghijk", 11), 9);
	ck_assert_mem_eq(a, "abc", 3);
	ck_assert_mem_eq(b, "d", 1);
	ck_assert_mem_eq(c, "efghi", 5);
	ck_assert_uint_eq(iov_to_buf(iov, 4, 2, out, 5), 5);
	ck_assert_mem_eq(out, "cdefg", 5);
	ck_assert_uint_eq(iov_to_buf(iov, 4, 9, out, 5), 0);

	n = vsock_iov_slice(iov, 4, 2, 4, slice, 4, &covered);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(covered, 4);
	ck_assert_ptr_eq(slice[0].iov_base, a + 2);
	ck_assert_uint_eq(slice[0].iov_len, 1);
	ck_assert_ptr_eq(slice[1].iov_base, b);
	ck_assert_uint_eq(slice[2].iov_len, 2);
	/* Past the end, and limited by max entries. */
	n = vsock_iov_slice(iov, 4, 5, 100, slice, 4, &covered);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(covered, 4);
	n = vsock_iov_slice(iov, 4, 0, 100, slice, 1, &covered);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(covered, 3);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vsock-packet");
	TCase *tc = tcase_create("codec");

	tcase_add_test(tc, test_hdr_encode_matches_wire_layout);
	tcase_add_test(tc, test_parse_tx_accepts_valid_packet);
	tcase_add_test(tc, test_parse_tx_rejects_malformed);
	tcase_add_test(tc, test_parse_tx_rejects_foreign_addresses);
	tcase_add_test(tc, test_parse_tx_flags_bad_type_and_op_for_rst);
	tcase_add_test(tc, test_hdr_reply_swaps_addresses);
	tcase_add_test(tc, test_iov_helpers_span_entries);
	suite_add_tcase(s, tc);
	return cctest_run_suite(s);
}
