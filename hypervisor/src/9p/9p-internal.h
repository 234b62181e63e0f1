/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Shared between the 9p operation files (9p*.c); not for device code. */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "9p/9p-pdu.h"
#include "9p/9p.h"
#include "9p/fs-passthrough.h"

#define P9_FID_BUCKETS 256u
#define P9_MAX_DEVS    64u
#define P9_XATTR_MAX   (64u * 1024) /* XATTR_SIZE_MAX */
#define P9_PATH_MAX    4096u

/*
 * A host inode as reached by a walk: an O_PATH descriptor, plus the parent node and the name
 * it was reached by (for Trename/Tremove, symlink timestamps and "..": never a host path).
 * Nodes are reference-counted by fids and by their children.
 */
struct p9_node {
	unsigned refs;
	int fd;
	struct p9_node *parent; /* NULL for the export root */
	char *name;
	mode_t mode;
	dev_t dev;
	ino_t ino;
	int hostvol; /* index in srv->hostvols, -1 for passthrough (9p-hostvol.c) */
};

enum p9_fid_kind {
	P9_FID_FILE,	    /* a node, maybe open */
	P9_FID_XATTR_READ,  /* Txattrwalk result: value in xbuf */
	P9_FID_XATTR_WRITE, /* Txattrcreate: value collected by Twrite, set at Tclunk */
};

struct p9_fid {
	uint32_t id;
	struct p9_fid *next; /* hash chain */
	enum p9_fid_kind kind;
	struct p9_node *node;
	uint32_t uid; /* n_uname from Tattach, for new files */
	int open_fd;  /* -1 until Tlopen/Tlcreate */
	int open_flags;
	uint8_t *xbuf;
	size_t xlen; /* bytes in xbuf */
	size_t xsize;
	char *xname;
	int xflags;
	size_t xcharge; /* xattr bytes this fid holds against the budget */
};

struct p9_server {
	struct fsp *fs;
	bool read_only;
	bool versioned;
	uint32_t msize;
	struct p9_limits lim;
	unsigned n_fids;
	unsigned n_nodes;
	unsigned n_open; /* fids with an open file */
	size_t xattr_bytes;
	struct p9_node *root;
	struct p9_fid *fids[P9_FID_BUCKETS];
	dev_t devs[P9_MAX_DEVS];
	unsigned n_devs;
	struct p9_hostvol *hostvols;
	unsigned n_hostvols;
};

/* One request being served: decode from in, encode the reply body into out. */
struct p9_req {
	struct p9_server *srv;
	struct p9_in in;
	struct p9_out out;
	uint8_t type;
	uint16_t tag;
};

/* -ENOBUFS unless the reply has room for n more bytes: checked before any side effect. */
static inline int p9_reply_room(struct p9_req *req, size_t n)
{
	return p9_out_left(&req->out) >= n ? 0 : -ENOBUFS;
}

/* -EROFS on a read-only export. */
static inline int p9_check_writable(struct p9_req *req)
{
	return req->srv->read_only ? -EROFS : 0;
}

/* 9p-budget.c: checked before the host allocation, never after. */
/* 0 if n more host descriptors fit the budget, else -ENFILE. */
int p9_budget_fds(const struct p9_server *srv, unsigned n);
/* Charge bytes of xattr buffer to fid, or fail with err (nothing charged). */
int p9_budget_xattr_take(struct p9_server *srv, struct p9_fid *fid, size_t bytes, int err);
/* 0 if bytes more would fit (checked before allocating, charged once the fid exists). */
int p9_budget_xattr_room(const struct p9_server *srv, size_t bytes, int err);
/* Give back what fid holds. */
void p9_budget_xattr_put(struct p9_server *srv, struct p9_fid *fid);

/* 9p-fid.c */
struct p9_node *p9_node_ref(struct p9_node *n);
void p9_node_unref(struct p9_server *srv, struct p9_node *n);
/* A node for name under parent (a new host lookup; ".." handled by the caller). */
int p9_node_lookup(struct p9_server *srv, struct p9_node *parent, const char *name,
		   struct p9_node **ret);
