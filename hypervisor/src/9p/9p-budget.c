/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The budget of one 9p server: what a guest can make it hold (fids, host descriptors, xattr
 * buffers). Every check runs before the host allocation it guards, so a request over budget
 * costs nothing but its error reply.
 */
#include <errno.h>

#include "9p/9p-internal.h"
#include "cc/cleanup.h"

void p9_server_set_limits(struct p9_server *srv, const struct p9_limits *lim)
{
	if (lim->max_fids)
		srv->lim.max_fids = lim->max_fids;
	if (lim->max_fds)
		srv->lim.max_fds = lim->max_fds;
	if (lim->max_xattr_bytes)
		srv->lim.max_xattr_bytes = lim->max_xattr_bytes;
}

void p9_server_get_limits(const struct p9_server *srv, struct p9_limits *ret)
{
	*ret = srv->lim;
}

void p9_server_get_usage(const struct p9_server *srv, struct p9_usage *ret)
{
	*ret = (struct p9_usage){
		.fids = srv->n_fids,
		.fds = srv->n_nodes + srv->n_open,
		.nodes = srv->n_nodes,
		.open_files = srv->n_open,
		.xattr_bytes = srv->xattr_bytes,
	};
}

int p9_budget_fds(const struct p9_server *srv, unsigned n)
{
	/* n_nodes includes the export root's node, held for the server's life. */
	return (size_t) srv->n_nodes + srv->n_open + n <= srv->lim.max_fds ? 0 : -ENFILE;
}

int p9_budget_xattr_room(const struct p9_server *srv, size_t bytes, int err)
{
	return bytes <= srv->lim.max_xattr_bytes - MIN(srv->xattr_bytes, srv->lim.max_xattr_bytes)
		       ? 0
		       : err;
}

int p9_budget_xattr_take(struct p9_server *srv, struct p9_fid *fid, size_t bytes, int err)
{
	int r;

	r = p9_budget_xattr_room(srv, bytes, err);
	if (r < 0)
		return r;
	srv->xattr_bytes += bytes;
	fid->xcharge += bytes;
	return 0;
}

void p9_budget_xattr_put(struct p9_server *srv, struct p9_fid *fid)
{
	srv->xattr_bytes -= fid->xcharge;
	fid->xcharge = 0;
}
