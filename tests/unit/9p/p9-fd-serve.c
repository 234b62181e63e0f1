/* SPDX-License-Identifier: Apache-2.0 */
/*
 * p9-fd-serve DIR [ro]: serve 9P2000.L for DIR on stdin/stdout (one socket), for Linux's
 * v9fs client with trans=fd. Test tool only: it lets tests/unit/9p/v9fs-fd-check run the real
 * kernel client against our server without a VMM. Requests are served one at a time, in
 * order; exits 0 when the client hangs up.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "9p/9p.h"
#include "cc/fileio.h"

static int read_exact(int fd, void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = read(fd, (char *) buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n == 0 && done == 0 ? 0 : -EIO;
		done += (size_t) n;
	}
	return 1;
}

int main(int argc, char **argv)
{
	struct p9_server *srv;
	struct rlimit rl;
	uint8_t *req, *resp;
	int r;

	if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "ro") != 0)) {
		fprintf(stderr, "usage: %s DIR [ro]\n", argv[0]);
		return 2;
	}
	/* As the VMM does: the server holds a descriptor per walked file (docs/9p.md). */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void) setrlimit(RLIMIT_NOFILE, &rl);
	}
	r = p9_server_new(argv[1], argc == 3, &srv);
	if (r < 0) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(-r));
		return 1;
	}
	req = malloc(P9_MSIZE_MAX);
	resp = malloc(P9_MSIZE_MAX);
	if (!req || !resp)
		return 1;
	for (;;) {
		uint32_t size;
		size_t n;

		r = read_exact(STDIN_FILENO, req, 4);
		if (r <= 0)
			break;
		size = (uint32_t) req[0] | (uint32_t) req[1] << 8 | (uint32_t) req[2] << 16 |
		       (uint32_t) req[3] << 24;
		if (size < 7 || size > P9_MSIZE_MAX) {
			fprintf(stderr, "p9-fd-serve: bad message size %u\n", size);
			r = -EBADMSG;
			break;
		}
		r = read_exact(STDIN_FILENO, req + 4, size - 4);
		if (r <= 0) {
			r = -EIO;
			break;
		}
		n = p9_server_handle(srv, req, size, resp, P9_MSIZE_MAX);
		if (n > 0 && loop_write(STDOUT_FILENO, resp, n) < 0) {
			r = -EIO;
			break;
		}
	}
	p9_server_free(srv);
	free(req);
	free(resp);
	return r < 0 ? 1 : 0;
}
