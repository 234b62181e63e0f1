/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The agent protocol: what `enter` and `stop` on the host say to cc-agent in the guest over
 * vsock (port AGENT_PORT). See docs/stage1.md, "Agent".
 *
 * A stream of frames: le32 type, le32 payload length, payload (at most AGENT_PAYLOAD_MAX).
 * The host sends one request frame (EXEC or STOP) first. For EXEC, the host then sends STDIN,
 * STDIN_EOF and WINCH frames; the guest sends STDOUT and STDERR frames and ends with one EXIT
 * or ERROR frame. STOP is answered with ACCEPTED or ERROR. Each side treats the other as
 * hostile: every decoder checks sizes, counts and characters and fails with -EBADMSG.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AGENT_PORT	    1024
#define AGENT_VERSION	    1
#define AGENT_HEADER_SIZE   8
#define AGENT_PAYLOAD_MAX   65536
#define AGENT_ARGC_MAX	    1024
#define AGENT_APP_NAME_MAX  255
#define AGENT_TERM_MAX	    64
#define AGENT_ERROR_MSG_MAX 1024

/* EXEC flags. */
#define AGENT_EXEC_TTY 0x1u

enum agent_type {
	AGENT_EXEC = 1,	     /* host: run a command in an app (struct agent_exec) */
	AGENT_STOP = 2,	     /* host: stop the pod (le32 version) */
	AGENT_STDIN = 3,     /* host: bytes for the command's stdin */
	AGENT_STDIN_EOF = 4, /* host: stdin is at its end (empty) */
	AGENT_STDOUT = 5,    /* guest: the command's stdout (or the pty) */
	AGENT_STDERR = 6,    /* guest: the command's stderr */
	AGENT_WINCH = 7,     /* host: window size (le16 rows, le16 cols) */
	AGENT_EXIT = 8,	     /* guest: the command ended (le32 code 0..255) */
	AGENT_ACCEPTED = 9,  /* guest: the STOP request is under way (empty) */
	AGENT_ERROR = 10,    /* guest: the request failed (le32 code, message) */
};

struct agent_frame {
	uint32_t type;
	uint32_t len;
	const uint8_t *payload;
};

/*
 * Parse the frame at the start of buf. Returns 1 with *ret pointing into buf and
 * *ret_consumed set, 0 when buf holds only part of a frame, -EBADMSG for an unknown type or a
 * payload length not allowed for the type, -EINVAL for bad arguments.
 */
int agent_frame_parse(const void *buf, size_t len, struct agent_frame *ret, size_t *ret_consumed);

/* Write a frame header. -EINVAL for an unknown type, -EMSGSIZE for len > AGENT_PAYLOAD_MAX. */
int agent_frame_header(uint8_t hdr[AGENT_HEADER_SIZE], uint32_t type, size_t len);

struct agent_exec {
	char *app;  /* [a-z0-9-], 1..AGENT_APP_NAME_MAX, not starting or ending with '-' */
	char *term; /* TERM for the pty ([A-Za-z0-9._+-]{0,64}); "" when none */
	bool tty;
	uint16_t rows, cols;
	size_t argc; /* 1..AGENT_ARGC_MAX */
	char **argv; /* argc strings, NULL-terminated; argv[0] not empty */
};

/* Encode an EXEC request as a whole frame (header included) in a new buffer. */
int agent_exec_encode(const struct agent_exec *e, uint8_t **ret_buf, size_t *ret_len);
/* Decode an EXEC payload into newly allocated strings. */
int agent_exec_decode(const uint8_t *p, size_t len, struct agent_exec *ret);
void agent_exec_done(struct agent_exec *e);

bool agent_app_name_is_valid(const char *name);

/* Fixed-size payloads. */
int agent_u32_decode(const struct agent_frame *f, uint32_t *ret);
void agent_u32_encode(uint8_t out[4], uint32_t v);
int agent_winch_decode(const struct agent_frame *f, uint16_t *ret_rows, uint16_t *ret_cols);
void agent_winch_encode(uint8_t out[4], uint16_t rows, uint16_t cols);
/* EXIT: a code above 255 is -EBADMSG. */
int agent_exit_decode(const struct agent_frame *f, int *ret_code);

/*
 * ERROR: le32 code (0..255, the exit status the host should report) then 1..AGENT_ERROR_MSG_MAX
 * bytes of printable text (no control characters: the host prints it on a terminal).
 * encode replaces control characters of msg with '?' and truncates it.
 */
int agent_error_encode(uint8_t *out, size_t out_size, int code, const char *msg, size_t *ret_len);
int agent_error_decode(const struct agent_frame *f, int *ret_code, char **ret_msg);
