/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bus-msg.h"

#define BUS_HEADER_FIXED 16u

enum {
	FIELD_PATH = 1,
	FIELD_INTERFACE = 2,
	FIELD_MEMBER = 3,
	FIELD_ERROR_NAME = 4,
	FIELD_REPLY_SERIAL = 5,
	FIELD_DESTINATION = 6,
	FIELD_SENDER = 7,
	FIELD_SIGNATURE = 8,
};

static void put(struct bus_msg *m, const void *p, size_t n)
{
	if (m->err)
		return;
	if (m->len + n > BUS_MSG_SIZE_MAX) {
		m->err = -E2BIG;
		return;
	}
	if (m->len + n > m->cap) {
		size_t cap = m->cap ? m->cap : 256;
		uint8_t *b;

		while (cap < m->len + n)
			cap *= 2;
		b = realloc(m->buf, cap);
		if (!b) {
			m->err = -ENOMEM;
			return;
		}
		m->buf = b, m->cap = cap;
	}
	memcpy(m->buf + m->len, p, n);
	m->len += n;
}

/* Pad with zeros to a multiple of a (offsets count from the message start). */
static void pad(struct bus_msg *m, size_t a)
{
	static const uint8_t zeros[8];

	put(m, zeros, (a - m->len % a) % a);
}

static void put_u32(struct bus_msg *m, uint32_t v)
{
	uint8_t b[4] = {(uint8_t) v, (uint8_t) (v >> 8), (uint8_t) (v >> 16), (uint8_t) (v >> 24)};

	pad(m, 4);
	put(m, b, sizeof(b));
}

static void put_string(struct bus_msg *m, const char *s)
{
	size_t n = strlen(s);

	put_u32(m, (uint32_t) n);
	put(m, s, n + 1);
}

static void put_signature(struct bus_msg *m, const char *s)
{
	size_t n = strlen(s);
	uint8_t b = (uint8_t) n;

	if (n > 255 && !m->err)
		m->err = -EINVAL;
	put(m, &b, 1);
	put(m, s, n + 1);
}

static void put_field(struct bus_msg *m, uint8_t code, const char *sig, const char *value)
{
	pad(m, 8);
	put(m, &code, 1);
	put_signature(m, sig);
	if (sig[0] == 'g')
		put_signature(m, value);
	else
		put_string(m, value);
}

static void set_u32(struct bus_msg *m, size_t at, uint32_t v)
{
	if (m->err)
		return;
	m->buf[at] = (uint8_t) v;
	m->buf[at + 1] = (uint8_t) (v >> 8);
	m->buf[at + 2] = (uint8_t) (v >> 16);
	m->buf[at + 3] = (uint8_t) (v >> 24);
}

void bus_msg_method_call(struct bus_msg *m, const char *destination, const char *path,
			 const char *interface, const char *member, const char *signature)
{
	const uint8_t fixed[4] = {'l', BUS_MSG_METHOD_CALL, 0, 1};
	size_t fields_at;

	*m = (struct bus_msg){};
	put(m, fixed, sizeof(fixed));
	put_u32(m, 0); /* body length, set by bus_msg_finish() */
	put_u32(m, 0); /* serial, set by bus_msg_set_serial() */
	put_u32(m, 0); /* header fields length, set below */
	fields_at = m->len;
	put_field(m, FIELD_PATH, "o", path);
	if (interface)
		put_field(m, FIELD_INTERFACE, "s", interface);
	put_field(m, FIELD_MEMBER, "s", member);
	if (destination)
		put_field(m, FIELD_DESTINATION, "s", destination);
	if (signature && *signature)
		put_field(m, FIELD_SIGNATURE, "g", signature);
	set_u32(m, 12, (uint32_t) (m->len - fields_at));
	pad(m, 8);
	m->body_start = m->len;
}

void bus_msg_append_empty_array(struct bus_msg *m, size_t element_alignment)
{
	put_u32(m, 0);
	pad(m, element_alignment);
}

void bus_msg_append_u64_properties(struct bus_msg *m, const char *const *names,
				   const uint64_t *values, size_t n)
{
	size_t len_at, start;

	put_u32(m, 0); /* the array's length in bytes, set below */
	len_at = m->len - 4;
	pad(m, 8);
	start = m->len;
	for (size_t i = 0; i < n; i++) {
		uint8_t b[8];

		for (int k = 0; k < 8; k++)
			b[k] = (uint8_t) (values[i] >> (8 * k));
		pad(m, 8); /* a struct */
		put_string(m, names[i]);
		put_signature(m, "t");
		pad(m, 8);
		put(m, b, sizeof(b));
	}
	set_u32(m, len_at, (uint32_t) (m->len - start));
}

void bus_msg_append_string(struct bus_msg *m, const char *s)
{
	put_string(m, s);
}

void bus_msg_append_u32(struct bus_msg *m, uint32_t v)
{
	put_u32(m, v);
}

void bus_msg_append_bytes(struct bus_msg *m, const void *p, size_t n)
{
	put_u32(m, (uint32_t) n);
	put(m, p, n);
}

void bus_msg_set_serial(struct bus_msg *m, uint32_t serial)
{
	set_u32(m, 8, serial);
}

