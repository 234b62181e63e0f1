/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * D-Bus messages, just what the stage1 needs to call systemd-machined: building a method
 * call (little-endian; body types s, o, u, ay and an empty array) and reading the header of a
 * reply. The entrypoints are static binaries, so libsystemd cannot be loaded into them; the
 * wire format is small and stable (D-Bus specification, "Message Protocol").
 */

#include <stddef.h>
#include <stdint.h>

enum bus_msg_type {
	BUS_MSG_METHOD_CALL = 1,
	BUS_MSG_METHOD_RETURN = 2,
	BUS_MSG_ERROR = 3,
	BUS_MSG_SIGNAL = 4,
};

/* Messages above this size are refused, ours and the bus's. */
#define BUS_MSG_SIZE_MAX (1u << 20)

/* The bus daemon's own name, the sender of its errors (e.g. "no such service"). */
#define BUS_DAEMON_NAME "org.freedesktop.DBus"

/* A message being built: every append sets err on failure and is a no-op once it is set. */
struct bus_msg {
	uint8_t *buf;
	size_t len, cap;
	size_t body_start;
	int err;
};

/*
 * Start a method call: the fixed header and the header fields. The body that follows must
 * match signature (NULL or "" for none). The serial is set when it is sent (bus_call()).
 */
void bus_msg_method_call(struct bus_msg *m, const char *destination, const char *path,
			 const char *interface, const char *member, const char *signature);
/* Set the serial of a built message (after bus_msg_method_call()). */
void bus_msg_set_serial(struct bus_msg *m, uint32_t serial);
void bus_msg_append_string(struct bus_msg *m, const char *s);
void bus_msg_append_u32(struct bus_msg *m, uint32_t v);
void bus_msg_append_bytes(struct bus_msg *m, const void *p, size_t n); /* "ay" */
/* An empty array of elements aligned to element_alignment, e.g. 8 for "a(sv)". */
void bus_msg_append_empty_array(struct bus_msg *m, size_t element_alignment);
/* An "a(sv)" of n properties, names[i] with the value values[i] as a "t" (u64) variant. */
void bus_msg_append_u64_properties(struct bus_msg *m, const char *const *names,
				   const uint64_t *values, size_t n);
/* Patch the body length; 0 or the first append error. */
int bus_msg_finish(struct bus_msg *m);
void bus_msg_done(struct bus_msg *m);

/* What the stage1 reads of a received message. Strings point into the message buffer. */
struct bus_reply {
	enum bus_msg_type type;
	uint32_t reply_serial; /* 0 when absent */
	const char *error_name;
	const char *sender;	   /* NULL when absent; BUS_DAEMON_NAME for the bus itself */
	const char *error_message; /* the body's first string for an error, when it has one */
};

/*
 * Total size of the message whose first 16 bytes are in buf, or -EBADMSG (bad endianness
 * mark, version, or a size over BUS_MSG_SIZE_MAX).
 */
int64_t bus_msg_size(const uint8_t *buf, size_t len);

/*
 * Parse a whole message (len from bus_msg_size()). Strings in *ret point into buf, which must
 * stay alive. -EBADMSG for anything malformed.
 */
int bus_msg_parse(const uint8_t *buf, size_t len, struct bus_reply *ret);
