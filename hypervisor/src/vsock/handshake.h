/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The line a host client sends on the vsock listener before its stream: "CONNECT <port>\n"
 * (Firecracker's protocol). The reader never consumes a byte past the newline, so data the
 * client sends right behind its line stays in the socket for the guest.
 */

#include <stddef.h>
#include <stdint.h>

#define VSOCK_HS_LINE_MAX 32 /* "CONNECT 4294967295\n" fits */

struct vsock_hs {
	int fd; /* non-blocking; -1: slot free */
	uint8_t len;
	char line[VSOCK_HS_LINE_MAX];
	uint64_t deadline_ns;
};

/* "CONNECT <port>\n" with 1..10 decimal digits, port <= UINT32_MAX. -EINVAL or -ERANGE. */
int vsock_hs_parse(const char *line, size_t len, uint32_t *ret_port);

/*
 * Read what the client sent so far. Returns 1 with *ret_port once the line is complete and
 * valid, 0 when more bytes are needed, or -errno: the client closed (-ECONNRESET), the line is
 * too long (-E2BIG) or invalid (see vsock_hs_parse).
 */
int vsock_hs_read(struct vsock_hs *hs, uint32_t *ret_port);
