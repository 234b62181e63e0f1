/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "9p/9p-internal.h"
#include "cc/cleanup.h"
#include "cc/log.h"

static const char P9_VERSION_L[] = "9P2000.L";

int p9_server_new(const char *dir, bool read_only, struct p9_server **ret)
{
	_cleanup_(p9_server_freep) struct p9_server *srv = NULL;
	int fd, r;

	assert_return(dir && ret, -EINVAL);
	srv = calloc(1, sizeof(*srv));
	if (!srv)
		return -ENOMEM;
	srv->read_only = read_only;
	srv->msize = P9_MSIZE_MAX;
	srv->lim = (struct p9_limits){
		.max_fids = P9_FIDS_DEFAULT,
		.max_fds = P9_FDS_DEFAULT,
		.max_xattr_bytes = P9_XATTR_BYTES_DEFAULT,
	};
	r = fsp_new(dir, &srv->fs);
	if (r < 0)
		return r;
	fd = fcntl(fsp_root_fd(srv->fs), F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return -errno;
	r = p9_node_new(srv, fd, NULL, NULL, &srv->root);
	if (r < 0)
		return r;
	if (!S_ISDIR(srv->root->mode))
		return -ENOTDIR;
	*ret = TAKE_PTR(srv);
	return 0;
}

struct p9_server *p9_server_free(struct p9_server *srv)
{
	if (!srv)
		return NULL;
	p9_fid_free_all(srv);
	p9_node_unref(srv, srv->root);
	fsp_free(srv->fs);
	free(srv->hostvols);
	free(srv);
	return NULL;
}

int p9_server_root_fd(const struct p9_server *srv)
{
	return fsp_root_fd(srv->fs);
}

void p9_server_set_broker(struct p9_server *srv, int sock)
{
	fsp_set_broker(srv->fs, sock);
}

void p9_server_set_max_fids(struct p9_server *srv, unsigned max_fids)
{
	srv->lim.max_fids = max_fids ? max_fids : 1;
	srv->lim.max_fds = 2 * srv->lim.max_fids;
}

void p9_server_reset(struct p9_server *srv)
{
	p9_fid_free_all(srv);
	srv->versioned = false;
	srv->msize = P9_MSIZE_MAX;
}

uint32_t p9_server_msize(const struct p9_server *srv)
{
	return srv->msize;
}

static int p9_op_version(struct p9_req *req)
{
	struct p9_server *srv = req->srv;
	char version[32];
	uint32_t msize;
	bool known;
	int r;

	r = p9_get_u32(&req->in, &msize);
	if (r < 0)
		return r;
	r = p9_get_str(&req->in, version, sizeof(version));
	if (r < 0 && r != -ENAMETOOLONG)
		return r;
	if (msize < P9_MSIZE_MIN)
		return -EINVAL;
	known = r == 0 && strcmp(version, P9_VERSION_L) == 0;
	/* A Tversion starts a new session: every fid of the old one is gone. */
	p9_fid_free_all(srv);
	srv->versioned = known;
	srv->msize = MIN(msize, P9_MSIZE_MAX);
	p9_put_u32(&req->out, srv->msize);
	p9_put_str(&req->out, known ? P9_VERSION_L : "unknown");
	return 0;
}

static int p9_op_attach(struct p9_req *req)
{
	struct p9_server *srv = req->srv;
	uint32_t fid_id, afid, n_uname;
	char uname[256], aname[256];
	struct p9_fid *fid;
	struct p9_qid qid;
	int r;

	if ((r = p9_get_u32(&req->in, &fid_id)) < 0 || (r = p9_get_u32(&req->in, &afid)) < 0 ||
	    (r = p9_get_str(&req->in, uname, sizeof(uname))) < 0 ||
	    (r = p9_get_str(&req->in, aname, sizeof(aname))) < 0 ||
	    (r = p9_get_u32(&req->in, &n_uname)) < 0)
		return r;
	/* No Tauth support, and aname is not interpreted: every attach gets the export root. */
	if (afid != P9_NOFID)
		return -EOPNOTSUPP;
	r = p9_reply_room(req, P9_QID_SIZE);
	if (r < 0)
		return r;
	r = p9_node_qid(srv, srv->root, &qid);
	if (r < 0)
		return r;
	r = p9_fid_new(srv, fid_id, &fid);
	if (r < 0)
		return r;
	fid->node = p9_node_ref(srv->root);
	fid->uid = n_uname == P9_NOFID ? 0 : n_uname;
	p9_put_qid(&req->out, &qid);
	return 0;
}

static int p9_op_auth(struct p9_req *req)
{
	(void) req;
	return -EOPNOTSUPP;
}

static int p9_op_flush(struct p9_req *req)
{
	uint16_t oldtag;

	/* Requests complete before the next one is read, so there is never anything to cancel. */
	return p9_get_u16(&req->in, &oldtag);
}

static int p9_walk_one(struct p9_server *srv, struct p9_node *cur, const char *name,
		       struct p9_node **ret)
{
	if (strcmp(name, "..") == 0) {
		/* The parent is the node we came through; the root is its own parent. */
		if (!S_ISDIR(cur->mode))
			return -ENOTDIR;
		*ret = p9_node_ref(cur->parent ? cur->parent : cur);
		return 0;
	}
	if (!fsp_name_valid(name))
		return -EINVAL;
	return p9_node_lookup(srv, cur, name, ret);
}

static int p9_op_walk(struct p9_req *req)
{
	struct p9_server *srv = req->srv;
	char names[P9_MAXWELEM][256];
	struct p9_fid *fid, *newfid;
	struct p9_node *cur;
	uint32_t newfid_id;
	uint16_t nwname, i;
	uint8_t *count;
	int r;

	if ((r = p9_get_fid(req, false, &fid)) < 0 || (r = p9_get_u32(&req->in, &newfid_id)) < 0 ||
	    (r = p9_get_u16(&req->in, &nwname)) < 0)
		return r;
	if (nwname > P9_MAXWELEM)
		return -E2BIG;
	for (i = 0; i < nwname; i++) {
		r = p9_get_str(&req->in, names[i], sizeof(names[i]));
		if (r < 0)
			return r;
	}
	if (newfid_id != fid->id && (newfid_id == P9_NOFID || p9_fid_find(srv, newfid_id)))
		return -EBADF;
	if (newfid_id != fid->id && srv->n_fids >= srv->lim.max_fids)
		return -EMFILE;
	r = p9_reply_room(req, 2 + (size_t) P9_QID_SIZE * nwname);
	if (r < 0)
		return r;

	count = p9_put_reserve(&req->out, 2);
	cur = p9_node_ref(fid->node);
	for (i = 0; i < nwname; i++) {
		struct p9_node *next;
		struct p9_qid qid;

		r = p9_walk_one(srv, cur, names[i], &next);
		if (r >= 0) {
			r = p9_node_qid(srv, next, &qid);
			if (r < 0)
				p9_node_unref(srv, next);
		}
		if (r < 0) {
			p9_node_unref(srv, cur);
			if (i == 0)
				return r;
			/* A partial walk succeeds with fewer qids and leaves newfid unused. */
			count[0] = (uint8_t) i;
			count[1] = (uint8_t) (i >> 8);
			return 0;
		}
		p9_node_unref(srv, cur);
		cur = next;
		p9_put_qid(&req->out, &qid);
	}
	count[0] = (uint8_t) nwname;
	count[1] = (uint8_t) (nwname >> 8);
	if (newfid_id == fid->id) {
		if (fid->open_fd >= 0) {
			p9_node_unref(srv, cur);
			return -EBUSY;
		}
		p9_node_unref(srv, fid->node);
		fid->node = cur;
		return 0;
	}
	r = p9_fid_new(srv, newfid_id, &newfid);
	if (r < 0) {
		p9_node_unref(srv, cur);
		return r;
	}
	newfid->node = cur;
	newfid->uid = fid->uid;
	return 0;
}

static int p9_op_clunk(struct p9_req *req)
{
	struct p9_fid *fid;
	int r;

	r = p9_get_fid(req, true, &fid);
	if (r < 0)
		return r;
	r = fid->kind == P9_FID_XATTR_WRITE ? p9_xattr_commit(req->srv, fid) : 0;
	p9_fid_free(req->srv, fid);
	return r;
}

struct p9_op {
	p9_op_fn fn;
	bool mutates; /* refused on a read-only export */
};

static const struct p9_op p9_ops[128] = {
	[P9_TSTATFS] = {p9_op_statfs, false},
	[P9_TLOPEN] = {p9_op_lopen, false}, /* checks its flags itself */
	[P9_TLCREATE] = {p9_op_lcreate, true},
	[P9_TSYMLINK] = {p9_op_symlink, true},
	[P9_TMKNOD] = {p9_op_mknod, true},
	[P9_TRENAME] = {p9_op_rename, true},
	[P9_TREADLINK] = {p9_op_readlink, false},
	[P9_TGETATTR] = {p9_op_getattr, false},
	[P9_TSETATTR] = {p9_op_setattr, true},
	[P9_TXATTRWALK] = {p9_op_xattrwalk, false},
	[P9_TXATTRCREATE] = {p9_op_xattrcreate, true},
	[P9_TREADDIR] = {p9_op_readdir, false},
	[P9_TFSYNC] = {p9_op_fsync, false},
	[P9_TLOCK] = {p9_op_lock, false},
	[P9_TGETLOCK] = {p9_op_getlock, false},
	[P9_TLINK] = {p9_op_link, true},
	[P9_TMKDIR] = {p9_op_mkdir, true},
	[P9_TRENAMEAT] = {p9_op_renameat, true},
	[P9_TUNLINKAT] = {p9_op_unlinkat, true},
	[P9_TAUTH] = {p9_op_auth, false},
	[P9_TATTACH] = {p9_op_attach, false},
	[P9_TFLUSH] = {p9_op_flush, false},
	[P9_TWALK] = {p9_op_walk, false},
	[P9_TREAD] = {p9_op_read, false},
	[P9_TWRITE] = {p9_op_write, true},
	[P9_TCLUNK] = {p9_op_clunk, false},
	[P9_TREMOVE] = {p9_op_remove, false}, /* clunks even when refused */
};

static int p9_dispatch(struct p9_req *req)
{
	const struct p9_op *op;

	if (req->type == P9_TVERSION)
		return p9_op_version(req);
	if (req->type >= ARRAY_SIZE(p9_ops) || !p9_ops[req->type].fn)
		return -EOPNOTSUPP;
	if (!req->srv->versioned)
		return -EPROTO;
	op = &p9_ops[req->type];
	if (op->mutates && req->srv->read_only)
		return -EROFS;
	return op->fn(req);
}

size_t p9_server_handle(struct p9_server *srv, const void *req_buf, size_t req_len, void *resp,
			size_t resp_cap)
{
	struct p9_req req = {.srv = srv};
	size_t cap;
	int r, len;

	if (!srv || !req_buf || !resp)
		return 0;
	cap = MIN(resp_cap, (size_t) srv->msize);
	p9_in_init(&req.in, req_buf, req_len);
	r = p9_get_header(&req.in, &req.type, &req.tag);
	if (r < 0 && req_len < P9_HDR_SIZE)
		return 0; /* no tag to answer to */
	if (r >= 0 && req_len > srv->msize)
		r = -EMSGSIZE;
	if (req.type == P9_TVERSION)
		cap = MIN(resp_cap, (size_t) P9_MSIZE_MAX);
	p9_out_init(&req.out, resp, cap);
	if (r >= 0)
		r = p9_dispatch(&req);
	if (r >= 0) {
		len = p9_out_finish(&req.out, req.type + 1, req.tag);
		if (len >= 0)
			return (size_t) len;
		r = len;
	}
	log_debug("9p: request type %u tag %u failed: %s", req.type, req.tag, strerror(-r));
	p9_out_init(&req.out, resp, resp_cap);
	p9_put_u32(&req.out, (uint32_t) -r);
	len = p9_out_finish(&req.out, P9_RLERROR, req.tag);
	return len < 0 ? 0 : (size_t) len;
}

size_t p9_reply_error(const void *req_buf, size_t req_len, int err, void *resp, size_t resp_cap)
{
	struct p9_in in;
	struct p9_out out;
	uint8_t type;
	uint16_t tag;
	int len;

	if (!req_buf || !resp || err >= 0)
		return 0;
	p9_in_init(&in, req_buf, req_len);
	if (p9_get_header(&in, &type, &tag) < 0 && req_len < P9_HDR_SIZE)
		return 0;
	p9_out_init(&out, resp, resp_cap);
	p9_put_u32(&out, (uint32_t) -err);
	len = p9_out_finish(&out, P9_RLERROR, tag);
	return len < 0 ? 0 : (size_t) len;
}
