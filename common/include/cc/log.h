/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Logging. Libraries log at debug level only; the program that decides what to do with an
 * error logs it once, at the boundary, and returns in the same step:
 *
 *	return log_error_errno(r, "Failed to open kernel '%s': %m", path);
 *
 * log_full_errno() sets errno from err so that %m prints strerror(-err), and returns -abs(err).
 */

#include <syslog.h>

#include "cc/macro.h"

void log_set_max_level(int level);
int log_get_max_level(void);
/* Program name printed in front of each message ("cc-vmm: ..."). NULL prints none. */
void log_set_prefix(const char *prefix);

int log_internal(int level, int err, const char *file, int line, const char *func, const char *fmt,
		 ...) _printf_(6, 7);

#define log_full_errno(level, err, ...)                                                     \
	({                                                                                  \
		int _lvl = (level), _e = (err);                                             \
		(_lvl <= log_get_max_level())                                               \
			? log_internal(_lvl, _e, __FILE__, __LINE__, __func__, __VA_ARGS__) \
			: -(_e < 0 ? -_e : _e);                                             \
	})

#define log_full(level, ...) (void) log_full_errno(level, 0, __VA_ARGS__)

#define log_debug(...)	 log_full(LOG_DEBUG, __VA_ARGS__)
#define log_info(...)	 log_full(LOG_INFO, __VA_ARGS__)
#define log_notice(...)	 log_full(LOG_NOTICE, __VA_ARGS__)
#define log_warning(...) log_full(LOG_WARNING, __VA_ARGS__)
#define log_error(...)	 log_full(LOG_ERR, __VA_ARGS__)

#define log_debug_errno(e, ...)	  log_full_errno(LOG_DEBUG, e, __VA_ARGS__)
#define log_info_errno(e, ...)	  log_full_errno(LOG_INFO, e, __VA_ARGS__)
#define log_warning_errno(e, ...) log_full_errno(LOG_WARNING, e, __VA_ARGS__)
#define log_error_errno(e, ...)	  log_full_errno(LOG_ERR, e, __VA_ARGS__)

#define log_oom() log_error_errno(ENOMEM, "Out of memory.")
