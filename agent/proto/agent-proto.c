/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agent-proto.h"
#include "cc/cleanup.h"
#include "cc/macro.h"

#define EXEC_FIXED_SIZE 16 /* version, flags, rows, cols, argc */

static uint32_t le32_get(const uint8_t *p)
{
	return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 |
	       (uint32_t) p[3] << 24;
}

static uint16_t le16_get(const uint8_t *p)
{
	return (uint16_t) (p[0] | p[1] << 8);
}

static void le32_put(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t) v;
	p[1] = (uint8_t) (v >> 8);
	p[2] = (uint8_t) (v >> 16);
	p[3] = (uint8_t) (v >> 24);
}

static void le16_put(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t) v;
	p[1] = (uint8_t) (v >> 8);
}

/* Allowed payload sizes per type: [min, max]. */
static bool agent_type_len_ok(uint32_t type, uint32_t len)
{
	switch (type) {
	case AGENT_EXEC:
		return len >= EXEC_FIXED_SIZE + 4 && len <= AGENT_PAYLOAD_MAX;
	case AGENT_STOP:
	case AGENT_WINCH:
	case AGENT_EXIT:
		return len == 4;
	case AGENT_STDIN:
	case AGENT_STDOUT:
	case AGENT_STDERR:
		return len >= 1 && len <= AGENT_PAYLOAD_MAX;
	case AGENT_STDIN_EOF:
	case AGENT_ACCEPTED:
		return len == 0;
	case AGENT_ERROR:
		return len >= 5 && len <= 4 + AGENT_ERROR_MSG_MAX;
	default:
		return false;
	}
}

int agent_frame_parse(const void *buf, size_t len, struct agent_frame *ret, size_t *ret_consumed)
{
	const uint8_t *p = buf;
	uint32_t type, plen;

	assert_return(buf || len == 0, -EINVAL);
	assert_return(ret && ret_consumed, -EINVAL);
	if (len < AGENT_HEADER_SIZE)
		return 0;
	type = le32_get(p);
	plen = le32_get(p + 4);
	/* Checked on the header alone: a bad length never makes us wait for 4 GiB. */
	if (!agent_type_len_ok(type, plen))
		return -EBADMSG;
	if (len - AGENT_HEADER_SIZE < plen)
		return 0;
	*ret = (struct agent_frame){.type = type, .len = plen, .payload = p + AGENT_HEADER_SIZE};
	*ret_consumed = AGENT_HEADER_SIZE + (size_t) plen;
	return 1;
}

int agent_frame_header(uint8_t hdr[AGENT_HEADER_SIZE], uint32_t type, size_t len)
{
	assert_return(hdr, -EINVAL);
	if (len > AGENT_PAYLOAD_MAX)
		return -EMSGSIZE;
	if (!agent_type_len_ok(type, (uint32_t) len))
		return -EINVAL;
	le32_put(hdr, type);
	le32_put(hdr + 4, (uint32_t) len);
	return 0;
}

bool agent_app_name_is_valid(const char *name)
{
	size_t n;

	if (!name)
		return false;
	n = strlen(name);
	if (n == 0 || n > AGENT_APP_NAME_MAX || name[0] == '-' || name[n - 1] == '-')
		return false;
	return strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789-") == n;
}

