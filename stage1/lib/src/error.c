/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stage1/error.h"

int stage1_error_set(struct stage1_error *e, int r, const char *fmt, ...)
{
	va_list ap;

	if (e) {
		va_start(ap, fmt);
		(void) vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
	}
	return r < 0 ? r : -r;
}

int stage1_warnings_add(struct stage1_warnings *w, const char *fmt, ...)
{
	char *line = NULL, **n;
	va_list ap;
	int k;

	if (!w)
		return 0;
	if (w->n >= STAGE1_WARNINGS_MAX) {
		w->n_dropped++;
		return 0;
	}
	va_start(ap, fmt);
	k = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (k < 0)
		return -ENOMEM;
	n = realloc(w->lines, (w->n + 1) * sizeof(*n));
	if (!n) {
		free(line);
		return -ENOMEM;
	}
	w->lines = n;
	w->lines[w->n++] = line;
	return 0;
}

size_t stage1_warnings_count(const struct stage1_warnings *w)
{
	if (!w)
		return 0;
	return w->n + (w->n_dropped > 0 ? 1 : 0);
}

const char *stage1_warnings_line(const struct stage1_warnings *w, size_t i)
{
	static _Thread_local char dropped[64];

	if (!w)
		return NULL;
	if (i < w->n)
		return w->lines[i];
	if (i == w->n && w->n_dropped > 0) {
		(void) snprintf(dropped, sizeof(dropped), "%zu more warnings not shown",
				w->n_dropped);
		return dropped;
	}
	return NULL;
}

void stage1_warnings_done(struct stage1_warnings *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->n; i++)
		free(w->lines[i]);
	free(w->lines);
	*w = (struct stage1_warnings){};
}
