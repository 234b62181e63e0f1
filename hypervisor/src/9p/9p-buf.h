/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * A 9p bounce buffer (the request gathered from the chain, or the reply before it is scattered)
 * that can give its pages back. It is an anonymous mapping of the largest msize, faulted in as
 * messages touch it: a Tread or Twrite of one msize leaves that much resident in the VMM for
 * good, per buffer and per share. p9_buf_trim() returns everything above a small working set
 * to the host; 9p-dev.c calls it once the device has been idle for a while.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct p9_buf {
	uint8_t *p;
	size_t size; /* mapped bytes, whole pages */
	size_t hi; /* bytes from p that may be resident: the largest message since the last trim */
	bool shared; /* p is part of a shared mapping we do not own (p9_buf_init_shared()) */
};

/* Maps size bytes (rounded up to pages), nothing resident yet. */
int p9_buf_init(struct p9_buf *b, size_t size);
/* A buffer over size bytes (whole pages) of a shared memory mapping the caller keeps: a trim
 * gives its pages back to the file (MADV_REMOVE), freeing leaves the mapping alone. */
void p9_buf_init_shared(struct p9_buf *b, void *p, size_t size);
/* A message of len bytes went through the buffer. */
void p9_buf_used(struct p9_buf *b, size_t len);
/* Gives the pages above keep (rounded up to a page) back to the host; they read as zeros
 * afterwards. Returns the bytes released from the high-water mark, 0 if nothing was above
 * keep. */
size_t p9_buf_trim(struct p9_buf *b, size_t keep);
void p9_buf_free(struct p9_buf *b);
