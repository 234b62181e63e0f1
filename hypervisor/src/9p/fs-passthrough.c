/* SPDX-License-Identifier: Apache-2.0 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "9p/fs-broker.h"
#include "9p/fs-passthrough.h"
#include "cc/cleanup.h"
#include "cc/log.h"

/* Every lookup: one component, beneath its directory, never through any kind of link. */
#define FSP_RESOLVE (RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS)

struct fsp {
	int root_fd;
	int proc_fd; /* /proc/self/fd, or -1 when /proc is not mounted */
	int broker;  /* the broker's socket (fs-broker.h), or -1: this process does it all */
};

/*
 * One request to the broker: the descriptors by slot (-1: not sent), want_fds back on success
 * into ret_fds.
 */
static int fsp_ask(const struct fsp *fs, struct fsb_req *q, const int slots[FSB_FDS_MAX],
		   const char *name, const char *name2, const void *value, int *ret_fds,
		   unsigned want_fds, void *data, size_t data_cap)
{
	int fds[FSB_FDS_MAX], got[FSB_FDS_MAX];
	unsigned n = 0, n_got = 0;
	int r;

	q->fd_mask = 0;
	for (unsigned i = 0; i < FSB_FDS_MAX; i++)
		if (slots[i] >= 0) {
			q->fd_mask |= 1u << i;
			fds[n++] = slots[i];
		}
	r = fsb_call(fs->broker, q, fds, n, name, name2, value, got, &n_got, data, data_cap);
	if (r >= 0 && n_got != want_fds)
		r = -EIO;
	for (unsigned i = 0; i < n_got; i++) {
		if (r >= 0)
			ret_fds[i] = got[i];
		else
			(void) close(got[i]);
	}
	return r;
}

static bool fsp_denied(int r)
{
	return r == -EACCES || r == -EPERM;
}

static int fsp_openat2(int dir_fd, const char *name, int flags, mode_t mode)
{
	struct open_how how = {
		.flags = (uint64_t) (flags | O_CLOEXEC | O_NOFOLLOW),
		.mode = (flags & O_CREAT) ? mode : 0,
		.resolve = FSP_RESOLVE,
	};
	long r;

	do
		r = syscall(SYS_openat2, dir_fd, name, &how, sizeof(how));
	while (r < 0 && errno == EAGAIN);
	return r < 0 ? -errno : (int) r;
}

