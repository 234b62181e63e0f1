/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The kernel command line: the user's string plus what the VMM appends (device declarations). */

#include <stddef.h>

/*
 * Appends frag to the NUL-terminated buf (size bytes), with one space in between when buf is
 * not empty. -E2BIG (buf unchanged) when it does not fit; -EINVAL for a fragment with a
 * control character.
 */
int cmdline_append(char *buf, size_t size, const char *frag);
