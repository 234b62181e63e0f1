/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "9p/9p-internal.h"
#include "cc/cleanup.h"

struct p9_node *p9_node_ref(struct p9_node *n)
{
	n->refs++;
	return n;
}

void p9_node_unref(struct p9_server *srv, struct p9_node *n)
{
	/* Iterative, so a deep chain of parents cannot exhaust the stack. */
	while (n && --n->refs == 0) {
		struct p9_node *parent = n->parent;

		safe_close(n->fd);
		free(n->name);
		free(n);
		srv->n_nodes--;
		n = parent;
	}
}

int p9_node_new(struct p9_server *srv, int fd, struct p9_node *parent, const char *name,
		struct p9_node **ret)
{
	_cleanup_close_ int owned_fd = fd;
	struct stat st;
	struct p9_node *n;
	int r;

	r = p9_budget_fds(srv, 1);
	if (r < 0)
		return r;
	r = fsp_stat(fd, &st);
	if (r < 0)
		return r;
	n = calloc(1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	n->name = name ? strdup(name) : NULL;
	if (name && !n->name) {
		free(n);
		return -ENOMEM;
	}
	n->refs = 1;
	n->fd = TAKE_FD(owned_fd);
	n->parent = parent ? p9_node_ref(parent) : NULL;
	n->mode = st.st_mode;
	n->dev = st.st_dev;
	n->ino = st.st_ino;
	n->hostvol = p9_hostvol_of(srv, parent, &st);
	srv->n_nodes++;
	*ret = n;
	return 0;
}

int p9_node_lookup(struct p9_server *srv, struct p9_node *parent, const char *name,
		   struct p9_node **ret)
{
	int fd, r;

	if (!S_ISDIR(parent->mode))
		return -ENOTDIR;
	r = p9_budget_fds(srv, 1);
	if (r < 0)
		return r;
	r = fsp_lookup(srv->fs, parent->fd, name, &fd);
	if (r < 0)
		return r;
	return p9_node_new(srv, fd, parent, name, ret);
}

void p9_qid_from_stat(struct p9_server *srv, const struct stat *st, struct p9_qid *ret)
{
	unsigned idx;

	/*
	 * The guest uses qid.path as its inode number, so files on different host filesystems
	 * (volumes bind-mounted into the export) must not collide: the top byte holds a small
	 * index of the host device. The export's own device is index 0, so its inode numbers
	 * pass through unchanged.
	 */
	for (idx = 0; idx < srv->n_devs; idx++)
		if (srv->devs[idx] == st->st_dev)
			break;
	if (idx == srv->n_devs) {
		if (srv->n_devs < P9_MAX_DEVS)
			srv->devs[srv->n_devs++] = st->st_dev;
		else
			idx = P9_MAX_DEVS - 1;
	}
	ret->path = (uint64_t) st->st_ino ^ ((uint64_t) idx << 56);
	ret->version = 0;
	if (S_ISDIR(st->st_mode))
		ret->type = P9_QTDIR;
	else if (S_ISLNK(st->st_mode))
		ret->type = P9_QTSYMLINK;
	else
		ret->type = P9_QTFILE;
}

int p9_node_qid(struct p9_server *srv, struct p9_node *n, struct p9_qid *ret)
{
	struct stat st;
	int r;

	r = fsp_stat(n->fd, &st);
	if (r < 0)
		return r;
	p9_qid_from_stat(srv, &st, ret);
	return 0;
}

struct p9_fid *p9_fid_find(struct p9_server *srv, uint32_t id)
{
	for (struct p9_fid *f = srv->fids[id % P9_FID_BUCKETS]; f; f = f->next)
		if (f->id == id)
			return f;
	return NULL;
}

int p9_fid_new(struct p9_server *srv, uint32_t id, struct p9_fid **ret)
{
	struct p9_fid *f;

	if (id == P9_NOFID || p9_fid_find(srv, id))
		return -EBADF;
	if (srv->n_fids >= srv->lim.max_fids)
		return -EMFILE;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->id = id;
	f->open_fd = -1;
	f->next = srv->fids[id % P9_FID_BUCKETS];
	srv->fids[id % P9_FID_BUCKETS] = f;
	srv->n_fids++;
	*ret = f;
	return 0;
}

void p9_fid_free(struct p9_server *srv, struct p9_fid *fid)
{
	struct p9_fid **pp = &srv->fids[fid->id % P9_FID_BUCKETS];

	while (*pp != fid)
		pp = &(*pp)->next;
	*pp = fid->next;
	if (fid->open_fd >= 0)
		srv->n_open--;
	safe_close(fid->open_fd);
	p9_node_unref(srv, fid->node);
	p9_budget_xattr_put(srv, fid);
	free(fid->xbuf);
	free(fid->xname);
	free(fid);
	srv->n_fids--;
}

void p9_fid_free_all(struct p9_server *srv)
{
	for (unsigned b = 0; b < P9_FID_BUCKETS; b++)
		while (srv->fids[b])
			p9_fid_free(srv, srv->fids[b]);
}

int p9_get_fid(struct p9_req *req, bool any_kind, struct p9_fid **ret)
{
	struct p9_fid *f;
	uint32_t id;
	int r;

	r = p9_get_u32(&req->in, &id);
	if (r < 0)
		return r;
	f = p9_fid_find(req->srv, id);
	if (!f)
		return -EBADF;
	if (!any_kind && f->kind != P9_FID_FILE)
		return -EBADF;
	*ret = f;
	return 0;
}

int p9_get_name(struct p9_req *req, char name[static 256])
{
	int r;

	r = p9_get_str(&req->in, name, 256);
	if (r < 0)
		return r;
	return fsp_name_valid(name) ? 0 : -EINVAL;
}
