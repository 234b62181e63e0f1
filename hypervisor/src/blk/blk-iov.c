/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdint.h>

#include "blk/blk-iov.h"
#include "cc/macro.h"

int blk_iov_slice(const struct iovec *src, unsigned n, size_t off, size_t len, struct iovec *dst,
		  unsigned dst_max)
{
	unsigned k = 0;

	for (unsigned i = 0; i < n && len > 0; i++) {
		size_t chunk;

		if (off >= src[i].iov_len) {
			off -= src[i].iov_len;
			continue;
		}
		if (k >= dst_max)
			return -E2BIG;
		chunk = MIN(src[i].iov_len - off, len);
		dst[k++] = (struct iovec){
			.iov_base = (uint8_t *) src[i].iov_base + off,
			.iov_len = chunk,
		};
		len -= chunk;
		off = 0;
	}
	return len > 0 ? -ERANGE : (int) k;
}

unsigned blk_iov_advance(struct iovec *iov, unsigned n, size_t len)
{
	unsigned i = 0;

	while (i < n && len >= iov[i].iov_len) {
		len -= iov[i].iov_len;
		i++;
	}
	if (i < n) {
		iov[i].iov_base = (uint8_t *) iov[i].iov_base + len;
		iov[i].iov_len -= len;
	}
	for (unsigned j = i; j < n; j++)
		iov[j - i] = iov[j];
	return n - i;
}
