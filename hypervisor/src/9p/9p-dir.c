/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "9p/9p-internal.h"
#include "cc/cleanup.h"

#define P9_DOTL_AT_REMOVEDIR 0x200u

/* The directory fid of a request: a file fid on a directory. */
static int p9_get_dir_fid(struct p9_req *req, struct p9_fid **ret)
{
	int r;

	r = p9_get_fid(req, false, ret);
	if (r < 0)
		return r;
	return S_ISDIR((*ret)->node->mode) ? 0 : -ENOTDIR;
}

/* After creating name in dir: put its qid in the reply. */
static int p9_reply_new(struct p9_req *req, struct p9_fid *dir, const char *name)
{
	_cleanup_close_ int fd = -1;
	struct p9_qid qid;
	struct stat st;
	int r;

	if ((r = fsp_lookup(req->srv->fs, dir->node->fd, name, &fd)) < 0 ||
	    (r = fsp_stat(fd, &st)) < 0 ||
	    (r = p9_hostvol_check_new(req->srv, dir->node, name, &st)) < 0)
		return r;
	p9_qid_from_stat(req->srv, &st, &qid);
	p9_put_qid(&req->out, &qid);
	return 0;
}

int p9_op_mkdir(struct p9_req *req)
{
	uint32_t mode, uid, gid;
	struct p9_fid *dir;
	char name[256];
	int r;

	if ((r = p9_get_dir_fid(req, &dir)) < 0 || (r = p9_get_name(req, name)) < 0 ||
	    (r = p9_get_u32(&req->in, &mode)) < 0 || (r = p9_get_u32(&req->in, &gid)) < 0 ||
	    (r = p9_reply_room(req, P9_QID_SIZE)) < 0)
		return r;
	uid = dir->uid;
	p9_hostvol_owner(req->srv, dir->node->hostvol, &uid, &gid);
	mode = p9_hostvol_mode(req->srv, dir->node->hostvol, S_IFDIR, mode & 07777);
	r = fsp_mkdir(req->srv->fs, dir->node->fd, name, mode, uid, gid);
	if (r < 0)
		return r;
	return p9_reply_new(req, dir, name);
}

int p9_op_symlink(struct p9_req *req)
{
	_cleanup_free_ char *target = NULL;
	uint32_t uid, gid;
	struct p9_fid *dir;
	char name[256];
	int r;

	target = malloc(P9_PATH_MAX);
	if (!target)
		return -ENOMEM;
	/* The target is stored, never followed by the server: any string is fine. */
	if ((r = p9_get_dir_fid(req, &dir)) < 0 || (r = p9_get_name(req, name)) < 0 ||
	    (r = p9_get_str(&req->in, target, P9_PATH_MAX)) < 0 ||
	    (r = p9_get_u32(&req->in, &gid)) < 0 || (r = p9_reply_room(req, P9_QID_SIZE)) < 0)
		return r;
	uid = dir->uid;
	p9_hostvol_owner(req->srv, dir->node->hostvol, &uid, &gid);
	r = fsp_symlink(req->srv->fs, dir->node->fd, name, target, uid, gid);
	if (r < 0)
		return r;
	return p9_reply_new(req, dir, name);
}

int p9_op_mknod(struct p9_req *req)
{
	uint32_t mode, major, minor, uid, gid;
	struct p9_fid *dir;
	char name[256];
	int r;

	if ((r = p9_get_dir_fid(req, &dir)) < 0 || (r = p9_get_name(req, name)) < 0 ||
	    (r = p9_get_u32(&req->in, &mode)) < 0 || (r = p9_get_u32(&req->in, &major)) < 0 ||
	    (r = p9_get_u32(&req->in, &minor)) < 0 || (r = p9_get_u32(&req->in, &gid)) < 0 ||
	    (r = p9_reply_room(req, P9_QID_SIZE)) < 0)
		return r;
	uid = dir->uid;
	p9_hostvol_owner(req->srv, dir->node->hostvol, &uid, &gid);
	mode = (mode & S_IFMT) |
	       p9_hostvol_mode(req->srv, dir->node->hostvol, mode & S_IFMT, mode & 07777);
	r = fsp_mknod(req->srv->fs, dir->node->fd, name, mode, uid, gid);
	if (r < 0)
		return r;
	return p9_reply_new(req, dir, name);
}

