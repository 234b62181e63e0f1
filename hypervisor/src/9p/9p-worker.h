/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The 9p worker (docs/9p.md, "The worker"): a process of its own that serves every 9p export of
 * a VM, so that the VMM keeps no capability and no descriptor on an export.
 *
 *   p9_worker_start()  forks the worker before the VM has guest memory, KVM descriptors or
 *                      threads, and (in the VMM) execs it again as `cc-vmm --9p-worker ...`, so
 *                      that it shares no address layout, stack canary or pointer guard with the
 *                      VMM a guest may take over. The worker closes every inherited descriptor
 *                      but its socket and 0-2, ignores terminal and process-group signals, makes
 *                      itself non-dumpable (a VMM of the same uid cannot ptrace it or read its
 *                      memory), opens the exports, calls enter() (its sandbox: its own seccomp
 *                      filter and the capabilities 9p needs) and reports each step;
 *   p9_worker_call()   the VMM puts a request for one export in that export's request area,
 *                      the worker puts the reply in its reply area;
 *   p9_worker_free()   closes the socket (the worker exits on EOF) and reaps it.
 *
 * The messages are two shared memory areas per export (a sealed memfd mapped before the fork:
 * P9_MSIZE_MAX bytes of request, P9_MSIZE_MAX of reply) and a SOCK_SEQPACKET socketpair that
 * carries only a struct p9_wire_req per request and a struct p9_wire_resp per reply
 * (9p-wire.h). The worker trusts nothing the VMM sends (it is the process a guest may have
 * taken over): a message with a bad export index, size or flag ends the worker, and it copies
 * each request out of the shared area before it parses it. The VMM checks each reply's size
 * against what it asked for.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
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
 * The worker is two processes (docs/9p.md, "The broker"): the parser, which the VMM talks to
 * and which parses 9P with no capability, and the broker it forks once the exports are open,
 * which holds the capabilities and performs only checked file operations for it (fs-broker.h).
 */
enum p9_worker_role {
	P9_WORKER_PARSER,
	P9_WORKER_BROKER,
};

/*
 * In each of them, once the exports are open and the broker forked: its sandbox. Returns 0 or a
 * negative errno (the worker then exits and p9_worker_start() fails with it).
 */
typedef int (*p9_worker_enter_fn)(void *userdata, enum p9_worker_role role);

struct p9_worker;

/*
 * Start the worker for n exports (1..P9_WORKER_EXPORTS_MAX) and wait until it is ready. Call it
 * while the process has no other thread. With exec_argv, the child execs /proc/self/exe with it
 * (its socket on P9_WORKER_SOCK_FD, the areas' memfd on P9_WORKER_SHM_FD: 9p-wire.h), and that
 * program calls p9_worker_main_exec(); exports, enter and userdata are then that program's
 * business. Without, the child serves exports itself (tests). Returns 0 with *ret set, and each
 * export's result in results[0..n) (an export that failed is not served); or a negative errno
 * when there is no worker (-ECHILD: it died before it answered; its sandbox's error otherwise).
 */
int p9_worker_start(const struct p9_export *exports, unsigned n, char *const *exec_argv,
		    p9_worker_enter_fn enter, void *userdata, struct p9_worker **ret,
		    struct p9_export_result *results);
/*
 * The same in two steps, so that the caller can go on with its own setup while the worker
 * starts: p9_worker_spawn() forks (and execs) it; p9_worker_wait() reads its hello, with the
 * results and errors above (once; free the worker when it fails).
 */
int p9_worker_spawn(const struct p9_export *exports, unsigned n, char *const *exec_argv,
		    p9_worker_enter_fn enter, void *userdata, struct p9_worker **ret);
int p9_worker_wait(struct p9_worker *w, struct p9_export_result *results);
/*
 * In the program exec'd with exec_argv: serve the n exports for the VMM parent (whose pid the
 * program got in its argv). Never returns.
 */
_Noreturn void p9_worker_main_exec(pid_t parent, const struct p9_export *exports, unsigned n,
				   p9_worker_enter_fn enter, void *userdata);
/* Close the socket and reap the worker. */
struct p9_worker *p9_worker_free(struct p9_worker *w);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct p9_worker *, p9_worker_free)
pid_t p9_worker_pid(const struct p9_worker *w);
/* Its socket, for an event loop to watch for EPOLLRDHUP: the worker went away. */
int p9_worker_fd(const struct p9_worker *w);
/* Called once, from the failing call's thread, when a call finds the worker gone. */
void p9_worker_on_gone(struct p9_worker *w, void (*fn)(void *userdata), void *userdata);

/* Export i's request and reply areas, P9_MSIZE_MAX bytes each (whole pages), in the shared
 * mapping: the caller writes the request into the first and reads the reply from the second. */
uint8_t *p9_worker_req(struct p9_worker *w, unsigned i);
uint8_t *p9_worker_resp(struct p9_worker *w, unsigned i);

/*
 * Serve the len bytes of export i's request area (its server forgets every fid first when
 * reset), with at most resp_cap bytes of reply. Returns the reply's length (0: no reply could be
 * made, as p9_server_handle()), or -EPIPE once the worker is gone (logged once). Safe from any
 * thread: calls are serialized (each export's areas are its device's, under its own lock).
 */
ssize_t p9_worker_call(struct p9_worker *w, unsigned i, bool reset, size_t len, size_t resp_cap);
