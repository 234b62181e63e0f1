/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Looking at an app's rootfs from the host without trusting it: every path is resolved with
 * openat2(RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS) beneath a directory fd of the rootfs, so
 * an image's absolute or ".." symlinks stay inside it. Mount points are crossed (volumes are
 * mounted before the pod layer is written).
 */

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "cc/error.h"
#include "cc/warnings.h"

/* The fixed ACE PATH (appc ace.md), also used to resolve an exec[0] without a '/'. */
#define STAGE1_ACE_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/*
 * Open path (absolute or relative, resolved inside rootfs_fd) with flags (O_CLOEXEC is always
 * added). Returns the fd or a negative errno (-ENOSYS: the kernel has no openat2, < 5.6).
 */
int rootfs_open(int rootfs_fd, const char *path, int flags);
/* stat() of path inside the rootfs, following symlinks inside it. */
int rootfs_stat(int rootfs_fd, const char *path, struct stat *ret);
/* Read a regular file inside the rootfs, at most max_size bytes (-EFBIG beyond). */
int rootfs_read_file(int rootfs_fd, const char *path, size_t max_size, char **ret_buf,
		     size_t *ret_len);

/*
 * A path the guest's systemd accepts as-is for RootDirectory-relative settings
 * (WorkingDirectory=, ReadWritePaths=): absolute, at most 4095 bytes, components of at most
 * 255 bytes, no "." or ".." components, no control characters, no trailing white space or
 * backslash.
 */
bool unit_path_is_valid(const char *p);

/*
 * Resolve exec[0] of an app or event handler as execvp would in the app: a name without '/'
 * is searched in STAGE1_ACE_PATH for a regular file with an execute bit (-ENOENT when none);
 * an absolute path is returned as-is (not checked: a missing binary fails at start, as with
 * rkt); a relative path with a '/' is -EINVAL. *ret is a heap copy of the absolute path.
 */
int rootfs_find_executable(int rootfs_fd, const char *argv0, char **ret);
