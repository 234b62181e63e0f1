/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The host-volume policy (docs/9p.md, "Host volumes"). A host volume is a host directory that
 * host users may reach, bound into the export: a setuid-root file the guest left there would
 * be a way to root for any host user. Beneath a volume root the guest therefore never makes
 * or keeps a setuid or setgid regular file (nor a setuid directory), and never gives a node
 * to uid 0 or gid 0 unless the volume's root is owned by that id.
 *
 * Which nodes: a node is in a volume when it is a volume root (its host identity, dev and
 * inode, is one the stage1 gave) or when the node it was walked or created from is in one.
 * The server resolves every name itself, one component at a time from the export root, and
 * ".." comes from its own node tree, so every node beneath a volume root was reached through
 * that root. Hard links and renames between a volume and anything else are refused (EXDEV),
 * as the kernel already does across the bind mount; so nothing the guest does moves a node
 * in or out of a volume behind the server's back.
 */
#include <errno.h>
#include <stdlib.h>

#include "9p/9p-internal.h"
#include "9p/hostvol-policy.h"

int p9_server_add_hostvol(struct p9_server *srv, const struct p9_hostvol *v)
{
	struct p9_hostvol *vols;

	assert_return(srv && v, -EINVAL);
	/* Nodes are classified when made: only the root may exist yet. */
	if (srv->n_fids > 0 || srv->n_nodes > 1)
		return -EBUSY;
	for (unsigned i = 0; i < srv->n_hostvols; i++)
		if (srv->hostvols[i].dev == v->dev && srv->hostvols[i].ino == v->ino)
			return -EEXIST;
	if (srv->n_hostvols >= P9_HOSTVOLS_MAX)
		return -E2BIG;
	vols = reallocarray(srv->hostvols, srv->n_hostvols + 1, sizeof(*vols));
	if (!vols)
		return -ENOMEM;
	srv->hostvols = vols;
	vols[srv->n_hostvols] = *v;
	/* A separate export per volume: its root is the volume. */
	if (srv->root->dev == v->dev && srv->root->ino == v->ino)
		srv->root->hostvol = (int) srv->n_hostvols;
	srv->n_hostvols++;
	return 0;
}

int p9_server_add_hostvol_root(struct p9_server *srv)
{
	struct stat st;
	int r;

	assert_return(srv, -EINVAL);
	r = fsp_stat(srv->root->fd, &st);
	if (r < 0)
		return r;
	return p9_server_add_hostvol(
		srv, &(struct p9_hostvol){st.st_dev, st.st_ino, st.st_uid, st.st_gid});
}

int p9_hostvol_of(const struct p9_server *srv, const struct p9_node *parent, const struct stat *st)
{
	for (unsigned i = 0; i < srv->n_hostvols; i++)
		if (srv->hostvols[i].dev == st->st_dev && srv->hostvols[i].ino == st->st_ino)
			return (int) i;
	return parent ? parent->hostvol : -1;
}

static const struct p9_hostvol *p9_hostvol_get(const struct p9_server *srv, int vol)
{
	return vol < 0 ? NULL : &srv->hostvols[vol];
}

mode_t p9_hostvol_mode(const struct p9_server *srv, int vol, mode_t fmt, mode_t mode)
{
	return hostvol_policy_mode(p9_hostvol_get(srv, vol), fmt, mode);
}

void p9_hostvol_owner(const struct p9_server *srv, int vol, uint32_t *uid, uint32_t *gid)
{
	hostvol_policy_owner(p9_hostvol_get(srv, vol), uid, gid);
}

int p9_hostvol_check_new(const struct p9_server *srv, const struct p9_node *dir, const char *name,
			 const struct stat *st)
{
	int r;

	if (hostvol_policy_allows(p9_hostvol_get(srv, dir->hostvol), st))
		return 0;
	/* Only if the name still designates what was made (the host may have moved it). */
	r = fsp_check_same(srv->fs, dir->fd, name, st);
	if (r >= 0)
		r = fsp_unlink(srv->fs, dir->fd, name, S_ISDIR(st->st_mode));
	return r < 0 ? r : -EPERM;
}

int p9_hostvol_setattr(const struct p9_server *srv, const struct p9_node *n, struct fsp_setattr *a)
{
	struct stat st;
	int r;

	if (n->hostvol < 0)
		return 0;
	r = fsp_stat(n->fd, &st);
	if (r < 0)
		return r;
	return hostvol_policy_setattr(p9_hostvol_get(srv, n->hostvol), &st, a);
}

int p9_hostvol_open_write(const struct p9_server *srv, const struct p9_node *n, int open_fd)
{
	if (n->hostvol < 0)
		return 0;
	return fsp_drop_suid(srv->fs, open_fd, n->parent ? n->parent->fd : -1,
			     n->parent ? n->name : "");
}
