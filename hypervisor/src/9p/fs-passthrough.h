/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The 9p server's host filesystem backend: one exported host directory.
 *
 * Every file is held as an O_PATH | O_NOFOLLOW descriptor. A lookup resolves exactly one name
 * (no '/', not "." or "..") relative to its parent's descriptor with
 * openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS), so the backend never
 * follows a symlink and never leaves the directory it starts from: symlinks are resolved by
 * the guest, in the guest. Operations that need a real file (open, chmod, utimes, xattrs) go
 * through /proc/self/fd/N of the O_PATH descriptor, which names exactly the inode already held
 * and so cannot be redirected by a concurrent rename or symlink swap.
 *
 * All functions return 0 (or a count) or a negative errno, and never log above debug level.
 */

#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>

struct fsp;

/* Open dir as an export. -ENOTDIR, -ENOENT, ... */
int fsp_new(const char *dir, struct fsp **ret);
/* The same on a directory fd (duplicated; the caller keeps root_fd). */
int fsp_new_at(int root_fd, struct fsp **ret);
/*
 * From now on, what needs a privilege the process lacks is asked of the broker on sock
 * (fs-broker.h, docs/9p.md "The broker"); what it may do itself it still does. Not owned.
 *
 * Where a function below takes (dir_fd, name) next to a node's descriptor, they are the
 * directory it was reached from and its name there (-1 and "" for an export root): the
 * broker classifies a node that is not a directory through them.
 */
void fsp_set_broker(struct fsp *fs, int sock);
struct fsp *fsp_free(struct fsp *fs);
/* The export root, an O_PATH directory descriptor owned by fs. */
int fsp_root_fd(const struct fsp *fs);

/* A single path component we accept from the guest: non-empty, no '/', not "." or "..". */
bool fsp_name_valid(const char *name);

/* Whether open(2) flags change the file: open for writing, or truncate. */
static inline bool fsp_opens_for_write(int flags)
{
	return (flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC);
}

/* Look name up under dir_fd; returns an O_PATH | O_NOFOLLOW descriptor in *ret_fd. */
int fsp_lookup(const struct fsp *fs, int dir_fd, const char *name, int *ret_fd);
int fsp_stat(int fd, struct stat *ret);
/*
 * Open the file held by path_fd with open(2) flags (no O_CREAT). Only regular files and
 * directories are opened; anything else (FIFOs, sockets, devices) gets -EOPNOTSUPP, so a
 * guest cannot make the server block on a FIFO or touch a host device.
 */
int fsp_reopen(const struct fsp *fs, int path_fd, int dir_fd, const char *name, int flags,
	       int *ret_fd);
/*
 * Create (or, without O_EXCL in flags, open an existing) regular file; returns the open and
 * the O_PATH descriptors, and 1 when the file was made, 0 when it existed. A new file gets
 * exactly mode, whatever the VMM's umask, and is given to uid:gid when the VMM may (best
 * effort, as below).
 */
int fsp_create(const struct fsp *fs, int dir_fd, const char *name, int flags, mode_t mode,
	       uint32_t uid, uint32_t gid, int *ret_open_fd, int *ret_path_fd);
/*
 * New nodes get exactly mode (the VMM's umask is undone) and are given to uid:gid when the
 * VMM may (best effort: ignored without CAP_CHOWN).
 */
int fsp_mkdir(const struct fsp *fs, int dir_fd, const char *name, mode_t mode, uint32_t uid,
	      uint32_t gid);
int fsp_symlink(const struct fsp *fs, int dir_fd, const char *name, const char *target,
		uint32_t uid, uint32_t gid);
/* Only FIFOs, sockets and regular files; device nodes get -EPERM. */
int fsp_mknod(const struct fsp *fs, int dir_fd, const char *name, mode_t mode, uint32_t uid,
	      uint32_t gid);
/*
 * Clear the setuid and setgid bits of the regular file open as open_fd, if it has any: what
 * the kernel does on a write by a caller without CAP_FSETID, which the VMM holds.
 */
int fsp_drop_suid(const struct fsp *fs, int open_fd, int dir_fd, const char *name);
int fsp_link(const struct fsp *fs, int fd, int fd_dir, const char *fd_name, int dir_fd,
	     const char *name);
int fsp_rename(const struct fsp *fs, int old_dir_fd, const char *old_name, int new_dir_fd,
	       const char *new_name);
int fsp_unlink(const struct fsp *fs, int dir_fd, const char *name, bool dir);
/* Whether name in dir_fd is still the inode st describes (for name-based operations). */
int fsp_check_same(const struct fsp *fs, int dir_fd, const char *name, const struct stat *st);

/* Symlink target into buf (NUL-terminated); returns its length. */
int fsp_readlink(int fd, char *buf, size_t size);
int fsp_statfs(int fd, struct statfs *ret);

struct fsp_setattr {
	bool set_mode, set_uid, set_gid, set_size, set_atime, set_mtime, set_ctime;
	mode_t mode;
	uid_t uid;
	gid_t gid;
	uint64_t size;
	struct timespec atime; /* may be UTIME_NOW */
	struct timespec mtime;
};

/*
 * Apply a setattr to the inode held by path_fd. open_fd (or -1) is used for truncation when it
 * is open for writing. A symlink is addressed by (dir_fd, name) instead, since the /proc route
 * would act on the link target's name resolution; pass dir_fd -1 when there is no parent.
 */
int fsp_setattr(const struct fsp *fs, int path_fd, int open_fd, int dir_fd, const char *name,
		const struct fsp_setattr *a);

/*
 * Directory reading, stateless: seek open_fd to off and call cb for each entry; cb returns
 * true to go on, false when the entry did not fit (it will be read again at next_off of the
 * previous entry). Returns 0 or a negative errno.
 */
typedef bool (*fsp_dirent_fn)(void *userdata, uint64_t ino, uint64_t next_off, uint8_t type,
			      const char *name);
int fsp_readdir(int open_fd, uint64_t off, fsp_dirent_fn cb, void *userdata);

/* Extended attributes of the inode held by path_fd. size 0 asks for the size. */
int fsp_xattr_get(const struct fsp *fs, int path_fd, int dir_fd, const char *node_name,
		  const char *name, void *buf, size_t size);
int fsp_xattr_list(const struct fsp *fs, int path_fd, int dir_fd, const char *node_name, char *buf,
		   size_t size);
int fsp_xattr_set(const struct fsp *fs, int path_fd, int dir_fd, const char *node_name,
		  const char *name, const void *value, size_t size, int flags);
int fsp_xattr_remove(const struct fsp *fs, int path_fd, int dir_fd, const char *node_name,
		     const char *name);
