/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "base/gmem.h"
#include "loader/kernel.h"

/*
 * For a guest without SMAP: write NOPs into guest memory (gm, where img's segments were
 * loaded) at every clac/stac site that the kernel file (len bytes at file) holds pre-written
 * (loader/altinstr.h). *ret_n gets how many. -ENOEXEC with *reterr_msg for a malformed file.
 */
int kernel_smap_undo(const uint8_t *file, size_t len, const struct kernel_image *img,
		     const struct gmem *gm, unsigned *ret_n, const char **reterr_msg);
