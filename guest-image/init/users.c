/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "cc/log.h"
#include "cc/macro.h"
#include "users.h"

/* The pod layer's lists are a few lines per app; anything bigger is not ours. */
#define USERS_DB_EXTRA_MAX (1024 * 1024)

static int users_append_one(const char *root, const char *db)
{
	_cleanup_free_ char *src = NULL, *dst = NULL, *extra = NULL;
	_cleanup_close_ int fd = -EBADF;
	size_t len;
	int r;

	if (asprintf(&src, "%s/etc/cc/%s", root, db) < 0 ||
	    asprintf(&dst, "%s/etc/%s", root, db) < 0)
		return log_oom();
	r = read_full_file(src, USERS_DB_EXTRA_MAX, &extra, &len);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return log_error_errno(r, "Failed to read %s: %m", src);
	if (len == 0)
		return 0;
	if (memchr(extra, '\0', len) || extra[len - 1] != '\n')
		return log_error_errno(SYNTHETIC_ERRNO(EBADMSG), "%s is not a list of lines", src);
	fd = open(dst, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return log_error_errno(errno, "Failed to open %s: %m", dst);
	r = loop_write(fd, extra, len);
	if (r < 0)
		return log_error_errno(r, "Failed to append to %s: %m", dst);
	return 0;
}

int users_append(const char *root)
{
	int r;

	r = users_append_one(root, "passwd");
	if (r >= 0)
		r = users_append_one(root, "group");
	return r;
}
