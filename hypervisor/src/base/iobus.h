/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Port I/O and MMIO dispatch. A vCPU thread that gets KVM_EXIT_IO or KVM_EXIT_MMIO calls
 * iobus_dispatch() on the matching bus; the handler registered for the address runs with the
 * offset into its window.
 *
 * Registration happens during setup, before any vCPU runs; after that the bus is read-only and
 * dispatch takes no lock. Handlers that share state with other threads lock it themselves.
 */

#include <stdbool.h>
#include <stdint.h>

#define IOBUS_MAX_RANGES 64

struct iobus_ops {
	/* Fill data[0..len) for a guest read at offset off in the window. */
	void (*read)(void *opaque, uint64_t off, void *data, uint32_t len);
	/* Handle a guest write of data[0..len) at offset off in the window. */
	void (*write)(void *opaque, uint64_t off, const void *data, uint32_t len);
};

struct iobus_range {
	uint64_t base;
	uint64_t len;
	const struct iobus_ops *ops;
	void *opaque;
};

struct iobus {
	struct iobus_range ranges[IOBUS_MAX_RANGES];
	unsigned n_ranges;
};

void iobus_init(struct iobus *bus);
/* -EINVAL for an empty or overflowing window, -EEXIST on overlap, -ENOSPC when full. */
int iobus_register(struct iobus *bus, uint64_t base, uint64_t len, const struct iobus_ops *ops,
		   void *opaque);

/*
 * Route one access. Returns true when a handler took it. An access to no handler reads as
 * all-ones and drops writes (what real hardware does for an unclaimed address); the caller
 * may count it. An access that straddles the end of a window is not routed.
 */
bool iobus_dispatch(const struct iobus *bus, uint64_t addr, void *data, uint32_t len,
		    bool is_write);
