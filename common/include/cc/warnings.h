/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Warnings: what the user must hear about without the call failing (an isolator ignored or
 * changed, which ace.md requires reporting; a cleanup that did not work). Libraries append
 * lines to the caller's struct cc_warnings and never print; the program prints each one once,
 * e.g. "run: warning: <line>". Errors are struct cc_error (cc/error.h).
 */

#include <stddef.h>

#include "cc/macro.h"

/* At most this many warnings are kept; one last line then says how many were dropped. */
#define CC_WARNINGS_MAX 256

struct cc_warnings {
	char **lines;
	size_t n;
	size_t n_dropped;
};

/* Append one formatted line. Only fails with -ENOMEM. w may be NULL (the warning is dropped). */
int cc_warnings_add(struct cc_warnings *w, const char *fmt, ...) _printf_(2, 3);
/*
 * The number of lines to print, including the final "N more warnings not shown" line when
 * some were dropped; cc_warnings_line(w, i) returns line i of that list.
 */
size_t cc_warnings_count(const struct cc_warnings *w);
const char *cc_warnings_line(const struct cc_warnings *w, size_t i);
void cc_warnings_done(struct cc_warnings *w);
