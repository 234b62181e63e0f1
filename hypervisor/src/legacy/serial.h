/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * A debug-only 8250 UART (COM1, ports 0x3f8-0x3ff): transmit only, always ready, no
 * interrupts. Each byte the guest writes is a VM exit, so it is for early debug output
 * (earlyprintk=serial) and the tiny test guests; the real console is virtio-console (hvc0).
 */

#include <stdint.h>

#include "core/iobus.h"

#define SERIAL_PORTS 8

struct serial8250 {
	int out_fd; /* not owned; -1 drops output */
	uint8_t ier, lcr, mcr, scr, dll, dlm;
	uint64_t tx_bytes;
};

void serial8250_init(struct serial8250 *s, int out_fd);
extern const struct iobus_ops serial8250_iobus_ops;
