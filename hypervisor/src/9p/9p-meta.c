/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>

#include "9p/9p-internal.h"
#include "cc/cleanup.h"

#define P9_GETATTR_BASIC 0x7ffull

enum {
	P9_SETATTR_MODE = 0x1,
	P9_SETATTR_UID = 0x2,
	P9_SETATTR_GID = 0x4,
	P9_SETATTR_SIZE = 0x8,
	P9_SETATTR_ATIME = 0x10,
	P9_SETATTR_MTIME = 0x20,
	P9_SETATTR_CTIME = 0x40,
	P9_SETATTR_ATIME_SET = 0x80,
	P9_SETATTR_MTIME_SET = 0x100,
};

int p9_op_getattr(struct p9_req *req)
{
	struct p9_out *out = &req->out;
	struct p9_fid *fid;
	struct p9_qid qid;
	uint64_t mask;
	struct stat st;
	int r;

	if ((r = p9_get_fid(req, false, &fid)) < 0 || (r = p9_get_u64(&req->in, &mask)) < 0)
		return r;
	r = fsp_stat(fid->node->fd, &st);
	if (r < 0)
		return r;
	p9_qid_from_stat(req->srv, &st, &qid);
	p9_put_u64(out, P9_GETATTR_BASIC);
	p9_put_qid(out, &qid);
	p9_put_u32(out, st.st_mode);
	p9_put_u32(out, st.st_uid);
	p9_put_u32(out, st.st_gid);
	p9_put_u64(out, st.st_nlink);
	p9_put_u64(out, st.st_rdev);
	p9_put_u64(out, (uint64_t) st.st_size);
	p9_put_u64(out, (uint64_t) st.st_blksize);
	p9_put_u64(out, (uint64_t) st.st_blocks);
	p9_put_u64(out, (uint64_t) st.st_atim.tv_sec);
	p9_put_u64(out, (uint64_t) st.st_atim.tv_nsec);
	p9_put_u64(out, (uint64_t) st.st_mtim.tv_sec);
	p9_put_u64(out, (uint64_t) st.st_mtim.tv_nsec);
	p9_put_u64(out, (uint64_t) st.st_ctim.tv_sec);
	p9_put_u64(out, (uint64_t) st.st_ctim.tv_nsec);
	for (int i = 0; i < 4; i++) /* btime, gen, data_version: not provided */
		p9_put_u64(out, 0);
	return 0;
}

static int p9_get_time(struct p9_in *in, bool set, bool given, struct timespec *ret)
{
	uint64_t sec, nsec;
	int r;

	if ((r = p9_get_u64(in, &sec)) < 0 || (r = p9_get_u64(in, &nsec)) < 0)
		return r;
	if (!set)
		return 0;
	if (!given) {
		*ret = (struct timespec){.tv_nsec = UTIME_NOW};
		return 0;
	}
	if (nsec >= 1000000000ull || sec > INT64_MAX)
		return -EINVAL;
	*ret = (struct timespec){.tv_sec = (time_t) sec, .tv_nsec = (long) nsec};
	return 0;
}