static bool agent_term_is_valid(const char *term)
{
	size_t n = strlen(term);

	return n <= AGENT_TERM_MAX &&
	       strspn(term, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+-") ==
		       n;
}

static int agent_exec_check(const struct agent_exec *e)
{
	if (!agent_app_name_is_valid(e->app) || !e->term || !agent_term_is_valid(e->term))
		return -EINVAL;
	if (e->argc == 0 || e->argc > AGENT_ARGC_MAX || !e->argv || !e->argv[0] ||
	    e->argv[0][0] == '\0')
		return -EINVAL;
	for (size_t i = 0; i < e->argc; i++)
		if (!e->argv[i])
			return -EINVAL;
	return 0;
}

int agent_exec_encode(const struct agent_exec *e, uint8_t **ret_buf, size_t *ret_len)
{
	_cleanup_free_ uint8_t *buf = NULL;
	size_t len = EXEC_FIXED_SIZE, off;
	int r;

	assert_return(e && ret_buf && ret_len, -EINVAL);
	r = agent_exec_check(e);
	if (r < 0)
		return r;
	len += strlen(e->app) + 1 + strlen(e->term) + 1;
	for (size_t i = 0; i < e->argc; i++) {
		len += strnlen(e->argv[i], AGENT_PAYLOAD_MAX) + 1;
		if (len > AGENT_PAYLOAD_MAX)
			return -E2BIG;
	}

	buf = malloc(AGENT_HEADER_SIZE + len);
	if (!buf)
		return -ENOMEM;
	r = agent_frame_header(buf, AGENT_EXEC, len);
	if (r < 0)
		return r;
	off = AGENT_HEADER_SIZE;
	le32_put(buf + off, AGENT_VERSION);
	le32_put(buf + off + 4, e->tty ? AGENT_EXEC_TTY : 0);
	le16_put(buf + off + 8, e->rows);
	le16_put(buf + off + 10, e->cols);
	le32_put(buf + off + 12, (uint32_t) e->argc);
	off += EXEC_FIXED_SIZE;
	for (size_t i = 0; i < e->argc + 2; i++) {
		const char *s = i == 0 ? e->app : i == 1 ? e->term : e->argv[i - 2];
		size_t n = strlen(s) + 1;

		memcpy(buf + off, s, n);
		off += n;
	}
	*ret_len = off;
	*ret_buf = TAKE_PTR(buf);
	return 0;
}

/* The next NUL-terminated string at *off, copied. -EBADMSG when unterminated. */
static int agent_string_take(const uint8_t *p, size_t len, size_t *off, char **ret)
{
	const uint8_t *nul;
	size_t n;

	if (*off >= len)
		return -EBADMSG;
	nul = memchr(p + *off, '\0', len - *off);
	if (!nul)
		return -EBADMSG;
	n = (size_t) (nul - (p + *off));
	*ret = strndup((const char *) p + *off, n);
	if (!*ret)
		return -ENOMEM;
	*off += n + 1;
	return 0;
}

int agent_exec_decode(const uint8_t *p, size_t len, struct agent_exec *ret)
{
	struct agent_exec e = {};
	uint32_t version, flags, argc;
	size_t off = EXEC_FIXED_SIZE;
	int r;

	assert_return(p && ret, -EINVAL);
	if (len < EXEC_FIXED_SIZE || len > AGENT_PAYLOAD_MAX)
		return -EBADMSG;
	version = le32_get(p);
	flags = le32_get(p + 4);
	argc = le32_get(p + 12);
	if (version != AGENT_VERSION)
		return -EPROTONOSUPPORT;
	if ((flags & ~AGENT_EXEC_TTY) != 0 || argc == 0 || argc > AGENT_ARGC_MAX)
		return -EBADMSG;
	/* Each string takes at least its NUL: a count the payload cannot hold is refused
	 * before allocating for it. */
	if ((size_t) argc + 2 > len - EXEC_FIXED_SIZE)
		return -EBADMSG;

	e.tty = flags & AGENT_EXEC_TTY;
	e.rows = le16_get(p + 8);
	e.cols = le16_get(p + 10);
	e.argc = argc;
	e.argv = calloc((size_t) argc + 1, sizeof(char *));
	if (!e.argv)
		return -ENOMEM;
	r = agent_string_take(p, len, &off, &e.app);
	if (r >= 0)
		r = agent_string_take(p, len, &off, &e.term);
	for (size_t i = 0; r >= 0 && i < argc; i++)
		r = agent_string_take(p, len, &off, &e.argv[i]);
	if (r >= 0 && (off != len || agent_exec_check(&e) < 0))
		r = -EBADMSG;
	if (r < 0) {
		agent_exec_done(&e);
		return r;
	}
	*ret = e;
	return 0;
}

void agent_exec_done(struct agent_exec *e)
{
	if (!e)
		return;
	free(e->app);
	free(e->term);
	for (size_t i = 0; e->argv && i < e->argc; i++)
		free(e->argv[i]);
	free(e->argv);
	*e = (struct agent_exec){};
}

int agent_u32_decode(const struct agent_frame *f, uint32_t *ret)
{
	assert_return(f && ret, -EINVAL);
	if (f->len != 4 || !f->payload)
		return -EBADMSG;
	*ret = le32_get(f->payload);
	return 0;
}

void agent_u32_encode(uint8_t out[4], uint32_t v)
{
	le32_put(out, v);
}

int agent_winch_decode(const struct agent_frame *f, uint16_t *ret_rows, uint16_t *ret_cols)
{
	assert_return(f && ret_rows && ret_cols, -EINVAL);
	if (f->type != AGENT_WINCH || f->len != 4 || !f->payload)
		return -EBADMSG;
	*ret_rows = le16_get(f->payload);
	*ret_cols = le16_get(f->payload + 2);
	return 0;
}

void agent_winch_encode(uint8_t out[4], uint16_t rows, uint16_t cols)
{
	le16_put(out, rows);
	le16_put(out + 2, cols);
}

int agent_exit_decode(const struct agent_frame *f, int *ret_code)
{
	uint32_t v;
	int r;

	assert_return(f && ret_code, -EINVAL);
	if (f->type != AGENT_EXIT)
		return -EBADMSG;
	r = agent_u32_decode(f, &v);
	if (r < 0)
		return r;
	if (v > 255)
		return -EBADMSG;
	*ret_code = (int) v;
	return 0;
}

static bool agent_char_is_printable(uint8_t c)
{
	/* No C0 control characters and no DEL: nothing that moves a terminal's cursor or
	 * starts an escape sequence. Bytes >= 0x80 pass (UTF-8). */
	return c >= 0x20 && c != 0x7f;
}

int agent_error_encode(uint8_t *out, size_t out_size, int code, const char *msg, size_t *ret_len)
{
	size_t n;

	assert_return(out && msg && ret_len, -EINVAL);
	assert_return(code >= 0 && code <= 255, -EINVAL);
	if (msg[0] == '\0')
		msg = "error";
	n = MIN(strlen(msg), (size_t) AGENT_ERROR_MSG_MAX);
	if (out_size < 4 + n)
		return -ENOBUFS;
	le32_put(out, (uint32_t) code);
	for (size_t i = 0; i < n; i++)
		out[4 + i] = agent_char_is_printable((uint8_t) msg[i]) ? (uint8_t) msg[i] : '?';
	*ret_len = 4 + n;
	return 0;
}

int agent_error_decode(const struct agent_frame *f, int *ret_code, char **ret_msg)
{
	uint32_t code;
	char *msg;

	assert_return(f && ret_code && ret_msg, -EINVAL);
	if (f->type != AGENT_ERROR || f->len < 5 || f->len > 4 + AGENT_ERROR_MSG_MAX || !f->payload)
		return -EBADMSG;
	code = le32_get(f->payload);
	if (code > 255)
		return -EBADMSG;
	for (size_t i = 4; i < f->len; i++)
		if (!agent_char_is_printable(f->payload[i]))
			return -EBADMSG;
	msg = strndup((const char *) f->payload + 4, f->len - 4);
	if (!msg)
		return -ENOMEM;
	*ret_code = (int) code;
	*ret_msg = msg;
	return 0;
}
