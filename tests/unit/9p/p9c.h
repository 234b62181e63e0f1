/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * A tiny 9P2000.L client for the 9p suites: builds T-messages with the server's own encoder,
 * runs them through p9_server_handle() and decodes the replies. Every call returns 0 (or a
 * count) or the negative errno of an Rlerror.
 */

#include <stddef.h>
#include <stdint.h>

#include "9p/9p-pdu.h"
#include "9p/9p-worker.h"
#include "9p/9p.h"

struct p9_worker;

struct p9c {
	struct p9_server *srv;	  /* NULL when the export is a 9p worker's */
	struct p9_worker *worker; /* p9c_init_worker(): export 0 of this worker */
	bool reset;		  /* the next request through the worker resets its server */
	char *dir;		  /* the exported temporary directory */
	uint8_t *req, *resp;
	size_t resp_cap;
	size_t resp_len;
	struct p9_in in; /* the last reply, positioned after its header */
	uint16_t tag;
};

/* A fresh temporary export and a server on it (versioned and attached to fid 0 if attach). */
void p9c_init(struct p9c *c, bool read_only, bool attach);
/* The same, served by a 9p worker process; enter (or NULL) is its sandbox. */
void p9c_init_worker(struct p9c *c, bool read_only, bool attach, p9_worker_enter_fn enter);
/* Tfsync with its datasync field. */
int p9c_fdatasync(struct p9c *c, uint32_t fid);
void p9c_done(struct p9c *c);

/* Raw: send len bytes, return the reply length (0 for no reply). */
size_t p9c_raw(struct p9c *c, const void *req, size_t len);
/* Start a T-message / send it; returns -errno from Rlerror, or 0 with c->in at the body. */
struct p9_out *p9c_begin(struct p9c *c);
int p9c_send(struct p9c *c, uint8_t type);

int p9c_version(struct p9c *c, uint32_t msize, const char *version, uint32_t *ret_msize,
		char *ret_version, size_t version_size);
int p9c_attach(struct p9c *c, uint32_t fid, uint32_t uid);
/* Walk names (NULL-terminated list); returns the number of qids. */
int p9c_walk(struct p9c *c, uint32_t fid, uint32_t newfid, const char *const *names,
	     struct p9_qid *ret_last);
int p9c_walk1(struct p9c *c, uint32_t fid, uint32_t newfid, const char *path);
int p9c_lopen(struct p9c *c, uint32_t fid, uint32_t flags);
int p9c_lcreate(struct p9c *c, uint32_t fid, const char *name, uint32_t flags, uint32_t mode);
int p9c_read(struct p9c *c, uint32_t fid, uint64_t off, uint32_t count, void *buf);
int p9c_write(struct p9c *c, uint32_t fid, uint64_t off, const void *buf, uint32_t count);
int p9c_clunk(struct p9c *c, uint32_t fid);
int p9c_remove(struct p9c *c, uint32_t fid);
int p9c_mkdir(struct p9c *c, uint32_t dfid, const char *name, uint32_t mode);
int p9c_symlink(struct p9c *c, uint32_t dfid, const char *name, const char *target);
int p9c_mknod(struct p9c *c, uint32_t dfid, const char *name, uint32_t mode);
int p9c_link(struct p9c *c, uint32_t dfid, uint32_t fid, const char *name);
int p9c_readlink(struct p9c *c, uint32_t fid, char *buf, size_t size);
int p9c_rename(struct p9c *c, uint32_t fid, uint32_t dfid, const char *name);
int p9c_renameat(struct p9c *c, uint32_t olddir, const char *oldname, uint32_t newdir,
		 const char *newname);
int p9c_unlinkat(struct p9c *c, uint32_t dfid, const char *name, uint32_t flags);
struct p9c_attr {
	struct p9_qid qid;
	uint32_t mode, uid, gid;
	uint64_t nlink, size, mtime_sec;
};
int p9c_getattr(struct p9c *c, uint32_t fid, struct p9c_attr *ret);
int p9c_setattr(struct p9c *c, uint32_t fid, uint32_t valid, uint32_t mode, uint64_t size,
		uint64_t mtime_sec);
int p9c_statfs(struct p9c *c, uint32_t fid, uint32_t *ret_bsize, uint32_t *ret_namelen);
int p9c_fsync(struct p9c *c, uint32_t fid);
/* Returns the lock status (0 success, 1 blocked). */
int p9c_lock(struct p9c *c, uint32_t fid, uint8_t type, uint64_t start, uint64_t len);
int p9c_getlock(struct p9c *c, uint32_t fid, uint8_t type, uint8_t *ret_type);
/* Names from one Treaddir, "a/b/c/" style, into buf; *off is advanced. Returns entries. */
int p9c_readdir(struct p9c *c, uint32_t fid, uint64_t *off, uint32_t count, char *buf, size_t size);
int p9c_xattrwalk(struct p9c *c, uint32_t fid, uint32_t newfid, const char *name,
		  uint64_t *ret_size);
int p9c_xattrcreate(struct p9c *c, uint32_t fid, const char *name, uint64_t size, uint32_t flags);

/* Host-side helpers on the export. */
void p9c_host_write(struct p9c *c, const char *rel, const char *content);
char *p9c_host_path(struct p9c *c, const char *rel); /* static buffer */
