/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cc/log.h"

static int log_max_level = LOG_WARNING;
static const char *log_prefix;

void log_set_max_level(int level)
{
	log_max_level = level;
}

int log_get_max_level(void)
{
	return log_max_level;
}

void log_set_prefix(const char *prefix)
{
	log_prefix = prefix;
}

int log_internal(int level, int err, const char *file, int line, const char *func, const char *fmt,
		 ...)
{
	int saved = errno;
	int e = err < 0 ? -err : err;
	va_list ap;

	if (e != 0)
		errno = e;

	flockfile(stderr);
	if (log_prefix)
		fprintf(stderr, "%s: ", log_prefix);
	if (log_max_level >= LOG_DEBUG)
		fprintf(stderr, "(%s:%d %s) ", file, line, func);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	funlockfile(stderr);

	(void) level;
	errno = saved;
	return -e;
}
