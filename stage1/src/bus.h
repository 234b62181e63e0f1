/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * A blocking D-Bus client connection for the stage1's few calls on the system bus: connect,
 * authenticate (EXTERNAL, by the caller's uid), Hello, and one method call at a time with a
 * timeout. No message is received but replies to our own calls.
 */

#include <stdint.h>

#include "bus-msg.h"

/* $DBUS_SYSTEM_BUS_ADDRESS, or this when unset. */
#define BUS_SYSTEM_DEFAULT_ADDRESS "unix:path=/run/dbus/system_bus_socket"
#define BUS_TIMEOUT_MS		   5000

struct bus {
	int fd;
	uint32_t serial;
	uint8_t *rbuf; /* the last reply */
};

/*
 * Connect to the bus at address ("unix:path=..." is the only transport taken; NULL: the
 * system bus) and say Hello. -ENOENT, -ECONNREFUSED: no bus there; -EPROTO: it does not speak
 * D-Bus as expected; -EAFNOSUPPORT: an address this client does not handle.
 */
int bus_open(struct bus *b, const char *address);
void bus_close(struct bus *b);

/*
 * Finish m, give it the connection's next serial, send it and wait for the reply. 0 with *ret
 * filled (its strings live until the next call or bus_close()), or a negative errno: m's own
 * (bus_msg_finish()) or the transport's (-ETIMEDOUT, -EPROTO, ...). A D-Bus error reply is a
 * success here: ret->type is BUS_MSG_ERROR.
 */
int bus_call(struct bus *b, struct bus_msg *m, struct bus_reply *ret);