int p9_op_setattr(struct p9_req *req)
{
	struct fsp_setattr a = {0};
	uint32_t valid, mode, uid, gid;
	struct p9_fid *fid;
	struct p9_node *n;
	uint64_t size;
	int r;

	if ((r = p9_get_fid(req, false, &fid)) < 0 || (r = p9_get_u32(&req->in, &valid)) < 0 ||
	    (r = p9_get_u32(&req->in, &mode)) < 0 || (r = p9_get_u32(&req->in, &uid)) < 0 ||
	    (r = p9_get_u32(&req->in, &gid)) < 0 || (r = p9_get_u64(&req->in, &size)) < 0)
		return r;
	a.set_mode = valid & P9_SETATTR_MODE;
	a.set_uid = valid & P9_SETATTR_UID;
	a.set_gid = valid & P9_SETATTR_GID;
	a.set_size = valid & P9_SETATTR_SIZE;
	a.set_atime = valid & P9_SETATTR_ATIME;
	a.set_mtime = valid & P9_SETATTR_MTIME;
	a.set_ctime = valid & P9_SETATTR_CTIME;
	a.mode = mode;
	a.uid = uid;
	a.gid = gid;
	a.size = size;
	if ((r = p9_get_time(&req->in, a.set_atime, valid & P9_SETATTR_ATIME_SET, &a.atime)) < 0 ||
	    (r = p9_get_time(&req->in, a.set_mtime, valid & P9_SETATTR_MTIME_SET, &a.mtime)) < 0)
		return r;
	if ((a.set_uid && uid == P9_NOFID) || (a.set_gid && gid == P9_NOFID))
		return -EINVAL;
	n = fid->node;
	r = p9_hostvol_setattr(req->srv, n, &a);
	if (r < 0)
		return r;
	if (n->parent && S_ISLNK(n->mode)) {
		r = fsp_check_same(req->srv->fs, n->parent->fd, n->name,
				   &(struct stat){.st_dev = n->dev, .st_ino = n->ino});
		if (r < 0)
			return r;
	}
	return fsp_setattr(req->srv->fs, n->fd, fid->open_fd, n->parent ? n->parent->fd : -1,
			   n->name, &a);
}

int p9_op_statfs(struct p9_req *req)
{
	struct p9_fid *fid;
	struct statfs sf;
	uint64_t fsid;
	int r;

	if ((r = p9_get_fid(req, false, &fid)) < 0 || (r = fsp_statfs(fid->node->fd, &sf)) < 0)
		return r;
	memcpy(&fsid, &sf.f_fsid, MIN(sizeof(fsid), sizeof(sf.f_fsid)));
	p9_put_u32(&req->out, (uint32_t) sf.f_type);
	p9_put_u32(&req->out, (uint32_t) sf.f_bsize);
	p9_put_u64(&req->out, sf.f_blocks);
	p9_put_u64(&req->out, sf.f_bfree);
	p9_put_u64(&req->out, sf.f_bavail);
	p9_put_u64(&req->out, sf.f_files);
	p9_put_u64(&req->out, sf.f_ffree);
	p9_put_u64(&req->out, fsid);
	p9_put_u32(&req->out, (uint32_t) sf.f_namelen);
	return 0;
}

int p9_op_readlink(struct p9_req *req)
{
	_cleanup_free_ char *target = NULL;
	struct p9_fid *fid;
	int r;

	r = p9_get_fid(req, false, &fid);
	if (r < 0)
		return r;
	if (!S_ISLNK(fid->node->mode))
		return -EINVAL;
	target = malloc(P9_PATH_MAX);
	if (!target)
		return -ENOMEM;
	r = fsp_readlink(fid->node->fd, target, P9_PATH_MAX);
	if (r < 0)
		return r;
	p9_put_strn(&req->out, target, (size_t) r);
	return 0;
}

/* The value (or the list, for an empty name) into a new buffer of *ret_cap bytes. */
static int p9_xattr_fetch(struct p9_server *srv, const struct p9_node *node, const char *name,
			  uint8_t **ret, size_t *ret_len, size_t *ret_cap)
{
	_cleanup_free_ uint8_t *buf = NULL;
	int fd = node->fd, dir = node->parent ? node->parent->fd : -1;
	const char *at = node->parent ? node->name : "";
	int n, r;

	n = name[0] ? fsp_xattr_get(srv->fs, fd, dir, at, name, NULL, 0)
		    : fsp_xattr_list(srv->fs, fd, dir, at, NULL, 0);
	if (n < 0)
		return n;
	if ((size_t) n > P9_XATTR_MAX)
		return -E2BIG;
	/* The size comes from a file the guest writes: check it against the budget first. */
	r = p9_budget_xattr_room(srv, (size_t) n, -ENOMEM);
	if (r < 0)
		return r;
	buf = malloc(n ? (size_t) n : 1);
	if (!buf)
		return -ENOMEM;
	*ret_cap = (size_t) n;
	if (n > 0) {
		/* A value that changed size in between gets -ERANGE, like getxattr(2). */
		n = name[0] ? fsp_xattr_get(srv->fs, fd, dir, at, name, buf, (size_t) n)
			    : fsp_xattr_list(srv->fs, fd, dir, at, (char *) buf, (size_t) n);
		if (n < 0)
			return n;
	}
	*ret = TAKE_PTR(buf);
	*ret_len = (size_t) n;
	return 0;
}

