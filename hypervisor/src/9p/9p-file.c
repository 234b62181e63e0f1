/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "9p/9p-internal.h"
#include "cc/cleanup.h"

/* Linux's 9P2000.L open flags (include/net/9p/9p.h), independent of the host's O_ values. */
enum {
	P9_DOTL_ACCMODE = 03,
	P9_DOTL_EXCL = 0200,
	P9_DOTL_TRUNC = 01000,
	P9_DOTL_APPEND = 02000,
	P9_DOTL_DSYNC = 010000,
	P9_DOTL_DIRECTORY = 0200000,
	P9_DOTL_SYNC = 04000000,
};

enum {
	P9_LOCK_RDLCK = 0,
	P9_LOCK_WRLCK = 1,
	P9_LOCK_UNLCK = 2
};
enum {
	P9_LOCK_SUCCESS = 0,
	P9_LOCK_BLOCKED = 1
};

/*
 * The host flags for a guest open. Creation, O_NOFOLLOW, O_NONBLOCK, O_DIRECT (our buffers are
 * not aligned), O_NOATIME and O_NOCTTY are the server's business, not the guest's.
 */
static int p9_open_flags(struct p9_req *req, uint32_t dotl, int *ret)
{
	static const struct {
		uint32_t dotl;
		int host;
	} map[] = {
		{P9_DOTL_TRUNC, O_TRUNC}, {P9_DOTL_APPEND, O_APPEND},
		{P9_DOTL_DSYNC, O_DSYNC}, {P9_DOTL_DIRECTORY, O_DIRECTORY},
		{P9_DOTL_SYNC, O_SYNC},
	};
	int flags;

	switch (dotl & P9_DOTL_ACCMODE) {
	case 0:
		flags = O_RDONLY;
		break;
	case 1:
		flags = O_WRONLY;
		break;
	case 2:
		flags = O_RDWR;
		break;
	default:
		return -EINVAL;
	}
	for (size_t i = 0; i < ARRAY_SIZE(map); i++)
		if (dotl & map[i].dotl)
			flags |= map[i].host;
	if (req->srv->read_only && fsp_opens_for_write(flags))
		return -EROFS;
	*ret = flags;
	return 0;
}

int p9_op_lopen(struct p9_req *req)
{
	struct p9_fid *fid;
	struct p9_qid qid;
	uint32_t dotl;
	int flags, fd, r;

	if ((r = p9_get_fid(req, false, &fid)) < 0 || (r = p9_get_u32(&req->in, &dotl)) < 0)
		return r;
	if (fid->open_fd >= 0)
		return -EBUSY;
	r = p9_open_flags(req, dotl, &flags);
	if (r < 0)
		return r;
	if ((r = p9_reply_room(req, P9_QID_SIZE + 4)) < 0 || (r = p9_budget_fds(req->srv, 1)) < 0 ||
	    (r = p9_node_qid(req->srv, fid->node, &qid)) < 0)
		return r;
	r = fsp_reopen(req->srv->fs, fid->node->fd, fid->node->parent ? fid->node->parent->fd : -1,
		       fid->node->parent ? fid->node->name : "", flags, &fd);
	if (r < 0)
		return r;
	if (fsp_opens_for_write(flags)) {
		r = p9_hostvol_open_write(req->srv, fid->node, fd);
		if (r < 0) {
			safe_close(fd);
			return r;
		}
	}
	fid->open_fd = fd;
	req->srv->n_open++;
	fid->open_flags = flags;
	p9_put_qid(&req->out, &qid);
	p9_put_u32(&req->out, 0); /* iounit: msize bounds every I/O */
	return 0;
}

static int p9_lcreate_check_new(struct p9_server *srv, struct p9_node *dir, const char *name,
				int path_fd)
{
	struct stat st;
	int r;

	if (dir->hostvol < 0)
		return 0;
	r = fsp_stat(path_fd, &st);
	if (r < 0)
		return r;
	return p9_hostvol_check_new(srv, dir, name, &st);
}

