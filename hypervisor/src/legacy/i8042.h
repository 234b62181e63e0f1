/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The part of the i8042 keyboard controller a VM needs: the CPU reset line (command 0xfe on
 * port 0x64 ends the VM cleanly, which is how our guests power off) and just enough of the
 * command set (read/write the command byte, self tests) that Linux's driver finds an empty
 * controller quickly instead of timing out. No keyboard or mouse is attached.
 */

#include <stdbool.h>
#include <stdint.h>

#include "base/iobus.h"

#define I8042_PORT_SPAN 5 /* 0x60-0x64 */

typedef void (*i8042_reset_fn)(void *userdata);

struct i8042 {
	uint8_t ctr;	 /* command byte */
	uint8_t pending; /* command waiting for a data byte (0: none) */
	uint8_t out;	 /* output buffer */
	bool out_full;
	i8042_reset_fn reset;
	void *userdata;
};

void i8042_init(struct i8042 *k, i8042_reset_fn reset, void *userdata);
/* Registered at 0x60 for I8042_PORT_SPAN ports; offsets 0 (data) and 4 (status/command). */
extern const struct iobus_ops i8042_iobus_ops;