int p9_node_new(struct p9_server *srv, int fd, struct p9_node *parent, const char *name,
		struct p9_node **ret);
void p9_qid_from_stat(struct p9_server *srv, const struct stat *st, struct p9_qid *ret);
int p9_node_qid(struct p9_server *srv, struct p9_node *n, struct p9_qid *ret);

struct p9_fid *p9_fid_find(struct p9_server *srv, uint32_t id);
/* A fresh fid; -EBADF for NOFID or one in use, -EMFILE over the limit. */
int p9_fid_new(struct p9_server *srv, uint32_t id, struct p9_fid **ret);
void p9_fid_free(struct p9_server *srv, struct p9_fid *fid);
void p9_fid_free_all(struct p9_server *srv);
/* The fid of a request field, or -EBADF; file fids only unless any_kind. */
int p9_get_fid(struct p9_req *req, bool any_kind, struct p9_fid **ret);
/* Read a single path component from the request and check it. */
int p9_get_name(struct p9_req *req, char name[static 256]);

/*
 * 9p-hostvol.c: the host-volume policy (docs/9p.md, "Host volumes"). Each returns 0 at once
 * for a passthrough node (hostvol -1).
 */
/* The volume of a node being made under parent with st: its own if it is a volume root. */
int p9_hostvol_of(const struct p9_server *srv, const struct p9_node *parent, const struct stat *st);
/* The mode bits a node of type fmt may get in volume vol. */
mode_t p9_hostvol_mode(const struct p9_server *srv, int vol, mode_t fmt, mode_t mode);
/* The owner a node made in volume vol gets for the guest's *uid and *gid. */
void p9_hostvol_owner(const struct p9_server *srv, int vol, uint32_t *uid, uint32_t *gid);
/*
 * A node just made as name in dir, st its stat: -EPERM, after removing it again, when it
 * still has a forbidden owner or mode (the VMM's chown is best effort: without CAP_CHOWN the
 * node stays the VMM's).
 */
int p9_hostvol_check_new(const struct p9_server *srv, const struct p9_node *dir, const char *name,
			 const struct stat *st);
/* Filter a Tsetattr on n: strip modes, refuse owners (-EPERM), clear setuid before a truncate. */
int p9_hostvol_setattr(const struct p9_server *srv, const struct p9_node *n, struct fsp_setattr *a);
/* n was opened for writing as open_fd: clear its setuid and setgid bits. */
int p9_hostvol_open_write(const struct p9_server *srv, const struct p9_node *n, int open_fd);
/* -EXDEV when a link or rename would move a node between volumes (or out of one). */
static inline int p9_hostvol_same(const struct p9_node *a, const struct p9_node *b)
{
	return a->hostvol == b->hostvol ? 0 : -EXDEV;
}

/* The operations: decode the rest of the request, act, encode the reply body. */
typedef int (*p9_op_fn)(struct p9_req *req);
int p9_op_lopen(struct p9_req *req);
int p9_op_lcreate(struct p9_req *req);
int p9_op_read(struct p9_req *req);
int p9_op_write(struct p9_req *req);
int p9_op_readdir(struct p9_req *req);
int p9_op_fsync(struct p9_req *req);
int p9_op_lock(struct p9_req *req);
int p9_op_getlock(struct p9_req *req);
int p9_op_getattr(struct p9_req *req);
int p9_op_setattr(struct p9_req *req);
int p9_op_statfs(struct p9_req *req);
int p9_op_readlink(struct p9_req *req);
int p9_op_xattrwalk(struct p9_req *req);
int p9_op_xattrcreate(struct p9_req *req);
int p9_xattr_commit(struct p9_server *srv, struct p9_fid *fid);
int p9_op_mkdir(struct p9_req *req);
int p9_op_symlink(struct p9_req *req);
int p9_op_mknod(struct p9_req *req);
int p9_op_link(struct p9_req *req);
int p9_op_rename(struct p9_req *req);
int p9_op_renameat(struct p9_req *req);
int p9_op_unlinkat(struct p9_req *req);
int p9_op_remove(struct p9_req *req);