int p9_op_lcreate(struct p9_req *req)
{
	struct p9_server *srv = req->srv;
	uint32_t dotl, mode, uid, gid;
	struct p9_node *node = NULL;
	struct p9_fid *fid;
	struct p9_qid qid;
	char name[256];
	int flags, fd, path_fd, r;

	if ((r = p9_get_fid(req, false, &fid)) < 0 || (r = p9_get_name(req, name)) < 0 ||
	    (r = p9_get_u32(&req->in, &dotl)) < 0 || (r = p9_get_u32(&req->in, &mode)) < 0 ||
	    (r = p9_get_u32(&req->in, &gid)) < 0)
		return r;
	if (fid->open_fd >= 0)
		return -EBUSY;
	if (!S_ISDIR(fid->node->mode))
		return -ENOTDIR;
	if ((r = p9_open_flags(req, dotl, &flags)) < 0 || (r = p9_reply_room(req, 17)) < 0)
		return r;
	/* The new node's O_PATH descriptor and the open file. */
	r = p9_budget_fds(srv, 2);
	if (r < 0)
		return r;
	if (dotl & P9_DOTL_EXCL)
		flags |= O_EXCL;
	uid = fid->uid;
	p9_hostvol_owner(srv, fid->node->hostvol, &uid, &gid);
	mode = p9_hostvol_mode(srv, fid->node->hostvol, S_IFREG, mode & 07777);
	r = fsp_create(srv->fs, fid->node->fd, name, flags & ~O_DIRECTORY, mode, uid, gid, &fd,
		       &path_fd);
	if (r < 0)
		return r;
	/* Made: check what it got; opened (it existed): a write clears setuid. */
	r = r > 0 ? p9_lcreate_check_new(srv, fid->node, name, path_fd)
		  : p9_hostvol_open_write(srv, fid->node, fd);
	if (r < 0) {
		safe_close(fd);
		safe_close(path_fd);
		return r;
	}
	r = p9_node_new(srv, path_fd, fid->node, name, &node);
	if (r >= 0)
		r = p9_node_qid(srv, node, &qid);
	if (r < 0) {
		safe_close(fd);
		if (node)
			p9_node_unref(srv, node);
		return r;
	}
	p9_node_unref(srv, fid->node);
	fid->node = node;
	fid->open_fd = fd;
	srv->n_open++;
	fid->open_flags = flags;
	p9_put_qid(&req->out, &qid);
	p9_put_u32(&req->out, 0);
	return 0;
}

static int p9_get_io(struct p9_req *req, struct p9_fid **ret_fid, uint64_t *ret_off,
		     uint32_t *ret_count)
{
	int r;

	if ((r = p9_get_fid(req, true, ret_fid)) < 0 || (r = p9_get_u64(&req->in, ret_off)) < 0 ||
	    (r = p9_get_u32(&req->in, ret_count)) < 0)
		return r;
	return *ret_off > INT64_MAX ? -EINVAL : 0;
}

int p9_op_read(struct p9_req *req)
{
	struct p9_fid *fid;
	uint64_t off;
	uint32_t count;
	uint8_t *slot, *data;
	ssize_t n;
	int r;

	r = p9_get_io(req, &fid, &off, &count);
	if (r < 0)
		return r;
	if (fid->kind == P9_FID_XATTR_WRITE)
		return -EBADF;
	slot = p9_put_reserve(&req->out, 4);
	if (!slot)
		return -ENOBUFS;
	count = (uint32_t) MIN((size_t) count, p9_out_left(&req->out));
	data = req->out.buf + req->out.off;
	if (fid->kind == P9_FID_XATTR_READ) {
		n = off < fid->xlen ? (ssize_t) MIN((uint64_t) count, fid->xlen - off) : 0;
		if (n > 0)
			memcpy(data, fid->xbuf + off, (size_t) n);
	} else {
		if (fid->open_fd < 0 || (fid->open_flags & O_ACCMODE) == O_WRONLY)
			return -EBADF;
		n = pread(fid->open_fd, data, count, (off_t) off);
		if (n < 0)
			return -errno;
	}
	req->out.off += (size_t) n;
	p9_store_u32(slot, (uint32_t) n);
	return 0;
}

