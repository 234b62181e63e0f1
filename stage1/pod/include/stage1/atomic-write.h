/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Writing the pod layer beneath a directory fd: every path is relative, created one
 * component at a time, never through a symlink; files and symlinks are replaced atomically
 * (temporary name + renameat).
 */

#include <sys/types.h>

/* Create (or open) the directory relpath beneath dir_fd, like mkdir -p; *ret_fd is its fd. */
int layer_mkdir_p(int dir_fd, const char *relpath, mode_t mode, int *ret_fd);
/* Write content as dir_fd/name (a plain file name) with mode, atomically. */
int layer_write_file(int dir_fd, const char *name, const char *content, mode_t mode);
/* Make dir_fd/name a symlink to target, atomically. */
int layer_symlink(int dir_fd, const char *name, const char *target);
