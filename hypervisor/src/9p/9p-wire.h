/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The frames between the VMM and its 9p worker (9p-worker.h), in host byte order: both ends are
 * the same program on the same host.
 *
 *   worker -> VMM, once:  p9_wire_hello, then n p9_wire_result (one per export);
 *   VMM -> worker:        p9_wire_req, then len request bytes;
 *   worker -> VMM:        p9_wire_resp, then len reply bytes (len <= the request's resp_cap).
 */

#include <stdint.h>
#include <sys/types.h>

#include "9p/9p-worker.h"

#define P9_WIRE_RESET 1u /* p9_wire_req.flags: forget every fid of the export first */

struct p9_wire_hello {
	int32_t error; /* the worker's sandbox: 0, or a negative errno (the worker exits) */
	uint32_t n;    /* results that follow */
};

struct p9_wire_result {
	int32_t error;
	int32_t hostvol;
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


/*
 * The worker's side (9p-worker.c), in the child p9_worker_start() forked: sock is its end of
 * the socketpair, parent the VMM's pid. Never returns: exits 0 when the VMM closes the socket, 1
 * when it cannot go on, 2 on a frame it refuses.
 */
_Noreturn void p9_worker_main(int sock, pid_t parent, const struct p9_export *exports, unsigned n,
			      p9_worker_enter_fn enter, void *userdata);
