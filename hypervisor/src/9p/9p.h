/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * 9P2000.L server: the fid table and the operations, over the passthrough backend
 * (fs-passthrough.h). It knows nothing of virtio: it takes one request message in a buffer and
 * writes one reply message into another. Requests are handled synchronously, one at a time,
 * by the caller's thread (the device's event-loop thread), so Tflush has nothing to cancel.
 *
 * Limits: msize is negotiated down to P9_MSIZE_MAX. What the guest can make one server hold
 * is budgeted (struct p9_limits, docs/9p.md "Budgets"): fids, host descriptors and xattr
 * bytes. A request over budget gets an error and causes no host allocation.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cc/cleanup.h"

#define P9_MSIZE_MAX	       (512u * 1024)
#define P9_MSIZE_MIN	       4096u
#define P9_FIDS_DEFAULT	       32768u
#define P9_FDS_DEFAULT	       65536u
#define P9_XATTR_BYTES_DEFAULT (2u * 1024 * 1024)

/* The budget of one server (one share); over it: fids EMFILE, fds ENFILE, xattr bytes ENOSPC
 * (Txattrcreate) or ENOMEM (Txattrwalk). */
struct p9_limits {
	unsigned max_fids; /* fids of every kind */
	unsigned max_fds;  /* host descriptors: walked nodes (O_PATH, root included) + open files */
	size_t max_xattr_bytes; /* Txattrcreate values and names + Txattrwalk reply buffers */
};

/* What a server holds now, against its p9_limits. */
struct p9_usage {
	unsigned fids;
	unsigned fds; /* nodes + open_files */
	unsigned nodes;
	unsigned open_files;
	size_t xattr_bytes;
};

struct p9_server;

/* Export dir (a host directory) read-write or read-only. */
int p9_server_new(const char *dir, bool read_only, struct p9_server **ret);
struct p9_server *p9_server_free(struct p9_server *srv);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct p9_server *, p9_server_free)
/*
 * A host volume inside the export (docs/9p.md, "Host volumes"): the directory (or single file)
 * with this host identity, and everything the guest reaches through it, follows the host-volume
 * policy instead of passthrough: no setuid or setgid regular file, no setuid directory, and no
 * node given to uid 0 or gid 0 unless the volume's root is owned by that id; a guest id that
 * is not allowed is replaced by uid/gid (the volume root's owner, as bound).
 */
struct p9_hostvol {
	uint64_t dev, ino;
	uint32_t uid, gid;
};

#define P9_HOSTVOLS_MAX 256u

/*
 * Add a host volume, before the first request: -EBUSY once a fid exists, -EEXIST when the
 * identity is already one, -E2BIG past P9_HOSTVOLS_MAX. The export root itself may be one.
 */
int p9_server_add_hostvol(struct p9_server *srv, const struct p9_hostvol *v);
/* The whole export is a host volume owned by its root's owner (as it is now). */
int p9_server_add_hostvol_root(struct p9_server *srv);
/* Cap on fids (and 2x that on held host descriptors); for tests and small VMMs. */
void p9_server_set_max_fids(struct p9_server *srv, unsigned max_fids);
/* The export's root directory (an O_PATH fd the server keeps). */
int p9_server_root_fd(const struct p9_server *srv);
/* What the server may not do itself, it asks the broker on sock for (fs-broker.h). */
void p9_server_set_broker(struct p9_server *srv, int sock);
/* Set every budget (a 0 field keeps the current one); they apply to what is asked next. */
void p9_server_set_limits(struct p9_server *srv, const struct p9_limits *lim);
void p9_server_get_limits(const struct p9_server *srv, struct p9_limits *ret);
void p9_server_get_usage(const struct p9_server *srv, struct p9_usage *ret);
/* Forget every fid and the negotiated version (device reset). */
void p9_server_reset(struct p9_server *srv);
/* msize negotiated by the last Tversion (P9_MSIZE_MAX before any). */
uint32_t p9_server_msize(const struct p9_server *srv);

/*
 * Handle one request: req[0..req_len) must be exactly one message. Writes the reply into
 * resp[0..resp_cap) and returns its length, or 0 when no reply can be made (the request is too
 * short to carry a tag, or resp_cap cannot hold even an Rlerror). Never fails otherwise: every
 * error becomes an Rlerror with its errno.
 */
size_t p9_server_handle(struct p9_server *srv, const void *req, size_t req_len, void *resp,
			size_t resp_cap);
/*
 * An Rlerror(-err) to the tag of req[0..req_len), made without a server (the 9p worker is
 * gone); its length, or 0 as above.
 */
size_t p9_reply_error(const void *req, size_t req_len, int err, void *resp, size_t resp_cap);
