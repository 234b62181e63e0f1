/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Small string helpers private to ccpod. */

#include <stdbool.h>
#include <string.h>

static inline bool streq(const char *a, const char *b)
{
	return strcmp(a, b) == 0;
}

static inline const char *strempty_to_null(const char *s)
{
	return s && *s ? s : NULL;
}
