/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The 9p file-system broker (docs/9p.md, "The broker"): the only process of a pod that holds
 * 9p's capabilities. The 9p worker parses the guest's 9P messages with no capability at all:
 * what it may do as an unprivileged uid (walk into a world-searchable directory, open a
 * world-readable file, fstat, read and write open files, readdir) it does itself; everything
 * else (create, mkdir, symlink, mknod, link, rename, unlink, setattr, xattrs, and a walk or an
 * open the kernel refuses it) it asks the broker for, on a SOCK_SEQPACKET socket, passing the
 * descriptors the operation is about.
 *
 * The broker parses no 9P and trusts nothing the worker sends (the worker is the process a
 * guest's 9P may have taken over):
 *   - a descriptor is accepted only beneath an export: from a directory, the broker walks ".."
 *     up to an export root; a node that is not a directory comes with its parent directory and
 *     its name, and that name must still designate that inode;
 *   - the host-volume policy (9p-hostvol.c, docs/9p.md "Host volumes") and read-only exports
 *     are enforced here, on the classification the broker made, not the worker's;
 *   - names are single components (fsp_name_valid()); xattr names only "user.*";
 *   - a malformed message ends the broker (the worker then loses its file systems, and the
 *     VM stops), as a malformed message from the VMM ends the worker.
 *
 * One request at a time, synchronously: the worker has one thread.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "9p/9p.h"
#include "9p/fs-passthrough.h"

enum fsb_op {
	FSB_LOOKUP = 1, /* fds: dir. name. -> the node's O_PATH fd */
	FSB_REOPEN,	/* fds: node[, dir]. flags[, name]. -> the open fd */
	FSB_CREATE,  /* fds: dir. name, flags, mode, uid, gid. -> open fd, O_PATH fd; result 1 made
		      */
	FSB_MKDIR,   /* fds: dir. name, mode, uid, gid */
	FSB_SYMLINK, /* fds: dir. name, name2 (target), uid, gid */
	FSB_MKNOD,   /* fds: dir. name, mode, uid, gid */
	FSB_LINK,    /* fds: node, its dir, new dir. name (its name), name2 (new name) */
	FSB_RENAME,  /* fds: old dir, new dir. name, name2 */
	FSB_UNLINK,  /* fds: dir. name, flags (1: a directory) */
	FSB_CHECK_SAME,	  /* fds: dir. name, dev, ino */
	FSB_SETATTR,	  /* fds: node, dir or -, open fd or -. name (its name), attr */
	FSB_DROP_SUID,	  /* fds: open file, its dir. name */
	FSB_XATTR_GET,	  /* fds: node[, dir]. name[, its name] in name2, flags = size. -> data */
	FSB_XATTR_LIST,	  /* fds: node[, dir]. its name in name2, flags = size. -> data */
	FSB_XATTR_SET,	  /* fds: node[, dir]. name, its name in name2, value, flags */
	FSB_XATTR_REMOVE, /* fds: node[, dir]. name, its name in name2 */
	_FSB_OP_MAX,
};

#define FSB_FDS_MAX   3u
#define FSB_NAME_MAX  255u	   /* one component */
#define FSB_NAME2_MAX 4096u	   /* a symlink target (P9_PATH_MAX) or a component */
#define FSB_VALUE_MAX (64u * 1024) /* an xattr value (XATTR_SIZE_MAX) */
/* How deep beneath its export root a node may be for the broker to act on it. */
#define FSB_DEPTH_MAX 4096u

/* A request: this header, then name_len, name2_len and value_len bytes. */
struct fsb_req {
	uint32_t op;
	uint32_t flags;
	uint32_t mode;
	uint32_t uid, gid;
	uint32_t fd_mask; /* which of the op's descriptor slots (above) are sent, in order */
	uint64_t dev, ino;
	struct fsp_setattr attr;
	uint32_t name_len, name2_len, value_len; /* the bytes after the header, no NULs */
};

struct fsb_resp {
	int32_t result;	   /* >= 0, or a negative errno */
	uint32_t n_fds;	   /* descriptors with the reply */
	uint32_t data_len; /* bytes after the header (xattr get and list) */
};

/* One export, as the broker sees it. */
struct fsb_export {
	int root_fd; /* O_PATH directory; the broker keeps it */
	bool read_only;
	bool hostvol_root;
	const struct p9_hostvol *hostvols;
	unsigned n_hostvols;
};

/*
 * The broker's loop on sock, for n exports: returns 0 at EOF, -EBADMSG on a malformed message,
 * another negative errno when the socket fails. Never logs above debug for a refused operation
 * (the worker gets the errno).
 */
int fsb_serve(int sock, const struct fsb_export *exports, unsigned n);

/*
 * The worker's side: one request and its reply. fds[0..n) go with it; up to FSB_FDS_MAX
 * descriptors come back in ret_fds (the caller owns them), and up to data_cap bytes in data
 * (data_len says how many). Returns the broker's result, or -EPIPE when it is gone.
 */
int fsb_call(int sock, const struct fsb_req *q, const int *fds, unsigned n_fds, const char *name,
	     const char *name2, const void *value, int *ret_fds, unsigned *ret_n_fds, void *data,
	     size_t data_cap);

/*
 * Both ends (fs-broker-msg.c): one message and up to FSB_FDS_MAX descriptors. fsb_send()
 * returns 0 or a negative errno, never SIGPIPE. fsb_recv_fds() returns the bytes (0 at EOF) or a
 * negative errno; the descriptors that came are in fds (close-on-exec), and truncated says that
 * the message or its descriptors did not fit (those beyond are closed).
 */
int fsb_send(int sock, const struct iovec *iov, size_t n_iov, const int *fds, unsigned n_fds);
ssize_t fsb_recv_fds(int sock, const struct iovec *iov, size_t n_iov, int *fds, unsigned *n_fds,
		     bool *truncated);
