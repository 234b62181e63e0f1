/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The 9p worker (docs/9p.md, "The worker"): a process of its own that serves every 9p export of
 * a VM, so that the VMM keeps no capability and no descriptor on an export.
 *
 *   p9_worker_start()  forks the worker before the VM has guest memory, KVM descriptors or
 *                      threads. The worker closes every inherited descriptor but its socket and
 *                      stderr, makes itself non-dumpable (a VMM of the same uid cannot ptrace it
 *                      or read its memory), opens the exports, calls enter() (its sandbox: its
 *                      own seccomp filter and the capabilities 9p needs) and reports each step;
 *   p9_worker_call()   the VMM hands it one request for one export and waits for the reply;
 *   p9_worker_free()   closes the socket (the worker exits on EOF) and reaps it.
 *
 * The socket is a SOCK_STREAM unix socketpair. Each request is a struct p9_wire_req and its
 * bytes, each reply a struct p9_wire_resp and its bytes (9p-wire.h). The worker trusts nothing
 * the VMM sends (it is the process a guest may have taken over): a frame with a bad export
 * index or size ends the worker, and it copies each request into its own memory before it
 * parses it. The VMM checks each reply's size against what it asked for.
 */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "9p/9p.h"

/* One export, as p9_server_new() and p9_server_add_hostvol*() take it. */
struct p9_export {
	const char *dir;
	bool read_only;
	bool hostvol_root; /* the whole export is a host volume */
	const struct p9_hostvol *hostvols;
	unsigned n_hostvols;
};

#define P9_WORKER_EXPORTS_MAX 64u

/* What the worker did with an export: 0, or why it could not serve it. */
struct p9_export_result {
	int error;   /* a negative errno, 0 on success */
	int hostvol; /* what failed: hostvols[k] (k >= 0), or one of P9_EXPORT_HOSTVOL_* */
};
#define P9_EXPORT_HOSTVOL_DIR  (-1) /* the export's directory itself */
#define P9_EXPORT_HOSTVOL_ROOT (-2) /* hostvol_root */

/*
 * In the worker, once its exports are open: its sandbox. Returns 0 or a negative errno (the
 * worker then exits and p9_worker_start() fails with it).
 */
typedef int (*p9_worker_enter_fn)(void *userdata);

struct p9_worker;

/*
 * Start the worker for n exports (at most P9_WORKER_EXPORTS_MAX) and wait until it is ready.
 * Call it while the process has no other thread. Returns 0 with *ret set, and each export's
 * result in results[0..n) (an export that failed is not served); or a negative errno when there
 * is no worker (-ECHILD: it died before it answered; its sandbox's error otherwise).
 */
int p9_worker_start(const struct p9_export *exports, unsigned n, p9_worker_enter_fn enter,
		    void *userdata, struct p9_worker **ret, struct p9_export_result *results);
/* Close the socket and reap the worker. */
struct p9_worker *p9_worker_free(struct p9_worker *w);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct p9_worker *, p9_worker_free)
pid_t p9_worker_pid(const struct p9_worker *w);

/*
 * Serve one request of export i (its server forgets every fid first when reset): req[0..len)
 * in, at most resp_cap bytes of reply into resp. Returns the reply's length (0: no reply could
 * be made, as p9_server_handle()), or -EPIPE once the worker is gone (logged once). Safe from
 * any thread: calls are serialized.
 */
ssize_t p9_worker_call(struct p9_worker *w, unsigned i, bool reset, const void *req, size_t len,
		       void *resp, size_t resp_cap);
