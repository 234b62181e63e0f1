/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Registering a pod with systemd-machined (org.freedesktop.machine1 on the system bus), as
 * rkt's nspawn stage1 does, so that `machinectl list` shows it and `journalctl -M <name>`
 * reads its journal. machined is optional: where there is no system bus or no machined, the
 * calls say so with -EOPNOTSUPP and the pod goes on.
 *
 * The calls go through libsystemd's sd-bus in cc-stage1-machined (stage1/machined/), a
 * dynamically linked program that the static entrypoints run through the stage1 image's own
 * loader and libraries (cc/lib/), found from the current directory, which is the pod dir for
 * run and gc. CC_STAGE1_MACHINED (tests) names a build of it to run as is instead.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cc/error.h"

/* In the stage1 rootfs: the program, and the loader and libraries it runs with. */
#define MACHINED_PROGRAM "cc/machined"
#define MACHINED_LIB_DIR "cc/lib"
#define MACHINED_LOADER	 MACHINED_LIB_DIR "/ld-linux-x86-64.so.2"
/* How long a call may take, the bus's own 5 s timeout included. */
#define MACHINED_TIMEOUT_MS 10000

/* cc-stage1-machined's exit statuses. */
enum {
	MACHINED_EXIT_SCOPE = 0,  /* registered in a scope of its own, or unregistered */
	MACHINED_EXIT_FAILED = 1, /* one line on stderr */
	MACHINED_EXIT_USAGE = 2,
	MACHINED_EXIT_ABSENT = 3, /* no system bus, or no machined on it */
	MACHINED_EXIT_UNIT = 10,  /* registered with the leader's own unit */
};

struct machined_machine {
	const char *name;	    /* "rkt-<uuid>" */
	uint8_t id[16];		    /* the machine ID (the pod UUID) */
	const char *service;	    /* "rkt" */
	const char *class;	    /* "container": machined opens the leader's root for -M */
	pid_t leader;		    /* the VMM */
	const char *root_directory; /* the pod's stage1 rootfs */
	/*
	 * The scope's unit properties, or 0 for none: the VMM's bound (docs/stage1.md, "The VMM's
	 * bound"), which the scope must carry since systemd moves the leader into it.
	 */
	uint64_t memory_max, tasks_max;
};

/*
 * Register the machine as nspawn does: CreateMachine, where machined has systemd make the
 * leader a scope of its own (machine-<name>.scope, with MemoryMax, MemorySwapMax=0 and
 * TasksMax when memory_max/tasks_max are set), so that any number of pods started from
 * one shell or unit each get one; where that fails (no systemd as init), RegisterMachine, with
 * the leader's own unit. *ret_scope: CreateMachine did it. 0 registered; -EOPNOTSUPP no bus or
 * no machined (nothing to report); another negative errno with a one-line reason in *err.
 */
int machined_register(const struct machined_machine *m, bool *ret_scope, struct cc_error *err);

/* UnregisterMachine. 0 also when the machine, machined or the bus is not there. */
int machined_unregister(const char *name, struct cc_error *err);
