/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

static bool strbuf_reserve(struct strbuf *b, size_t extra)
{
	size_t need, ncap;
	char *n;

	if (b->error)
		return false;
	if (extra > STRBUF_MAX || b->len + extra > STRBUF_MAX) {
		b->error = -E2BIG;
		return false;
	}
	need = b->len + extra + 1;
	if (need <= b->cap)
		return true;
	ncap = b->cap ? b->cap : 256;
	while (ncap < need)
		ncap *= 2;
	n = realloc(b->s, ncap);
	if (!n) {
		b->error = -ENOMEM;
		return false;
	}
	b->s = n;
	b->cap = ncap;
	return true;
}

void strbuf_append_n(struct strbuf *b, const char *s, size_t n)
{
	if (!strbuf_reserve(b, n))
		return;
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void strbuf_append(struct strbuf *b, const char *s)
{
	strbuf_append_n(b, s, strlen(s));
}

void strbuf_append_char(struct strbuf *b, char c)
{
	strbuf_append_n(b, &c, 1);
}

void strbuf_printf(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (k < 0) {
		if (!b->error)
			b->error = -ENOMEM;
		return;
	}
	if (!strbuf_reserve(b, (size_t) k))
		return;
	va_start(ap, fmt);
	(void) vsnprintf(b->s + b->len, (size_t) k + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t) k;
}

int strbuf_steal(struct strbuf *b, char **ret)
{
	int r = b->error;

	if (r < 0) {
		strbuf_done(b);
		return r;
	}
	if (!b->s) {
		if (!strbuf_reserve(b, 0)) {
			r = b->error;
			strbuf_done(b);
			return r;
		}
		b->s[0] = '\0';
	}
	*ret = b->s;
	*b = (struct strbuf){};
	return 0;
}

void strbuf_done(struct strbuf *b)
{
	free(b->s);
	*b = (struct strbuf){};
}