int p9_op_write(struct p9_req *req)
{
	const uint8_t *data;
	struct p9_fid *fid;
	uint64_t off;
	uint32_t count;
	ssize_t n;
	int r;

	if ((r = p9_get_io(req, &fid, &off, &count)) < 0 ||
	    (r = p9_get_data(&req->in, count, &data)) < 0)
		return r;
	if (fid->kind == P9_FID_XATTR_WRITE) {
		if (off > fid->xsize || count > fid->xsize - off)
			return -ENOSPC;
		memcpy(fid->xbuf + off, data, count);
		fid->xlen = MAX(fid->xlen, (size_t) (off + count));
		n = count;
	} else {
		if (fid->kind != P9_FID_FILE || fid->open_fd < 0 ||
		    (fid->open_flags & O_ACCMODE) == O_RDONLY)
			return -EBADF;
		n = pwrite(fid->open_fd, data, count, (off_t) off);
		if (n < 0)
			return -errno;
	}
	p9_put_u32(&req->out, (uint32_t) n);
	return 0;
}

struct p9_readdir_ctx {
	struct p9_req *req;
	uint64_t dev_bits;
	uint32_t left;
};

static bool p9_readdir_entry(void *userdata, uint64_t ino, uint64_t next_off, uint8_t type,
			     const char *name)
{
	struct p9_readdir_ctx *ctx = userdata;
	size_t len = strlen(name), need = P9_QID_SIZE + 8 + 1 + 2 + len;
	struct p9_qid qid = {.path = ino ^ ctx->dev_bits};

	if (need > ctx->left || len > UINT16_MAX)
		return false;
	qid.type = type == DT_DIR ? P9_QTDIR : type == DT_LNK ? P9_QTSYMLINK : P9_QTFILE;
	p9_put_qid(&ctx->req->out, &qid);
	p9_put_u64(&ctx->req->out, next_off);
	p9_put_u8(&ctx->req->out, type);
	p9_put_strn(&ctx->req->out, name, len);
	ctx->left -= (uint32_t) need;
	return true;
}

int p9_op_readdir(struct p9_req *req)
{
	struct p9_readdir_ctx ctx = {.req = req};
	struct p9_fid *fid;
	struct p9_qid dir_qid;
	uint64_t off;
	uint32_t count;
	uint8_t *slot;
	size_t start;
	int r;

	if ((r = p9_get_io(req, &fid, &off, &count)) < 0)
		return r;
	if (fid->kind != P9_FID_FILE || fid->open_fd < 0)
		return -EBADF;
	if (!S_ISDIR(fid->node->mode))
		return -ENOTDIR;
	if ((r = p9_node_qid(req->srv, fid->node, &dir_qid)) < 0)
		return r;
	/* Entries share their directory's device (mount points aside): same qid.path mixing. */
	ctx.dev_bits = (dir_qid.path ^ (uint64_t) fid->node->ino) & (0xffull << 56);
	slot = p9_put_reserve(&req->out, 4);
	if (!slot)
		return -ENOBUFS;
	ctx.left = (uint32_t) MIN((size_t) count, p9_out_left(&req->out));
	start = req->out.off;
	r = fsp_readdir(fid->open_fd, off, p9_readdir_entry, &ctx);
	if (r < 0)
		return r;
	p9_store_u32(slot, (uint32_t) (req->out.off - start));
	return 0;
}

