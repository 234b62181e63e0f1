/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <string.h>

#include "9p/9p-pdu.h"

void p9_in_init(struct p9_in *in, const void *buf, size_t size)
{
	in->buf = buf;
	in->size = size;
	in->off = 0;
}

size_t p9_in_left(const struct p9_in *in)
{
	return in->size - in->off;
}

static int p9_get_le(struct p9_in *in, unsigned n, uint64_t *ret)
{
	uint64_t v = 0;

	if (p9_in_left(in) < n)
		return -EBADMSG;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t) in->buf[in->off + i] << (8 * i);
	in->off += n;
	*ret = v;
	return 0;
}

int p9_get_u8(struct p9_in *in, uint8_t *ret)
{
	uint64_t v;
	int r = p9_get_le(in, 1, &v);

	if (r == 0)
		*ret = (uint8_t) v;
	return r;
}

int p9_get_u16(struct p9_in *in, uint16_t *ret)
{
	uint64_t v;
	int r = p9_get_le(in, 2, &v);

	if (r == 0)
		*ret = (uint16_t) v;
	return r;
}

int p9_get_u32(struct p9_in *in, uint32_t *ret)
{
	uint64_t v;
	int r = p9_get_le(in, 4, &v);

	if (r == 0)
		*ret = (uint32_t) v;
	return r;
}

int p9_get_u64(struct p9_in *in, uint64_t *ret)
{
	return p9_get_le(in, 8, ret);
}

int p9_get_data(struct p9_in *in, size_t n, const uint8_t **ret)
{
	if (p9_in_left(in) < n)
		return -EBADMSG;
	*ret = in->buf + in->off;
	in->off += n;
	return 0;
}

int p9_get_str(struct p9_in *in, char *buf, size_t bufsz)
{
	const uint8_t *p;
	uint16_t len;
	size_t save = in->off;
	int r;

	r = p9_get_u16(in, &len);
	if (r < 0)
		return r;
	r = p9_get_data(in, len, &p);
	if (r < 0) {
		in->off = save;
		return r;
	}
	if (memchr(p, 0, len))
		return -EINVAL;
	if ((size_t) len >= bufsz)
		return -ENAMETOOLONG;
	memcpy(buf, p, len);
	buf[len] = 0;
	return 0;
}

int p9_get_header(struct p9_in *in, uint8_t *ret_type, uint16_t *ret_tag)
{
	uint32_t size;
	int r;

	in->off = 0;
	r = p9_get_u32(in, &size);
	if (r < 0)
		return r;
	r = p9_get_u8(in, ret_type);
	if (r < 0)
		return r;
	r = p9_get_u16(in, ret_tag);
	if (r < 0)
		return r;
	if (size != in->size)
		return -EBADMSG;
	return 0;
}

void p9_out_init(struct p9_out *out, void *buf, size_t cap)
{
	out->buf = buf;
	out->cap = cap;
	out->off = P9_HDR_SIZE;
	out->overflow = cap < P9_HDR_SIZE;
}

bool p9_out_ok(const struct p9_out *out)
{
	return !out->overflow;
}

size_t p9_out_left(const struct p9_out *out)
{
	return out->overflow ? 0 : out->cap - out->off;
}

uint8_t *p9_put_reserve(struct p9_out *out, size_t n)
{
	uint8_t *p;

	if (out->overflow || out->cap - out->off < n) {
		out->overflow = true;
		return NULL;
	}
	p = out->buf + out->off;
	out->off += n;
	return p;
}

static void p9_put_le(struct p9_out *out, unsigned n, uint64_t v)
{
	uint8_t *p = p9_put_reserve(out, n);

	if (!p)
		return;
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t) (v >> (8 * i));
}

void p9_put_u8(struct p9_out *out, uint8_t v)
{
	p9_put_le(out, 1, v);
}

void p9_put_u16(struct p9_out *out, uint16_t v)
{
	p9_put_le(out, 2, v);
}

void p9_put_u32(struct p9_out *out, uint32_t v)
{
	p9_put_le(out, 4, v);
}

void p9_put_u64(struct p9_out *out, uint64_t v)
{
	p9_put_le(out, 8, v);
}

void p9_put_data(struct p9_out *out, const void *data, size_t n)
{
	uint8_t *p = p9_put_reserve(out, n);

	if (p && n)
		memcpy(p, data, n);
}

void p9_put_strn(struct p9_out *out, const char *s, size_t len)
{
	if (len > UINT16_MAX) {
		out->overflow = true;
		return;
	}
	p9_put_u16(out, (uint16_t) len);
	p9_put_data(out, s, len);
}

void p9_put_str(struct p9_out *out, const char *s)
{
	p9_put_strn(out, s, strlen(s));
}

void p9_put_qid(struct p9_out *out, const struct p9_qid *qid)
{
	p9_put_u8(out, qid->type);
	p9_put_u32(out, qid->version);
	p9_put_u64(out, qid->path);
}

void p9_store_u32(uint8_t *p, uint32_t v)
{
	for (unsigned i = 0; i < 4; i++)
		p[i] = (uint8_t) (v >> (8 * i));
}

int p9_out_finish(struct p9_out *out, uint8_t type, uint16_t tag)
{
	if (out->overflow || out->off > UINT32_MAX)
		return -ENOBUFS;
	p9_store_u32(out->buf, (uint32_t) out->off);
	out->buf[4] = type;
	out->buf[5] = (uint8_t) tag;
	out->buf[6] = (uint8_t) (tag >> 8);
	return (int) out->off;
}
