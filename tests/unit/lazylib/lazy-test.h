/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* What the lazylib tests share. CC_LAZY_REAL is where the test's stand-in loads its library. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cctest.h"

/*
 * Sanitizer runtimes refuse dlopen(RTLD_DEEPBIND), which a stand-in's first call makes: an
 * instrumented build exits 77 (skipped) with the reason.
 */
#if defined(__SANITIZE_ADDRESS__)
#define LAZY_SKIP_REASON \
	"the sanitizer runtime refuses RTLD_DEEPBIND; the plain unit tier runs this"
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

/* Builds and runs the suite: exits 77 with the reason instead in an instrumented build. */
static inline int lazy_run_suite(const char *test, Suite *(*make_suite)(void) )
{
#ifdef LAZY_SKIP_REASON
	fprintf(stderr, "%s: skipped: %s\n", test, LAZY_SKIP_REASON);
	(void) make_suite;
	return 77;
#else
	(void) test;
	return cctest_run_suite(make_suite());
#endif
}
