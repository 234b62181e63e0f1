/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The messages between the VMM and its 9p worker (9p-worker.h), one per SOCK_SEQPACKET packet,
 * in host byte order: both ends are the same program on the same host.
 *
 *   worker -> VMM, once:  p9_wire_hello with n p9_wire_result (one per export);
 *   VMM -> worker:        p9_wire_req: the request is the first len bytes of the export's
 *                         request area;
 *   worker -> VMM:        p9_wire_resp: the reply is the first len bytes of the export's reply
 *                         area (len <= the request's resp_cap).
 *
 * The shared mapping holds, per export i, its request area at P9_WIRE_AREA * 2i and its reply
 * area at P9_WIRE_AREA * (2i + 1).
 */

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "9p/9p-worker.h"

/* Where the exec'd worker finds its socket and the shared areas' memfd. */
#define P9_WORKER_SOCK_FD 3
#define P9_WORKER_SHM_FD  4

#define P9_WIRE_RESET 1u /* p9_wire_req.flags: forget every fid of the export first */
#define P9_WIRE_AREA  ((size_t) P9_MSIZE_MAX)

struct p9_wire_result {
	int32_t error;
	int32_t hostvol;
};

struct p9_wire_hello {
	int32_t error; /* the worker's sandbox: 0, or a negative errno (the worker exits) */
	uint32_t n;    /* results in use */
	struct p9_wire_result res[P9_WORKER_EXPORTS_MAX];
};

struct p9_wire_req {
	uint32_t export;
	uint32_t flags;
	uint32_t len;
	uint32_t resp_cap;
};

struct p9_wire_resp {
	uint32_t len;
};

/* One message: 0 (or the bytes received, 0 at EOF), or a negative errno; never SIGPIPE. A send
 * that the socket cut is -EPIPE. */
int p9_wire_send(int sock, const void *buf, size_t len);
ssize_t p9_wire_recv(int sock, void *buf, size_t len);

/*
 * The worker's side (9p-worker.c), in the child p9_worker_start() forked: sock is its end of
 * the socketpair, parent the VMM's pid, shm the shared mapping (2n areas). Never returns: exits 0
 * when the VMM closes the socket, 1 when it cannot go on, 2 on a message it refuses.
 */
_Noreturn void p9_worker_main(int sock, pid_t parent, uint8_t *shm, const struct p9_export *exports,
			      unsigned n, p9_worker_enter_fn enter, void *userdata);
