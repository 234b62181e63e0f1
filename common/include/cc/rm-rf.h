/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Remove name beneath dir_fd and everything below it, never following a symlink and never
 * crossing into another file system (a mount point stops the walk with -EBUSY). A missing
 * name is success.
 */
int rm_rf_at(int dir_fd, const char *name);
/* The same for a path: its last component beneath its parent directory. */
int rm_rf(const char *path);
