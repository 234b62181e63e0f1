/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

#include <stddef.h>
#include <sys/uio.h>

/*
 * Describe bytes [off, off+len) of src (n entries) in dst (at most dst_max entries), without
 * copying data. Returns the number of dst entries, or -ERANGE if src holds fewer than off+len
 * bytes, or -E2BIG if dst is too small.
 */
int blk_iov_slice(const struct iovec *src, unsigned n, size_t off, size_t len, struct iovec *dst,
		  unsigned dst_max);

/* Drop the first len bytes of iov (n entries) in place; returns the new count. */
unsigned blk_iov_advance(struct iovec *iov, unsigned n, size_t len);
