/* SPDX-License-Identifier: Apache-2.0 */
/* The worker's side of fs-broker.h: one request, one reply, descriptors both ways. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "9p/fs-broker.h"

int fsb_call(int sock, const struct fsb_req *q, const int *fds, unsigned n_fds, const char *name,
	     const char *name2, const void *value, int *ret_fds, unsigned *ret_n_fds, void *data,
	     size_t data_cap)
{
	struct fsb_req h = *q;
	struct fsb_resp a;
	size_t l1 = name ? strlen(name) : 0, l2 = name2 ? strlen(name2) : 0;
	bool truncated;
	ssize_t n;
	int r = 0;

	*ret_n_fds = 0;
	if (n_fds > FSB_FDS_MAX || l1 > FSB_NAME_MAX || l2 > FSB_NAME2_MAX ||
	    q->value_len > FSB_VALUE_MAX)
		return -ENAMETOOLONG;
	h.name_len = (uint32_t) l1;
	h.name2_len = (uint32_t) l2;
	if (!value)
		h.value_len = 0;
	r = fsb_send(sock,
		     (struct iovec[]){{&h, sizeof(h)},
				      {(void *) name, l1},
				      {(void *) name2, l2},
				      {(void *) value, h.value_len}},
		     4, fds, n_fds);
	if (r < 0)
		return r == -ECONNRESET ? -EPIPE : r;
	n = fsb_recv_fds(sock, (struct iovec[]){{&a, sizeof(a)}, {data, data ? data_cap : 0}}, 2,
			 ret_fds, ret_n_fds, &truncated);
	if (n < 0)
		return n == -ECONNRESET ? -EPIPE : (int) n;
	if (n == 0)
		r = -EPIPE;
	else if ((size_t) n < sizeof(a) || truncated || (size_t) n != sizeof(a) + a.data_len ||
		 a.n_fds != *ret_n_fds)
		r = -EIO;
	if (r < 0) {
		for (unsigned i = 0; i < *ret_n_fds; i++)
			(void) close(ret_fds[i]);
		*ret_n_fds = 0;
		return r;
	}
	return a.result;
}
