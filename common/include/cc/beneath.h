/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Host access to a path under a directory the guest can write (a read-write 9p share, an app
 * rootfs, the stage1 rootfs the VMM is chrooted in). Everything there is the guest's: any
 * component may be a symlink to a host path, a FIFO that blocks an open forever, a device node
 * or a file of any size. docs/stage1.md, "Host access to guest-writable paths".
 *
 * Every path is resolved beneath a root fd with openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
 * RESOLVE_NO_MAGICLINKS), or with O_NOFOLLOW per component where the kernel has no openat2
 * (ENOSYS): no symlink or magic link is followed in any component, no ".." or absolute path
 * leaves the root. The file is first opened O_PATH and its type checked with fstat(), so a
 * FIFO, socket or device node is never really opened; a file of the right type is then opened
 * again through its O_PATH fd, with O_NONBLOCK | O_NOCTTY | O_CLOEXEC always.
 *
 * Errors: -ELOOP (a symlink or magic link on the way, the last component included), -EXDEV
 * (the path leaves the root), -EISDIR / -ENOTDIR / -EBADFD (not of the type asked: a
 * directory, not a directory, anything else), or the open's own -errno.
 */

#include <stddef.h>
#include <sys/types.h>

/*
 * Open path (relative to root_fd) as flags (O_RDONLY, O_WRONLY, O_RDWR, optionally O_PATH,
 * O_DIRECTORY, O_APPEND, O_TRUNC; never O_CREAT) if it is of type (S_IFREG, S_IFDIR, or with
 * O_PATH any S_IF* type, e.g. S_IFSOCK). Returns the fd.
 */
int beneath_open(int root_fd, const char *path, int flags, mode_t type);

/*
 * The contents of the regular file path beneath root_fd, NUL-terminated, in a heap buffer:
 * -EFBIG when it holds more than max_size bytes (nothing more is read).
 */
int beneath_read(int root_fd, const char *path, size_t max_size, char **ret_buf, size_t *ret_len);

/*
 * Create the regular file name (one component) in dir_fd (a directory from beneath_open())
 * and open it as flags (O_WRONLY or O_RDWR): O_CREAT | O_EXCL | O_NOFOLLOW, so it never opens
 * what is already there (a symlink, a FIFO, a file), -EEXIST then. Returns the fd.
 */
int beneath_create(int dir_fd, const char *name, int flags, mode_t mode);

/*
 * The resolution beneath_open() uses when the kernel has no openat2: an O_PATH |
 * O_NOFOLLOW walk, one component at a time; ".." is refused (-EXDEV) even where it would stay
 * beneath root_fd. flags as for openat(2). For tests; callers use beneath_open().
 */
int beneath_resolve_walk(int root_fd, const char *path, int flags);
