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
