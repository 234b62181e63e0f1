/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * 9P2000.L message codec: little-endian encode/decode of 9P fields to and from a contiguous
 * buffer. No I/O, no allocation. Everything read from a request is hostile: every getter checks
 * the remaining length and fails with -EBADMSG instead of reading past the end, and strings are
 * checked for embedded NULs and a caller-given maximum length.
 *
 * A message is size[4] type[1] tag[2] body; size counts the whole message.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define P9_HDR_SIZE 7u
#define P9_NOTAG    0xffffu
#define P9_NOFID    0xffffffffu
#define P9_QID_SIZE 13u
#define P9_MAXWELEM 16u

/* Message types (9P2000 and the 9P2000.L additions). */
enum {
	P9_TLERROR = 6,
	P9_RLERROR = 7,
	P9_TSTATFS = 8,
	P9_TLOPEN = 12,
	P9_TLCREATE = 14,
	P9_TSYMLINK = 16,
	P9_TMKNOD = 18,
	P9_TRENAME = 20,
	P9_TREADLINK = 22,
	P9_TGETATTR = 24,
	P9_TSETATTR = 26,
	P9_TXATTRWALK = 30,
	P9_TXATTRCREATE = 32,
	P9_TREADDIR = 40,
	P9_TFSYNC = 50,
	P9_TLOCK = 52,
	P9_TGETLOCK = 54,
	P9_TLINK = 70,
	P9_TMKDIR = 72,
	P9_TRENAMEAT = 74,
	P9_TUNLINKAT = 76,
	P9_TVERSION = 100,
	P9_TAUTH = 102,
	P9_TATTACH = 104,
	P9_TERROR = 106,
	P9_TFLUSH = 108,
	P9_TWALK = 110,
	P9_TOPEN = 112,
	P9_TCREATE = 114,
	P9_TREAD = 116,
	P9_TWRITE = 118,
	P9_TCLUNK = 120,
	P9_TREMOVE = 122,
	P9_TSTAT = 124,
	P9_TWSTAT = 126,
};

/* QID types. */
enum {
	P9_QTDIR = 0x80,
	P9_QTAPPEND = 0x40,
	P9_QTEXCL = 0x20,
	P9_QTMOUNT = 0x10,
	P9_QTAUTH = 0x08,
	P9_QTTMP = 0x04,
	P9_QTSYMLINK = 0x02,
	P9_QTFILE = 0x00,
};

struct p9_qid {
	uint8_t type;
	uint32_t version;
	uint64_t path;
};

/* A request being decoded. */
struct p9_in {
	const uint8_t *buf;
	size_t size;
	size_t off;
};

/* A reply being encoded. Overflow is sticky: check p9_out_ok() (or p9_out_finish()) at the end. */
struct p9_out {
	uint8_t *buf;
	size_t cap;
	size_t off;
	bool overflow;
};

void p9_in_init(struct p9_in *in, const void *buf, size_t size);
size_t p9_in_left(const struct p9_in *in);
int p9_get_u8(struct p9_in *in, uint8_t *ret);
int p9_get_u16(struct p9_in *in, uint16_t *ret);
int p9_get_u32(struct p9_in *in, uint32_t *ret);
int p9_get_u64(struct p9_in *in, uint64_t *ret);
/*
 * A string s[2] into buf as a NUL-terminated C string. -EBADMSG when truncated, -EINVAL when it
 * contains a NUL byte, -ENAMETOOLONG when it does not fit bufsz (terminator included).
 */
int p9_get_str(struct p9_in *in, char *buf, size_t bufsz);
/* n raw bytes, returned in place (no copy). */
int p9_get_data(struct p9_in *in, size_t n, const uint8_t **ret);
/* Decode the header; in->off is left at the start of the body. size must equal the buffer. */
int p9_get_header(struct p9_in *in, uint8_t *ret_type, uint16_t *ret_tag);

/* Start a reply in buf; the header is reserved and written by p9_out_finish(). */
void p9_out_init(struct p9_out *out, void *buf, size_t cap);
bool p9_out_ok(const struct p9_out *out);
size_t p9_out_left(const struct p9_out *out);
void p9_put_u8(struct p9_out *out, uint8_t v);
void p9_put_u16(struct p9_out *out, uint16_t v);
void p9_put_u32(struct p9_out *out, uint32_t v);
void p9_put_u64(struct p9_out *out, uint64_t v);
/* A string of len bytes (len <= UINT16_MAX, or the reply overflows). */
void p9_put_strn(struct p9_out *out, const char *s, size_t len);
void p9_put_str(struct p9_out *out, const char *s);
void p9_put_data(struct p9_out *out, const void *data, size_t n);
void p9_put_qid(struct p9_out *out, const struct p9_qid *qid);
/* Reserve n bytes to fill in later (e.g. a count known only at the end); NULL on overflow. */
uint8_t *p9_put_reserve(struct p9_out *out, size_t n);
/* Write the header. Returns the message length, or -ENOBUFS if the reply overflowed. */
int p9_out_finish(struct p9_out *out, uint8_t type, uint16_t tag);

/* Store a little-endian u32 into a reserved slot. */
void p9_store_u32(uint8_t *p, uint32_t v);