int p9_op_link(struct p9_req *req)
{
	struct p9_fid *dir, *fid;
	char name[256];
	int r;

	if ((r = p9_get_dir_fid(req, &dir)) < 0 || (r = p9_get_fid(req, false, &fid)) < 0 ||
	    (r = p9_get_name(req, name)) < 0)
		return r;
	if (S_ISDIR(fid->node->mode))
		return -EPERM;
	if ((r = p9_hostvol_same(fid->node, dir->node)) < 0)
		return r;
	if (!fid->node->parent)
		return -EPERM;
	return fsp_link(req->srv->fs, fid->node->fd, fid->node->parent->fd, fid->node->name,
			dir->node->fd, name);
}

/* Check that n is still reachable by the name it was walked by, for name-based operations. */
static int p9_node_check_name(const struct p9_server *srv, struct p9_node *n)
{
	if (!n->parent)
		return -EBUSY; /* the export root */
	return fsp_check_same(srv->fs, n->parent->fd, n->name,
			      &(struct stat){.st_dev = n->dev, .st_ino = n->ino});
}

int p9_op_rename(struct p9_req *req)
{
	struct p9_server *srv = req->srv;
	struct p9_fid *fid, *dir;
	struct p9_node *n;
	char name[256];
	char *new_name;
	int r;

	if ((r = p9_get_fid(req, false, &fid)) < 0 || (r = p9_get_dir_fid(req, &dir)) < 0 ||
	    (r = p9_get_name(req, name)) < 0)
		return r;
	n = fid->node;
	if ((r = p9_node_check_name(req->srv, n)) < 0 ||
	    (r = p9_hostvol_same(n->parent, dir->node)) < 0)
		return r;
	new_name = strdup(name);
	if (!new_name)
		return -ENOMEM;
	r = fsp_rename(req->srv->fs, n->parent->fd, n->name, dir->node->fd, name);
	if (r < 0) {
		free(new_name);
		return r;
	}
	/*
	 * The node now lives under dir: keep its parent and name right for later operations,
	 * unless the host moved things behind our back so that dir was walked through n (the
	 * node tree would get a cycle); n then keeps its stale parent and name-based operations
	 * on it fail with ESTALE.
	 */
	for (struct p9_node *p = dir->node; p; p = p->parent)
		if (p == n) {
			free(new_name);
			return 0;
		}
	p9_node_ref(dir->node);
	p9_node_unref(srv, n->parent);
	n->parent = dir->node;
	free(n->name);
	n->name = new_name;
	return 0;
}

int p9_op_renameat(struct p9_req *req)
{
	char old_name[256], new_name[256];
	struct p9_fid *old_dir, *new_dir;
	int r;

	if ((r = p9_get_dir_fid(req, &old_dir)) < 0 || (r = p9_get_name(req, old_name)) < 0 ||
	    (r = p9_get_dir_fid(req, &new_dir)) < 0 || (r = p9_get_name(req, new_name)) < 0 ||
	    (r = p9_hostvol_same(old_dir->node, new_dir->node)) < 0)
		return r;
	return fsp_rename(req->srv->fs, old_dir->node->fd, old_name, new_dir->node->fd, new_name);
}

int p9_op_unlinkat(struct p9_req *req)
{
	struct p9_fid *dir;
	char name[256];
	uint32_t flags;
	int r;

	if ((r = p9_get_dir_fid(req, &dir)) < 0 || (r = p9_get_name(req, name)) < 0 ||
	    (r = p9_get_u32(&req->in, &flags)) < 0)
		return r;
	if (flags & ~P9_DOTL_AT_REMOVEDIR)
		return -EINVAL;
	return fsp_unlink(req->srv->fs, dir->node->fd, name, flags & P9_DOTL_AT_REMOVEDIR);
}

int p9_op_remove(struct p9_req *req)
{
	struct p9_fid *fid;
	struct p9_node *n;
	int r;

	r = p9_get_fid(req, true, &fid);
	if (r < 0)
		return r;
	/* Tremove clunks the fid whatever the outcome. */
	n = fid->node;
	if (req->srv->read_only)
		r = -EROFS;
	else if (fid->kind != P9_FID_FILE)
		r = -EINVAL;
	else if ((r = p9_node_check_name(req->srv, n)) >= 0)
		r = fsp_unlink(req->srv->fs, n->parent->fd, n->name, S_ISDIR(n->mode));
	p9_fid_free(req->srv, fid);
	return r;
}
