/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc/warnings.h"

int cc_warnings_add(struct cc_warnings *w, const char *fmt, ...)
{
	char *line = NULL, **n;
	va_list ap;
	int k;

	if (!w)
		return 0;
	if (w->n >= CC_WARNINGS_MAX) {
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

size_t cc_warnings_count(const struct cc_warnings *w)
{
	if (!w)
		return 0;
	return w->n + (w->n_dropped > 0 ? 1 : 0);
}

const char *cc_warnings_line(const struct cc_warnings *w, size_t i)
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

void cc_warnings_done(struct cc_warnings *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->n; i++)
		free(w->lines[i]);
	free(w->lines);
	*w = (struct cc_warnings){};
}
