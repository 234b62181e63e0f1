/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* What the lazylib tests share. CC_LAZY_REAL is where the test's stand-in loads its library. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cctest.h"

/* Sanitizer runtimes refuse dlopen(RTLD_DEEPBIND), which every first call through a stand-in
 * makes: tests.cmake leaves these tests out of sanitized builds. */
#if defined(__SANITIZE_ADDRESS__)
#error "the lazylib tests cannot run under a sanitizer runtime (RTLD_DEEPBIND)"
#endif

/* Whether the real library (the file, CC_LAZY_REAL may be a link) is mapped in this process. */
static inline int lazy_real_mapped(void)
{
	char line[4096], real[PATH_MAX], want[PATH_MAX + 2];
	int found = 0;
	FILE *maps;

	ck_assert_ptr_nonnull(realpath(CC_LAZY_REAL, real));
	snprintf(want, sizeof(want), " %s\n", real);
	maps = fopen("/proc/self/maps", "re");
	ck_assert_ptr_nonnull(maps);
	while (fgets(line, sizeof(line), maps))
		if (strstr(line, want))
			found = 1;
	fclose(maps);
	return found;
}