static int fsp_new_fd(int root_fd, struct fsp **ret)
{
	struct stat st;
	struct fsp *fs;

	if (fstat(root_fd, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	fs = calloc(1, sizeof(*fs));
	if (!fs)
		return -ENOMEM;
	fs->proc_fd = open("/proc/self/fd", O_PATH | O_DIRECTORY | O_CLOEXEC);
	fs->root_fd = root_fd;
	fs->broker = -1;
	*ret = fs;
	return 0;
}

int fsp_new(const char *dir, struct fsp **ret)
{
	_cleanup_close_ int root_fd = -1;
	int r;

	root_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root_fd < 0)
		return -errno;
	r = fsp_new_fd(root_fd, ret);
	if (r >= 0)
		TAKE_FD(root_fd);
	return r;
}

int fsp_new_at(int root_fd, struct fsp **ret)
{
	_cleanup_close_ int fd = fcntl(root_fd, F_DUPFD_CLOEXEC, 3);
	int r;

	if (fd < 0)
		return -errno;
	r = fsp_new_fd(fd, ret);
	if (r >= 0)
		TAKE_FD(fd);
	return r;
}

void fsp_set_broker(struct fsp *fs, int sock)
{
	fs->broker = sock;
}

struct fsp *fsp_free(struct fsp *fs)
{
	if (!fs)
		return NULL;
	safe_close(fs->root_fd);
	safe_close(fs->proc_fd);
	free(fs);
	return NULL;
}

int fsp_root_fd(const struct fsp *fs)
{
	return fs->root_fd;
}

bool fsp_name_valid(const char *name)
{
	return name[0] && !strchr(name, '/') && strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

int fsp_lookup(const struct fsp *fs, int dir_fd, const char *name, int *ret_fd)
{
	int fd;

	if (!fsp_name_valid(name))
		return -EINVAL;
	/* With a broker, openat: the worker's filter has no openat2, whose flags it cannot see
	 * (one valid component and O_NOFOLLOW resolve exactly as openat2 would). */
	if (fs->broker >= 0)
		fd = RET_NERRNO(openat(dir_fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC));
	else
		fd = fsp_openat2(dir_fd, name, O_PATH, 0);
	if (fsp_denied(fd) && fs->broker >= 0)
		return fsp_ask(fs, &(struct fsb_req){.op = FSB_LOOKUP}, (int[]){dir_fd, -1, -1},
			       name, NULL, NULL, ret_fd, 1, NULL, 0);
	if (fd < 0)
		return fd;
	*ret_fd = fd;
	return 0;
}

int fsp_stat(int fd, struct stat *ret)
{
	return RET_NERRNO(fstatat(fd, "", ret, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW));
}

static void fsp_fd_name(int fd, char buf[static 16])
{
	(void) snprintf(buf, 16, "%d", fd);
}

int fsp_reopen(const struct fsp *fs, int path_fd, int dir_fd, const char *node_name, int flags,
	       int *ret_fd)
{
	char name[16];
	struct stat st;
	int r, fd;

	flags &= ~(O_CREAT | O_EXCL | O_NOFOLLOW | O_PATH | O_TMPFILE);
	r = fsp_stat(path_fd, &st);
	if (r < 0)
		return r;
	if (S_ISLNK(st.st_mode))
		return -ELOOP;
	if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return -EOPNOTSUPP;
	if (S_ISDIR(st.st_mode) && (flags & O_ACCMODE) != O_RDONLY)
		return -EISDIR;
	/* A truncate is the broker's (the worker's filter refuses O_TRUNC), and so are its setuid
	 * bits in a volume: as if the kernel had refused it here. */
	if (fs->broker >= 0 && (flags & O_TRUNC)) {
		fd = -EPERM;
	} else if (fs->proc_fd >= 0) {
		fsp_fd_name(path_fd, name);
		fd = RET_NERRNO(openat(fs->proc_fd, name, flags | O_CLOEXEC | O_NONBLOCK));
	} else if (S_ISDIR(st.st_mode)) {
		fd = RET_NERRNO(openat(path_fd, ".", flags | O_CLOEXEC | O_DIRECTORY));
	} else {
		return -EOPNOTSUPP;
	}
	if (fsp_denied(fd) && fs->broker >= 0)
		return fsp_ask(fs, &(struct fsb_req){.op = FSB_REOPEN, .flags = (uint32_t) flags},
			       (int[]){path_fd, S_ISDIR(st.st_mode) ? -1 : dir_fd, -1},
			       S_ISDIR(st.st_mode) ? NULL : node_name, NULL, NULL, ret_fd, 1, NULL,
			       0);
	if (fd < 0)
		return fd;
	*ret_fd = fd;
	return 0;
}

int fsp_create(const struct fsp *fs, int dir_fd, const char *name, int flags, mode_t mode,
	       uint32_t uid, uint32_t gid, int *ret_open_fd, int *ret_path_fd)
{
	_cleanup_close_ int fd = -1, path_fd = -1;
	bool made = false;
	char fdname[16];
	struct stat st;
	int r;

	if (!fsp_name_valid(name))
		return -EINVAL;
	flags &= ~(O_DIRECTORY | O_PATH | O_TMPFILE | O_CREAT);
	if (fs->broker >= 0) {
		int fds[2];

		r = fsp_ask(fs,
			    &(struct fsb_req){.op = FSB_CREATE,
					      .flags = (uint32_t) flags,
					      .mode = mode,
					      .uid = uid,
					      .gid = gid},
			    (int[]){dir_fd, -1, -1}, name, NULL, NULL, fds, 2, NULL, 0);
		if (r >= 0) {
			*ret_open_fd = fds[0];
			*ret_path_fd = fds[1];
		}
		return r;
	}
	if (fs->proc_fd < 0)
		return -EOPNOTSUPP;
	fd = fsp_openat2(dir_fd, name, flags | O_CREAT | O_EXCL, mode & 07777);
	if (fd >= 0) {
		/*
		 * Ours: hand it to the guest, then undo the VMM's umask (the guest applied its
		 * own). In this order, since a chown clears setuid and setgid bits.
		 */
		if (fchown(fd, uid, gid) < 0)
			log_debug("9p: cannot give '%s' to %u:%u, ignoring: %m", name, uid, gid);
		if (fchmod(fd, mode & 07777) < 0)
			return -errno;
		made = true;
	} else if (fd == -EEXIST && !(flags & O_EXCL)) {
		/* An existing file: opened like Tlopen would, so never a FIFO or a device. */
		r = fsp_lookup(fs, dir_fd, name, &path_fd);
		if (r < 0)
			return r;
		r = fsp_reopen(fs, path_fd, dir_fd, name, flags, &fd);
		if (r < 0)
			return r;
		if (fstat(fd, &st) < 0)
			return -errno;
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
	} else {
		return fd;
	}
	if (path_fd < 0) {
		fsp_fd_name(fd, fdname);
		path_fd = openat(fs->proc_fd, fdname, O_PATH | O_CLOEXEC);
		if (path_fd < 0)
			return -errno;
	}
	*ret_open_fd = TAKE_FD(fd);
	*ret_path_fd = TAKE_FD(path_fd);
	return made;
}

/*
 * A node just made: hand it to the guest's ids (best effort: needs CAP_CHOWN), then undo the
 * VMM's umask (the guest applied its own); in this order, since a chown clears setuid bits.
 * The node is reached without following links, so a racing swap cannot redirect either.
 */
static int fsp_adopt(const struct fsp *fs, int dir_fd, const char *name, uint32_t uid, uint32_t gid,
		     mode_t mode)
{
	_cleanup_close_ int fd = -1;
	char fdname[16];
	struct stat st;
	int r;

	r = fsp_lookup(fs, dir_fd, name, &fd);
	if (r < 0)
		return r;
	if (fchownat(fd, "", uid, gid, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0)
		log_debug("9p: cannot give '%s' to %u:%u, ignoring: %m", name, uid, gid);
	r = fsp_stat(fd, &st);
	if (r < 0)
		return r;
	if (S_ISLNK(st.st_mode) || (st.st_mode & 07777) == (mode & 07777))
		return 0;
	if (fs->proc_fd < 0)
		return -EOPNOTSUPP;
	fsp_fd_name(fd, fdname);
	return RET_NERRNO(fchmodat(fs->proc_fd, fdname, mode & 07777, 0));
}

int fsp_mkdir(const struct fsp *fs, int dir_fd, const char *name, mode_t mode, uint32_t uid,
	      uint32_t gid)
{
	int r;

	if (!fsp_name_valid(name))
		return -EINVAL;
	if (fs->broker >= 0)
		return fsp_ask(
			fs,
			&(struct fsb_req){.op = FSB_MKDIR, .mode = mode, .uid = uid, .gid = gid},
			(int[]){dir_fd, -1, -1}, name, NULL, NULL, NULL, 0, NULL, 0);
	r = RET_NERRNO(mkdirat(dir_fd, name, mode & 07777));
	if (r < 0)
		return r;
	return fsp_adopt(fs, dir_fd, name, uid, gid, mode);
}

int fsp_symlink(const struct fsp *fs, int dir_fd, const char *name, const char *target,
		uint32_t uid, uint32_t gid)
{
	int r;

	if (!fsp_name_valid(name) || !target[0])
		return -EINVAL;
	if (fs->broker >= 0)
		return fsp_ask(fs, &(struct fsb_req){.op = FSB_SYMLINK, .uid = uid, .gid = gid},
			       (int[]){dir_fd, -1, -1}, name, target, NULL, NULL, 0, NULL, 0);
	r = RET_NERRNO(symlinkat(target, dir_fd, name));
	if (r < 0)
		return r;
	return fsp_adopt(fs, dir_fd, name, uid, gid, 0);
}

int fsp_mknod(const struct fsp *fs, int dir_fd, const char *name, mode_t mode, uint32_t uid,
	      uint32_t gid)
{
	int r;

	if (!fsp_name_valid(name))
		return -EINVAL;
	if (!S_ISFIFO(mode) && !S_ISSOCK(mode) && !S_ISREG(mode))
		return -EPERM;
	if (fs->broker >= 0)
		return fsp_ask(
			fs,
			&(struct fsb_req){.op = FSB_MKNOD, .mode = mode, .uid = uid, .gid = gid},
			(int[]){dir_fd, -1, -1}, name, NULL, NULL, NULL, 0, NULL, 0);
	r = RET_NERRNO(mknodat(dir_fd, name, mode & (S_IFMT | 07777), 0));
	if (r < 0)
		return r;
	return fsp_adopt(fs, dir_fd, name, uid, gid, mode);
}

int fsp_drop_suid(const struct fsp *fs, int open_fd, int dir_fd, const char *name)
{
	struct stat st;
	int r;

	r = fsp_stat(open_fd, &st);
	if (r < 0)
		return r;
	if (!S_ISREG(st.st_mode) || !(st.st_mode & (S_ISUID | S_ISGID)))
		return 0;
	/* (Never a message the broker would take for malformed: it would end.) */
	if (fs->broker >= 0 && (dir_fd < 0 || !name[0]))
		return -EINVAL;
	if (fs->broker >= 0)
		return fsp_ask(fs, &(struct fsb_req){.op = FSB_DROP_SUID},
			       (int[]){open_fd, dir_fd, -1}, name, NULL, NULL, NULL, 0, NULL, 0);
	return RET_NERRNO(fchmod(open_fd, st.st_mode & 07777 & ~(mode_t) (S_ISUID | S_ISGID)));
}

int fsp_link(const struct fsp *fs, int fd, int fd_dir, const char *fd_name, int dir_fd,
	     const char *name)
{
	char fdname[16];

	if (!fsp_name_valid(name))
		return -EINVAL;
	if (fs->broker >= 0 && (fd_dir < 0 || !fd_name[0]))
		return -EINVAL;
	if (fs->broker >= 0)
		return fsp_ask(fs, &(struct fsb_req){.op = FSB_LINK}, (int[]){fd, fd_dir, dir_fd},
			       fd_name, name, NULL, NULL, 0, NULL, 0);
	if (linkat(fd, "", dir_fd, name, AT_EMPTY_PATH) == 0)
		return 0;
	if ((errno != ENOENT && errno != EPERM) || fs->proc_fd < 0)
		return -errno;
	/* Without CAP_DAC_READ_SEARCH: link the inode through its /proc/self/fd entry. */
	fsp_fd_name(fd, fdname);
	return RET_NERRNO(linkat(fs->proc_fd, fdname, dir_fd, name, AT_SYMLINK_FOLLOW));
}

int fsp_rename(const struct fsp *fs, int old_dir_fd, const char *old_name, int new_dir_fd,
	       const char *new_name)
{
	if (!fsp_name_valid(old_name) || !fsp_name_valid(new_name))
		return -EINVAL;
	if (fs->broker >= 0)
		return fsp_ask(fs, &(struct fsb_req){.op = FSB_RENAME},
			       (int[]){old_dir_fd, new_dir_fd, -1}, old_name, new_name, NULL, NULL,
			       0, NULL, 0);
	return RET_NERRNO(renameat(old_dir_fd, old_name, new_dir_fd, new_name));
}

int fsp_unlink(const struct fsp *fs, int dir_fd, const char *name, bool dir)
{
	if (!fsp_name_valid(name))
		return -EINVAL;
	if (fs->broker >= 0)
		return fsp_ask(fs, &(struct fsb_req){.op = FSB_UNLINK, .flags = dir},
			       (int[]){dir_fd, -1, -1}, name, NULL, NULL, NULL, 0, NULL, 0);
	return RET_NERRNO(unlinkat(dir_fd, name, dir ? AT_REMOVEDIR : 0));
}

int fsp_check_same(const struct fsp *fs, int dir_fd, const char *name, const struct stat *st)
{
	struct stat now;

	if (!fsp_name_valid(name))
		return -EINVAL;
	if (fstatat(dir_fd, name, &now, AT_SYMLINK_NOFOLLOW) < 0) {
		if (fsp_denied(-errno) && fs->broker >= 0)
			return fsp_ask(fs,
				       &(struct fsb_req){.op = FSB_CHECK_SAME,
							 .dev = (uint64_t) st->st_dev,
							 .ino = (uint64_t) st->st_ino},
				       (int[]){dir_fd, -1, -1}, name, NULL, NULL, NULL, 0, NULL, 0);
		return errno == ENOENT ? -ESTALE : -errno;
	}
	if (now.st_dev != st->st_dev || now.st_ino != st->st_ino)
		return -ESTALE;
	return 0;
}

int fsp_readlink(int fd, char *buf, size_t size)
{
	ssize_t n;

	if (size < 2)
		return -ENOBUFS;
	n = readlinkat(fd, "", buf, size);
	if (n < 0)
		return -errno;
	if ((size_t) n >= size)
		return -ENAMETOOLONG;
	buf[n] = 0;
	return (int) n;
}

int fsp_statfs(int fd, struct statfs *ret)
{
	return RET_NERRNO(fstatfs(fd, ret));
}

static int fsp_truncate(const struct fsp *fs, int path_fd, int open_fd, uint64_t size)
{
	_cleanup_close_ int fd = -1;
	int r;

	if (size > INT64_MAX)
		return -EFBIG;
	if (open_fd >= 0 && (fcntl(open_fd, F_GETFL) & O_ACCMODE) != O_RDONLY)
		return RET_NERRNO(ftruncate(open_fd, (off_t) size));
	r = fsp_reopen(fs, path_fd, -1, "", O_WRONLY, &fd);
	if (r < 0)
		return r == -EISDIR ? -EISDIR : r;
	return RET_NERRNO(ftruncate(fd, (off_t) size));
}

static int fsp_set_times(const struct fsp *fs, int path_fd, int dir_fd, const char *name, bool link,
			 const struct fsp_setattr *a)
{
	struct timespec ts[2] = {
		a->set_atime ? a->atime : (struct timespec){.tv_nsec = UTIME_OMIT},
		a->set_mtime ? a->mtime : (struct timespec){.tv_nsec = UTIME_OMIT},
	};
	char fdname[16];

	/* A ctime-only change still has to touch ctime: both times omitted does that. */
	if (link) {
		if (dir_fd < 0)
			return -EOPNOTSUPP;
		return RET_NERRNO(utimensat(dir_fd, name, ts, AT_SYMLINK_NOFOLLOW));
	}
	if (fs->proc_fd < 0)
		return -EOPNOTSUPP;
	fsp_fd_name(path_fd, fdname);
	return RET_NERRNO(utimensat(fs->proc_fd, fdname, ts, 0));
}

int fsp_setattr(const struct fsp *fs, int path_fd, int open_fd, int dir_fd, const char *name,
		const struct fsp_setattr *a)
{
	struct stat st;
	char fdname[16];
	int r;

	if (fs->broker >= 0)
		return fsp_ask(fs, &(struct fsb_req){.op = FSB_SETATTR, .attr = *a},
			       (int[]){path_fd, dir_fd, open_fd}, name ? name : "", NULL, NULL,
			       NULL, 0, NULL, 0);
	r = fsp_stat(path_fd, &st);
	if (r < 0)
		return r;
	if (a->set_mode) {
		if (S_ISLNK(st.st_mode))
			return -EOPNOTSUPP;
		if (fs->proc_fd < 0)
			return -EOPNOTSUPP;
		fsp_fd_name(path_fd, fdname);
		r = RET_NERRNO(fchmodat(fs->proc_fd, fdname, a->mode & 07777, 0));
		if (r < 0)
			return r;
	}
	if (a->set_uid || a->set_gid) {
		r = RET_NERRNO(fchownat(path_fd, "", a->set_uid ? a->uid : (uid_t) -1,
					a->set_gid ? a->gid : (gid_t) -1,
					AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW));
		if (r < 0)
			return r;
	}
	if (a->set_size) {
		if (!S_ISREG(st.st_mode))
			return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
		r = fsp_truncate(fs, path_fd, open_fd, a->size);
		if (r < 0)
			return r;
	}
	if (a->set_atime || a->set_mtime || a->set_ctime) {
		r = fsp_set_times(fs, path_fd, dir_fd, name, S_ISLNK(st.st_mode), a);
		if (r < 0)
			return r;
	}
	return 0;
}

struct fsp_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	uint16_t d_reclen;
	uint8_t d_type;
	char d_name[];
};

int fsp_readdir(int open_fd, uint64_t off, fsp_dirent_fn cb, void *userdata)
{
	_cleanup_free_ uint8_t *buf = NULL;
	const size_t bufsz = 32 * 1024;

	if (off > INT64_MAX)
		return -EINVAL;
	if (lseek(open_fd, (off_t) off, SEEK_SET) < 0)
		return -errno;
	buf = malloc(bufsz);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		long n = syscall(SYS_getdents64, open_fd, buf, bufsz);

		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		for (long pos = 0; pos < n;) {
			struct fsp_dirent64 d;
			const char *name =
				(const char *) buf + pos + offsetof(struct fsp_dirent64, d_name);

			memcpy(&d, buf + pos, sizeof(d));
			if (d.d_reclen == 0 || pos + d.d_reclen > n)
				return -EIO;
			if (!cb(userdata, d.d_ino, (uint64_t) d.d_off, d.d_type, name))
				return 0;
			pos += d.d_reclen;
		}
	}
}

static void fsp_proc_path(int fd, char buf[static 32])
{
	(void) snprintf(buf, 32, "/proc/self/fd/%d", fd);
}

static int fsp_xattr_result(ssize_t n)
{
	if (n < 0)
		return -errno;
	if (n > INT32_MAX)
		return -E2BIG;
	return (int) n;
}

/* A broker request on a node's xattrs: the node's slots and name as fsp_ask() wants them. */
static int fsp_ask_xattr(const struct fsp *fs, struct fsb_req q, int path_fd, int dir_fd,
			 const char *node_name, const char *name, const void *value, void *buf,
			 size_t size)
{
	struct stat st;

	if (fsp_stat(path_fd, &st) < 0 || S_ISDIR(st.st_mode))
		dir_fd = -1;
	return fsp_ask(fs, &q, (int[]){path_fd, dir_fd, -1}, name, dir_fd < 0 ? NULL : node_name,
		       value, NULL, 0, buf, size);
}

int fsp_xattr_get(const struct fsp *fs, int path_fd, int dir_fd, const char *node_name,
		  const char *name, void *buf, size_t size)
{
	char path[32];
	int r;

	fsp_proc_path(path_fd, path);
	r = fsp_xattr_result(getxattr(path, name, buf, size));
	if (fsp_denied(r) && fs->broker >= 0 && size <= FSB_VALUE_MAX)
		return fsp_ask_xattr(
			fs, (struct fsb_req){.op = FSB_XATTR_GET, .flags = (uint32_t) size},
			path_fd, dir_fd, node_name, name, NULL, buf, size);
	return r;
}

int fsp_xattr_list(const struct fsp *fs, int path_fd, int dir_fd, const char *node_name, char *buf,
		   size_t size)
{
	char path[32];
	int r;

	fsp_proc_path(path_fd, path);
	r = fsp_xattr_result(listxattr(path, buf, size));
	if (fsp_denied(r) && fs->broker >= 0 && size <= FSB_VALUE_MAX)
		return fsp_ask_xattr(
			fs, (struct fsb_req){.op = FSB_XATTR_LIST, .flags = (uint32_t) size},
			path_fd, dir_fd, node_name, NULL, NULL, buf, size);
	return r;
}

int fsp_xattr_set(const struct fsp *fs, int path_fd, int dir_fd, const char *node_name,
		  const char *name, const void *value, size_t size, int flags)
{
	char path[32];

	if (fs->broker >= 0) {
		if (size > FSB_VALUE_MAX)
			return -E2BIG;
		return fsp_ask_xattr(fs,
				     (struct fsb_req){.op = FSB_XATTR_SET,
						      .flags = (uint32_t) flags,
						      .value_len = (uint32_t) size},
				     path_fd, dir_fd, node_name, name, value, NULL, 0);
	}
	fsp_proc_path(path_fd, path);
	return RET_NERRNO(setxattr(path, name, value, size, flags));
}

int fsp_xattr_remove(const struct fsp *fs, int path_fd, int dir_fd, const char *node_name,
		     const char *name)
{
	char path[32];

	if (fs->broker >= 0)
		return fsp_ask_xattr(fs, (struct fsb_req){.op = FSB_XATTR_REMOVE}, path_fd, dir_fd,
				     node_name, name, NULL, NULL, 0);
	fsp_proc_path(path_fd, path);
	return RET_NERRNO(removexattr(path, name));
}
