/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Boot markers: one-byte milestone codes written to the VMM's write-only boot-marker I/O
 * port. With `cc.markers=console` on the kernel command line each marker also prints
 *
 *	cc-marker: <name> uptime=<seconds from /proc/uptime>
 *
 * on /dev/console, for hosts that lack the port (QEMU) and for the boot-cost benchmark.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MARKER_PORT 0x0cc0

enum marker_code {
	MARKER_INIT_START = 0x01,   /* the guest init stage runs */
	MARKER_SYSTEMD_EXEC = 0x02, /* init is about to exec systemd */
	MARKER_APP_STARTED = 0x03,  /* the pod's app (or the smoke unit) started */
};

/* Longest line marker_format_line() produces, with its newline and NUL. */
#define MARKER_LINE_MAX 64

/*
 * A marker given by name ("init-start", "systemd-exec", "app-started") or by number (decimal
 * or 0x-prefixed hex, 1-255). Returns 0 and the code, or -EINVAL.
 */
int marker_parse(const char *s, uint8_t *ret_code);

/* The name of a known code, NULL for other codes. */
const char *marker_to_name(uint8_t code);

/*
 * The first field of /proc/uptime ("12.34 5.67\n" gives "12.34") copied into ret, which
 * has room for size bytes. -EINVAL when the text is not "<digits>.<digits>", -ENOBUFS when
 * it does not fit.
 */
int marker_uptime_parse(const char *text, char *ret, size_t size);

/* "cc-marker: <name> uptime=<uptime>\n" into buf (unknown codes are named 0xNN). */
int marker_format_line(uint8_t code, const char *uptime, char *buf, size_t size);

/* outb(code, MARKER_PORT) after ioperm(); -EPERM without CAP_SYS_RAWIO. */
int marker_write_port(uint8_t code);

/*
 * Emit a marker: the port write, and with console the line on /dev/console. Both are
 * attempted; the first error is returned.
 */
int marker_emit(uint8_t code, bool console);
