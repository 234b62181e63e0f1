/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The boot-marker port: a write-only I/O port (0x0cc0). Each 1-byte write is a milestone code
 * (1 init started, 2 systemd exec'd, 3 app started; any other code is kept as "marker-N"),
 * timestamped in nanoseconds since the VMM started and written as one JSON line:
 *
 *	{"code":3,"name":"app-started","ns":123456}
 *
 * The VMM adds {"code":-1,"name":"first-kvm-run","ns":...} when the boot vCPU first enters
 * the guest. Reads return all-ones. The window is one port wide, so a wider write is not a
 * marker (iobus does not route accesses that spill past a window).
 */

#include <pthread.h>
#include <stdint.h>

#include "base/iobus.h"

#define BOOTMARKER_MAX		 64 /* kept in memory; the file gets them all */
#define BOOTMARKER_FIRST_KVM_RUN (-1)
#define BOOTMARKER_INIT_START	 1

struct bootmarker_entry {
	int code;
	uint64_t ns;
};

struct bootmarker {
	pthread_mutex_t lock;
	int fd; /* not owned; -1: not written */
	uint64_t start_ns;
	unsigned n;
	struct bootmarker_entry entries[BOOTMARKER_MAX];
	/* Called with each marker the guest writes, on the vCPU thread that wrote it (NULL:
	 * none). Set before the first vCPU runs. */
	void (*notify)(void *opaque, int code);
	void *notify_opaque;
};

void bootmarker_init(struct bootmarker *b, int fd, uint64_t start_ns);
void bootmarker_done(struct bootmarker *b);
void bootmarker_record(struct bootmarker *b, int code);
const char *bootmarker_name(int code);
/* Formats one JSON line (with '\n') into buf; returns its length or -ENOBUFS. */
int bootmarker_format(char *buf, size_t size, int code, uint64_t ns);
uint64_t bootmarker_now_ns(void);

extern const struct iobus_ops bootmarker_iobus_ops;
