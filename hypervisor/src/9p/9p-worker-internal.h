/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Shared between the worker's process files (9p-worker.c, 9p-worker-broker.c). */

#include <sys/types.h>

#include "9p/9p-buf.h"
#include "9p/9p-wire.h"
#include "9p/9p-worker.h"

struct p9_worker_state {
	int sock;
	unsigned n;
	uint8_t *shm;
	struct p9_server *srv[P9_WORKER_EXPORTS_MAX];
	struct p9_buf req; /* the request being served, copied out of the shared area */
	int broker;	   /* the broker's socket, -1 before it is forked */
	pid_t broker_pid;
};

/*
 * Fork the broker for s's open exports and wait for its hello (its sandbox entered); then every
 * server asks it for what it may not do itself. Call before the worker's own sandbox.
 */
int p9_worker_broker_start(struct p9_worker_state *s, const struct p9_export *exports,
			   p9_worker_enter_fn enter, void *userdata);
/* Close its socket and reap it. */
void p9_worker_broker_stop(struct p9_worker_state *s);
