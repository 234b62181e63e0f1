/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * A debug-only 8250 UART (COM1, ports 0x3f8-0x3ff): transmit only, always ready. Each byte
 * the guest writes is a VM exit, so it is for early debug output (earlyprintk=serial), the
 * tiny test guests and debugging; the real console is virtio-console (hvc0).
 *
 * The only interrupt is "transmitter holding register empty" (THRE): Linux's tty layer sends
 * through the interrupt-driven path, and without it a ttyS0 console stalls after one byte.
 * The THR is always empty, so the interrupt is raised when the guest enables it in IER and
 * after each byte it sends (while enabled); reading IIR reports and clears it.
 */

#include <stdbool.h>
#include <stdint.h>

#include "base/iobus.h"
#include "base/irq.h"

#define SERIAL_PORTS 8

struct serial8250 {
	int out_fd; /* not owned; -1 drops output */
	uint8_t ier, lcr, mcr, scr, dll, dlm;
	bool thre_pending; /* a THRE interrupt not yet read from IIR */
	bool has_irq;
	struct irq_line irq;
	uint64_t tx_bytes;
};

/* Without serial8250_set_irq() the UART raises no interrupt (IIR still reports THRE). */
void serial8250_init(struct serial8250 *s, int out_fd);
void serial8250_set_irq(struct serial8250 *s, struct irq_line irq);
extern const struct iobus_ops serial8250_iobus_ops;
