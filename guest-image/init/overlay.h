/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

#include <stddef.h>

/* The kernel reads at most one page of mount data. */
#define OVERLAY_OPTIONS_MAX 4096

/*
 * Build overlayfs mount data: "lowerdir=L0:L1:...,upperdir=U,workdir=W". lowers[0] is the
 * topmost lower layer. Paths must be absolute and non-empty; the characters overlayfs uses
 * as separators (',' and ':') and the backslash are escaped with a backslash. Returns 0 and
 * a new string, -EINVAL for a bad argument, -E2BIG when the result exceeds
 * OVERLAY_OPTIONS_MAX, -ENOMEM.
 */
int overlay_options_build(const char *const *lowers, size_t n_lowers, const char *upper,
			  const char *work, char **ret);