int bus_msg_finish(struct bus_msg *m)
{
	set_u32(m, 4, (uint32_t) (m->len - m->body_start));
	return m->err;
}

void bus_msg_done(struct bus_msg *m)
{
	free(m->buf);
	*m = (struct bus_msg){};
}

/* A reader over a received message; offsets count from the message start. */
struct rd {
	const uint8_t *buf;
	size_t len, pos;
	bool big;
};

static uint32_t rd_u32_at(const struct rd *r, size_t at)
{
	const uint8_t *b = r->buf + at;

	return r->big ? (uint32_t) b[0] << 24 | (uint32_t) b[1] << 16 | (uint32_t) b[2] << 8 | b[3]
		      : (uint32_t) b[3] << 24 | (uint32_t) b[2] << 16 | (uint32_t) b[1] << 8 | b[0];
}

static int rd_align(struct rd *r, size_t a)
{
	size_t p = (r->pos + a - 1) / a * a;

	if (p > r->len)
		return -EBADMSG;
	r->pos = p;
	return 0;
}

static int rd_u32(struct rd *r, uint32_t *ret)
{
	if (rd_align(r, 4) < 0 || r->len - r->pos < 4)
		return -EBADMSG;
	*ret = rd_u32_at(r, r->pos);
	r->pos += 4;
	return 0;
}

/* A string of n bytes plus its NUL at r->pos, with no NUL inside. */
static int rd_chars(struct rd *r, size_t n, const char **ret)
{
	if (r->len - r->pos < n + 1 || r->buf[r->pos + n] != '\0' ||
	    memchr(r->buf + r->pos, '\0', n))
		return -EBADMSG;
	*ret = (const char *) r->buf + r->pos;
	r->pos += n + 1;
	return 0;
}

static int rd_string(struct rd *r, const char **ret)
{
	uint32_t n;

	if (rd_u32(r, &n) < 0)
		return -EBADMSG;
	return rd_chars(r, n, ret);
}

static int rd_signature(struct rd *r, const char **ret)
{
	if (r->pos >= r->len)
		return -EBADMSG;
	return rd_chars(r, r->buf[r->pos++], ret);
}

int64_t bus_msg_size(const uint8_t *buf, size_t len)
{
	struct rd r = {.buf = buf, .len = len};
	uint64_t fields, body, total;

	if (len < BUS_HEADER_FIXED || (buf[0] != 'l' && buf[0] != 'B') || buf[3] != 1)
		return -EBADMSG;
	r.big = buf[0] == 'B';
	body = rd_u32_at(&r, 4);
	fields = rd_u32_at(&r, 12);
	total = (BUS_HEADER_FIXED + fields + 7) / 8 * 8 + body;
	if (total > BUS_MSG_SIZE_MAX)
		return -EBADMSG;
	return (int64_t) total;
}

static int parse_field(struct rd *r, struct bus_reply *ret, const char **ret_sig)
{
	const char *sig, *s;
	uint8_t code;
	uint32_t u;

	if (rd_align(r, 8) < 0 || r->pos >= r->len)
		return -EBADMSG;
	code = r->buf[r->pos++];
	if (rd_signature(r, &sig) < 0 || strlen(sig) != 1)
		return -EBADMSG;
	switch (sig[0]) {
	case 's':
	case 'o':
		if (rd_string(r, &s) < 0)
			return -EBADMSG;
		if (code == FIELD_ERROR_NAME)
			ret->error_name = s;
		else if (code == FIELD_SENDER)
			ret->sender = s;
		return 0;
	case 'g':
		if (rd_signature(r, &s) < 0)
			return -EBADMSG;
		if (code == FIELD_SIGNATURE)
			*ret_sig = s;
		return 0;
	case 'u':
		if (rd_u32(r, &u) < 0)
			return -EBADMSG;
		if (code == FIELD_REPLY_SERIAL)
			ret->reply_serial = u;
		return 0;
	default:
		/* The specification's header fields use no other type. */
		return -EBADMSG;
	}
}

int bus_msg_parse(const uint8_t *buf, size_t len, struct bus_reply *ret)
{
	int64_t size = bus_msg_size(buf, len);
	struct rd r = {.buf = buf, .len = len, .pos = BUS_HEADER_FIXED};
	const char *sig = "";
	size_t fields_end;

	if (size < 0 || (uint64_t) size != len)
		return -EBADMSG;
	r.big = buf[0] == 'B';
	*ret = (struct bus_reply){.type = buf[1]};
	if (ret->type < BUS_MSG_METHOD_CALL || ret->type > BUS_MSG_SIGNAL)
		return -EBADMSG;
	fields_end = BUS_HEADER_FIXED + rd_u32_at(&r, 12);
	if (fields_end > len)
		return -EBADMSG;
	r.len = fields_end;
	while (r.pos < fields_end)
		if (parse_field(&r, ret, &sig) < 0)
			return -EBADMSG;
	if (ret->type == BUS_MSG_ERROR && !ret->error_name)
		return -EBADMSG;
	/* An error's body starts with its message when its signature says so. */
	r.len = len;
	if (ret->type == BUS_MSG_ERROR && sig[0] == 's') {
		r.pos = fields_end;
		if (rd_align(&r, 8) < 0 || rd_string(&r, &ret->error_message) < 0)
			return -EBADMSG;
	}
	return 0;
}
