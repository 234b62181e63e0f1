/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target: the agent protocol as either end receives it. The input is a byte stream
 * cut into frames; each frame goes through the decoder of its type. Decoded EXEC requests
 * must encode back to the same bytes (the encoding is canonical), decoded errors must be
 * printable, and nothing may read outside the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent-proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_frame(const struct agent_frame *f)
{
	struct agent_exec e;
	uint16_t rows, cols;
	uint32_t v;
	char *msg;
	int code;

	switch (f->type) {
	case AGENT_EXEC:
		if (agent_exec_decode(f->payload, f->len, &e) == 0) {
			uint8_t *buf = NULL;
			size_t len;

			if (agent_exec_encode(&e, &buf, &len) < 0)
				abort();
			if (len != AGENT_HEADER_SIZE + f->len ||
			    memcmp(buf + AGENT_HEADER_SIZE, f->payload, f->len) != 0)
				abort();
			if (!agent_app_name_is_valid(e.app) || e.argc == 0 || e.argv[e.argc])
				abort();
			free(buf);
			agent_exec_done(&e);
		}
		break;
	case AGENT_ERROR:
		if (agent_error_decode(f, &code, &msg) == 0) {
			for (const char *c = msg; *c; c++)
				if ((unsigned char) *c < 0x20 || *c == 0x7f)
					abort();
			if (code < 0 || code > 255)
				abort();
			free(msg);
		}
		break;
	case AGENT_EXIT:
		if (agent_exit_decode(f, &code) == 0 && (code < 0 || code > 255))
			abort();
		break;
	case AGENT_WINCH:
		(void) agent_winch_decode(f, &rows, &cols);
		break;
	case AGENT_STOP:
		(void) agent_u32_decode(f, &v);
		break;
	default:
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t off = 0;

	while (off < size) {
		struct agent_frame f;
		size_t used;
		int r = agent_frame_parse(data + off, size - off, &f, &used);

		if (r <= 0)
			break;
		if (used < AGENT_HEADER_SIZE || used > size - off ||
		    used != AGENT_HEADER_SIZE + (size_t) f.len)
			abort();
		fuzz_frame(&f);
		off += used;
	}
	return 0;
}
