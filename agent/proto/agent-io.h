/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Frames over a stream socket (both ends of the agent protocol). */

#include <stddef.h>
#include <stdint.h>

#include "agent-proto.h"
#include "cc/macro.h"

/* Send one frame (header and payload), retrying short writes; MSG_NOSIGNAL. */
int agent_send(int fd, uint32_t type, const void *payload, size_t len);
/* Send bytes that already form whole frames. */
int agent_send_raw(int fd, const void *buf, size_t len);

/* Buffered frame reader. */
struct agent_reader {
	uint8_t *buf; /* AGENT_HEADER_SIZE + AGENT_PAYLOAD_MAX bytes */
	size_t len;
	size_t consumed; /* bytes of the frame last returned, dropped on the next call */
	bool eof;
};

int agent_reader_init(struct agent_reader *r);
void agent_reader_done(struct agent_reader *r);

/*
 * The next whole frame already buffered: 1 with *ret (valid until the next call), 0 when more
 * bytes are needed (at EOF, check r->eof), -EBADMSG.
 */
int agent_reader_next(struct agent_reader *r, struct agent_frame *ret);

/* One read(2) into the buffer: > 0 bytes read, 0 at EOF (r->eof set), negative errno
 * (-EAGAIN for a non-blocking socket with nothing to read). */
int agent_reader_fill(struct agent_reader *r, int fd);

/*
 * Block until a whole frame is in (poll with timeout_ms, -1 for none, per read).
 * -ECONNRESET when the peer closed first (between or inside frames), -ETIMEDOUT, -EBADMSG.
 */
int agent_reader_wait(struct agent_reader *r, int fd, int timeout_ms, struct agent_frame *ret);