int p9_op_fsync(struct p9_req *req)
{
	struct p9_fid *fid;
	uint32_t datasync = 0;
	int r;

	r = p9_get_fid(req, false, &fid);
	if (r < 0)
		return r;
	/* datasync[4] was added later; older clients omit it. */
	if (p9_in_left(&req->in) >= 4 && (r = p9_get_u32(&req->in, &datasync)) < 0)
		return r;
	if (fid->open_fd < 0)
		return -EBADF;
	return RET_NERRNO(datasync ? fdatasync(fid->open_fd) : fsync(fid->open_fd));
}

struct p9_lockreq {
	struct p9_fid *fid;
	uint8_t type;
	uint32_t flags;
	uint64_t start, length;
	uint32_t proc_id;
	char client_id[256];
};

static int p9_get_lockreq(struct p9_req *req, bool with_flags, struct p9_lockreq *lk,
			  struct flock *fl)
{
	int r;

	if ((r = p9_get_fid(req, false, &lk->fid)) < 0 ||
	    (r = p9_get_u8(&req->in, &lk->type)) < 0 ||
	    (with_flags && (r = p9_get_u32(&req->in, &lk->flags)) < 0) ||
	    (r = p9_get_u64(&req->in, &lk->start)) < 0 ||
	    (r = p9_get_u64(&req->in, &lk->length)) < 0 ||
	    (r = p9_get_u32(&req->in, &lk->proc_id)) < 0 ||
	    (r = p9_get_str(&req->in, lk->client_id, sizeof(lk->client_id))) < 0)
		return r;
	if (lk->fid->open_fd < 0)
		return -EBADF;
	if (lk->start > INT64_MAX || lk->length > INT64_MAX)
		return -EINVAL;
	*fl = (struct flock){
		.l_whence = SEEK_SET,
		.l_start = (off_t) lk->start,
		.l_len = (off_t) lk->length,
	};
	switch (lk->type) {
	case P9_LOCK_RDLCK:
		fl->l_type = F_RDLCK;
		break;
	case P9_LOCK_WRLCK:
		fl->l_type = F_WRLCK;
		break;
	case P9_LOCK_UNLCK:
		fl->l_type = F_UNLCK;
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

int p9_op_lock(struct p9_req *req)
{
	struct p9_lockreq lk;
	struct flock fl;
	int r;

	r = p9_get_lockreq(req, true, &lk, &fl);
	if (r < 0)
		return r;
	/*
	 * Open file description locks: one per guest open, like the guest's own semantics. Never
	 * F_OFD_SETLKW: the event loop must not block, so a contended lock is reported as BLOCKED
	 * and the guest retries.
	 */
	if (fcntl(lk.fid->open_fd, F_OFD_SETLK, &fl) < 0) {
		if (errno != EAGAIN && errno != EACCES)
			return -errno;
		p9_put_u8(&req->out, P9_LOCK_BLOCKED);
		return 0;
	}
	p9_put_u8(&req->out, P9_LOCK_SUCCESS);
	return 0;
}

int p9_op_getlock(struct p9_req *req)
{
	struct p9_lockreq lk;
	struct flock fl;
	uint8_t type;
	int r;

	r = p9_get_lockreq(req, false, &lk, &fl);
	if (r < 0)
		return r;
	if (fl.l_type == F_UNLCK)
		return -EINVAL;
	if (fcntl(lk.fid->open_fd, F_OFD_GETLK, &fl) < 0)
		return -errno;
	type = fl.l_type == F_RDLCK   ? P9_LOCK_RDLCK
	       : fl.l_type == F_WRLCK ? P9_LOCK_WRLCK
				      : P9_LOCK_UNLCK;
	p9_put_u8(&req->out, type);
	p9_put_u64(&req->out, (uint64_t) fl.l_start);
	p9_put_u64(&req->out, (uint64_t) fl.l_len);
	p9_put_u32(&req->out, fl.l_pid > 0 ? (uint32_t) fl.l_pid : lk.proc_id);
	p9_put_str(&req->out, lk.client_id);
	return 0;
}
