/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cc/error.h"

static int error_code(int r)
{
	if (r == 0)
		return -EINVAL;
	return r < 0 ? r : -r;
}

/* %m in fmt prints strerror(-code); the caller's errno is left as it was. */
_printf_(4, 0) static void error_vformat(char *buf, size_t len, int code, const char *fmt,
					 va_list ap)
{
	int saved = errno;

	errno = -code;
	(void) vsnprintf(buf, len, fmt, ap);
	errno = saved;
}

/* Set code and msg; status and context stay as they are. */
_printf_(3, 0) static int error_vset(struct cc_error *err, int r, const char *fmt, va_list ap)
{
	int code = error_code(r);

	if (!err)
		return code;
	err->code = code;
	error_vformat(err->msg, sizeof(err->msg), code, fmt, ap);
	return code;
}

int cc_error_set(struct cc_error *err, int r, const char *fmt, ...)
{
	va_list ap;
	int code;

	va_start(ap, fmt);
	code = error_vset(err, r, fmt, ap);
	va_end(ap);
	return code;
}

int cc_error_vset_status(struct cc_error *err, int status, int r, const char *fmt, va_list ap)
{
	if (err)
		err->status = status;
	return error_vset(err, r, fmt, ap);
}

int cc_error_set_status(struct cc_error *err, int status, int r, const char *fmt, ...)
{
	va_list ap;
	int code;

	va_start(ap, fmt);
	code = cc_error_vset_status(err, status, r, fmt, ap);
	va_end(ap);
	return code;
}

int cc_error_set_context(struct cc_error *err, int r, const char *context, const char *fmt, ...)
{
	va_list ap;
	int code;

	if (err)
		(void) snprintf(err->context, sizeof(err->context), "%s", context);
	va_start(ap, fmt);
	code = error_vset(err, r, fmt, ap);
	va_end(ap);
	return code;
}

/* Append s to buf[*n..len), truncating; buf stays NUL-terminated. */
static void error_append(char *buf, size_t len, size_t *n, const char *s)
{
	size_t k = strlen(s);

	if (*n + 1 >= len)
		return;
	if (k > len - 1 - *n)
		k = len - 1 - *n;
	memcpy(buf + *n, s, k);
	*n += k;
	buf[*n] = '\0';
}

int cc_error_wrap(struct cc_error *err, int r, const char *fmt, ...)
{
	int code = error_code(r);
	char out[CC_ERROR_MSG_MAX];
	size_t n;
	va_list ap;

	if (!err)
		return code;
	va_start(ap, fmt);
	error_vformat(out, sizeof(out), code, fmt, ap);
	va_end(ap);
	n = strlen(out);
	if (err->context[0]) {
		/* The callee's context is part of the line from here up. */
		error_append(out, sizeof(out), &n, ": ");
		error_append(out, sizeof(out), &n, err->context);
		err->context[0] = '\0';
	}
	error_append(out, sizeof(out), &n, ": ");
	error_append(out, sizeof(out), &n, err->msg[0] ? err->msg : strerror(-code));
	memcpy(err->msg, out, n + 1);
	err->code = code;
	return code;
}

const char *cc_error_message(const struct cc_error *err)
{
	if (err->msg[0])
		return err->msg;
	if (err->code < 0)
		return strerror(-err->code);
	return strerror(ENOMEM);
}
