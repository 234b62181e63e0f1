/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Errors and warnings of the ccstage1 library.
 *
 * Fallible functions return a negative errno and, when reterr is non-NULL, fill a struct
 * stage1_error with ONE line (no newline, no program prefix) that the entrypoint prints as
 * "run: <msg>". Functions that can only fail with -ENOMEM leave it untouched.
 *
 * Isolators that are ignored or changed, and other things the user must hear about without
 * failing the pod (ace.md requires reporting every ignored or modified isolator), are
 * returned as warning lines in a struct stage1_warnings; the entrypoint prints each one on
 * stderr, e.g. "run: warning: <line>".
 */

#include <stddef.h>

#include "cc/macro.h"

#define STAGE1_ERROR_MAX 512
/* At most this many warnings are kept; one last line then says how many were dropped. */
#define STAGE1_WARNINGS_MAX 256

struct stage1_error {
	char msg[STAGE1_ERROR_MAX];
};

/* Format into *e (NULL-safe, truncated to fit) and return -abs(r), for "return
 * stage1_error_set(...)". */
int stage1_error_set(struct stage1_error *e, int r, const char *fmt, ...) _printf_(3, 4);

struct stage1_warnings {
	char **lines;
	size_t n;
	size_t n_dropped;
};

/* Append one formatted line. Only fails with -ENOMEM. w may be NULL (the warning is dropped). */
int stage1_warnings_add(struct stage1_warnings *w, const char *fmt, ...) _printf_(2, 3);
/*
 * The number of lines to print, including the final "N more warnings not shown" line when
 * some were dropped; stage1_warnings_line(w, i) returns line i of that list.
 */
size_t stage1_warnings_count(const struct stage1_warnings *w);
const char *stage1_warnings_line(const struct stage1_warnings *w, size_t i);
void stage1_warnings_done(struct stage1_warnings *w);
