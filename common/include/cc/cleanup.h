/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Scoped cleanup helpers (GNU cleanup attribute). Locals declared with one of these are
 * released when they go out of scope; TAKE_PTR()/TAKE_FD() hand ownership on.
 */

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cc/macro.h"

#define DEFINE_TRIVIAL_CLEANUP_FUNC(type, func) \
	static inline void func##p(type *p)     \
	{                                       \
		if (*p)                         \
			func(*p);               \
	}

static inline void freep(void *p)
{
	free(*(void **) p);
}

/* free(p); returns NULL, so callers can write p = mfree(p) before reusing a cleanup pointer. */
static inline void *mfree(void *p)
{
	free(p);
	return NULL;
}

/* Close fd unless negative; keeps errno. Returns -1, so callers can write fd = safe_close(fd). */
static inline int safe_close(int fd)
{
	if (fd >= 0) {
		int saved = errno;
		(void) close(fd);
		errno = saved;
	}
	return -1;
}

static inline void closep(int *fd)
{
	(void) safe_close(*fd);
}

static inline void fclosep(FILE **f)
{
	if (*f)
		(void) fclose(*f);
}

static inline void closedirp(DIR **d)
{
	if (*d)
		(void) closedir(*d);
}

#define _cleanup_free_	   _cleanup_(freep)
#define _cleanup_close_	   _cleanup_(closep)
#define _cleanup_fclose_   _cleanup_(fclosep)
#define _cleanup_closedir_ _cleanup_(closedirp)

#define TAKE_PTR(p)                 \
	({                          \
		typeof(p) _p = (p); \
		(p) = NULL;         \
		_p;                 \
	})

#define TAKE_FD(fd)             \
	({                      \
		int _fd = (fd); \
		(fd) = -1;      \
		_fd;            \
	})
