/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Paths inside an app rootfs, resolved as the chrooted app sees them: openat2() with
 * RESOLVE_IN_ROOT, so ".." and absolute symlinks stop at the rootfs root and a symlink can
 * never lead outside it (an "escaping" symlink resolves to the path it names inside the
 * rootfs, like in the app's own view). Needs Linux >= 5.6 (-ENOSYS otherwise).
 */

#include <stdbool.h>

enum root_path_type {
	ROOT_PATH_DIR,
	ROOT_PATH_FILE,
};

/* What root_path_open_create() had to do, for warnings. */
enum {
	ROOT_PATH_CREATED = 1 << 0,	  /* the last component was created */
	ROOT_PATH_REPLACED_FILE = 1 << 1, /* a non-directory was replaced by a directory */
	ROOT_PATH_NOT_EMPTY = 1 << 2,	  /* the directory has entries (they will be hidden) */
};

/* openat2(root_fd, path, flags, RESOLVE_IN_ROOT|RESOLVE_NO_MAGICLINKS); -errno on failure. */
int root_path_open(int root_fd, const char *path, int flags);

/*
 * Open (O_PATH) the absolute path inside root_fd as a directory or a regular file, creating
 * missing components (directories 0755 root:root; the last one as type, a file 0644 empty).
 * An existing non-directory last component is replaced by a directory when type is
 * ROOT_PATH_DIR (only if it is not a symlink); an existing directory where a file is wanted
 * is -EISDIR; a dangling symlink on the way is -ENOLINK; a non-directory in the middle is
 * -ENOTDIR. *ret_flags gets ROOT_PATH_* bits.
 */
int root_path_open_create(int root_fd, const char *path, enum root_path_type type, int *ret_fd,
			  int *ret_flags);