int p9_op_xattrwalk(struct p9_req *req)
{
	struct p9_server *srv = req->srv;
	struct p9_fid *fid, *newfid = NULL;
	uint32_t newfid_id;
	char name[256];
	uint8_t *buf;
	size_t len, cap;
	int r;

	if ((r = p9_get_fid(req, false, &fid)) < 0 || (r = p9_get_u32(&req->in, &newfid_id)) < 0 ||
	    (r = p9_get_str(&req->in, name, sizeof(name))) < 0)
		return r;
	if (newfid_id == P9_NOFID || p9_fid_find(srv, newfid_id))
		return -EBADF;
	if (srv->n_fids >= srv->lim.max_fids)
		return -EMFILE;
	if ((r = p9_reply_room(req, 8)) < 0 ||
	    (r = p9_xattr_fetch(srv, fid->node, name, &buf, &len, &cap)) < 0)
		return r;
	r = p9_fid_new(srv, newfid_id, &newfid);
	if (r >= 0)
		r = p9_budget_xattr_take(srv, newfid, cap, -ENOMEM);
	if (r < 0) {
		free(buf);
		if (newfid)
			p9_fid_free(srv, newfid);
		return r;
	}
	newfid->kind = P9_FID_XATTR_READ;
	newfid->node = p9_node_ref(fid->node);
	newfid->uid = fid->uid;
	newfid->xbuf = buf;
	newfid->xlen = newfid->xsize = len;
	p9_put_u64(&req->out, len);
	return 0;
}

int p9_op_xattrcreate(struct p9_req *req)
{
	struct p9_fid *fid;
	uint64_t size;
	uint32_t flags;
	char name[256];
	int r;

	if ((r = p9_get_fid(req, false, &fid)) < 0 ||
	    (r = p9_get_str(&req->in, name, sizeof(name))) < 0 ||
	    (r = p9_get_u64(&req->in, &size)) < 0 || (r = p9_get_u32(&req->in, &flags)) < 0)
		return r;
	if (fid->open_fd >= 0)
		return -EBUSY;
	/*
	 * Only the user namespace: security.*, trusted.* and system.* (capabilities, ACLs,
	 * SELinux labels) set by a guest would be honoured by the host.
	 */
	if (strncmp(name, "user.", 5) != 0 || !name[5])
		return -EOPNOTSUPP;
	if (size > P9_XATTR_MAX)
		return -E2BIG;
	if (flags & ~(uint32_t) (XATTR_CREATE | XATTR_REPLACE))
		return -EINVAL;
	/* The value buffer and the name, charged before they are allocated. */
	r = p9_budget_xattr_take(req->srv, fid, size + strlen(name) + 1, -ENOSPC);
	if (r < 0)
		return r;
	fid->xname = strdup(name);
	fid->xbuf = malloc(size ? size : 1);
	if (!fid->xname || !fid->xbuf) {
		free(fid->xname);
		free(fid->xbuf);
		fid->xname = NULL;
		fid->xbuf = NULL;
		p9_budget_xattr_put(req->srv, fid);
		return -ENOMEM;
	}
	fid->kind = P9_FID_XATTR_WRITE;
	fid->xsize = size;
	fid->xlen = 0;
	fid->xflags = (int) flags;
	return 0;
}

int p9_xattr_commit(struct p9_server *srv, struct p9_fid *fid)
{
	const struct p9_node *n = fid->node;
	int dir = n->parent ? n->parent->fd : -1;
	const char *at = n->parent ? n->name : "";

	if (fid->xlen != fid->xsize)
		return -EINVAL;
	/* Linux's removexattr() arrives as an xattrcreate of size 0. */
	if (fid->xsize == 0)
		return fsp_xattr_remove(srv->fs, n->fd, dir, at, fid->xname);
	return fsp_xattr_set(srv->fs, n->fd, dir, at, fid->xname, fid->xbuf, fid->xsize,
			     fid->xflags);
}
