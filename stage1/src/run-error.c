/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "run-error.h"

int run_error_set(struct run_error *e, int r, const char *fmt, ...)
{
	int err = r < 0 ? -r : r;

	if (e) {
		va_list ap;

		errno = err;
		va_start(ap, fmt);
		(void) vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
	}
	return -err;
}

void run_warn(run_warn_fn fn, void *userdata, const char *fmt, ...)
{
	char msg[RUN_ERROR_MSG_MAX];
	va_list ap;

	if (!fn)
		return;
	va_start(ap, fmt);
	(void) vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fn(userdata, msg);
}
