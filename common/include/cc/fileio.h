/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

#include <stddef.h>
#include <sys/types.h>

/*
 * Read a whole file (or fd) into a NUL-terminated heap buffer. Fails with -EFBIG when the
 * contents exceed max_size bytes, so hostile inputs cannot exhaust memory.
 */
int read_full_fd(int fd, size_t max_size, char **ret_buf, size_t *ret_len);
int read_full_file(const char *path, size_t max_size, char **ret_buf, size_t *ret_len);

/* write(2) until done; retries on EINTR and short writes. */
int loop_write(int fd, const void *buf, size_t len);
/* read(2) until len bytes or EOF; returns the number of bytes read. */
ssize_t loop_read(int fd, void *buf, size_t len);
/* pread(2) of exactly len bytes at off (retries on EINTR and short reads): 0, -errno, or
 * -ENODATA when the file ends first. */
int pread_exact(int fd, void *buf, size_t len, off_t off);

/* Write s to an existing file (sysfs, procfs): one write, no create, no truncate. */
int write_string_file(const char *path, const char *s);

/* Write s to path (created with mode, truncated), atomically through a temporary file. */
int write_string_file_atomic(const char *path, const char *s, mode_t mode);

/*
 * Open path (flags: O_RDONLY, or O_RDWR for a device node) through a read-only clone of its
 * directory's mount, for an fd handed to a process that holds capabilities over the inode
 * (the jailed VMM): such a process could otherwise open it again for writing through
 * /proc/self/fd/N, or chmod and chown it; on a read-only mount both get EROFS, and it cannot
 * remount a mount of another namespace. The last component is not followed. Needs
 * CAP_SYS_ADMIN (open_tree). The fd or -errno.
 */
int open_on_read_only_mount(const char *path, int flags);
