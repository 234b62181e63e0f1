/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * A growable string for building file contents. Appends never fail individually: the first
 * allocation failure (or growth beyond STRBUF_MAX) marks the buffer broken, and
 * strbuf_steal() reports -ENOMEM / -E2BIG once at the end.
 */

#include <stdbool.h>
#include <stddef.h>

#include "cc/macro.h"

#define STRBUF_MAX (16u * 1024u * 1024u)

struct strbuf {
	char *s;
	size_t len;
	size_t cap;
	int error; /* 0, -ENOMEM or -E2BIG */
};

void strbuf_append(struct strbuf *b, const char *s);
void strbuf_append_n(struct strbuf *b, const char *s, size_t n);
void strbuf_append_char(struct strbuf *b, char c);
void strbuf_printf(struct strbuf *b, const char *fmt, ...) _printf_(2, 3);
/* Hand the string over (never NULL on success: "" when empty) and reset b. */
int strbuf_steal(struct strbuf *b, char **ret);
void strbuf_done(struct strbuf *b);
