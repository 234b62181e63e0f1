/* SPDX-License-Identifier: Apache-2.0 */
/*
 * 9p-worker-cost: what the 9p worker (hypervisor/src/9p/9p-worker.h) adds to each 9P request,
 * natively on this machine (no VM, no KVM): the same requests against a server in this process
 * (what the VMM did before the worker) and against a worker process (what the sandboxed VMM does
 * now), interleaved in rounds so that both see the same load.
 *
 *   bench-9p-worker-cost [--rounds N] [--requests N]
 *
 * Per round and kind: --requests Tgetattr of one file, then --requests/4 Tread of 64 KiB of it,
 * then --requests/4 Tmkdir and Tunlinkat of a directory, in turn (with the worker, these two go
 * through its broker: docs/9p.md, "The broker"); the figure of a round is the mean time per
 * request in microseconds. Prints a table of the medians over the rounds and, last,
 *   inproc_getattr_us=.. worker_getattr_us=.. getattr_ratio=.. inproc_read64k_us=..
 *   worker_read64k_us=.. read64k_ratio=.. inproc_mkdir_unlink_us=.. worker_mkdir_unlink_us=..
 *   mkdir_unlink_ratio=..
 * (ratio = worker / in-process). Exit status 0 when every request succeeded.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "9p/9p-pdu.h"
#include "9p/9p-worker.h"
#include "9p/9p.h"

#define MAX_ROUNDS 101
#define READ_SIZE  65536u

struct target {
	struct p9_server *srv;
	struct p9_worker *w;
	uint8_t *req, *resp;
	uint16_t tag;
};

/* One request through t: the reply's type, or -1. */
static int call(struct target *t, struct p9_out *o, uint8_t type)
{
	struct p9_in in;
	uint8_t rtype;
	uint16_t rtag;
	int len = p9_out_finish(o, type, ++t->tag);
	ssize_t n;

	if (len < 0)
		return -1;
	/* As the device does: the request is gathered into the buffer, the reply read from it. */
	if (t->srv)
		n = (ssize_t) p9_server_handle(t->srv, t->req, (size_t) len, t->resp, P9_MSIZE_MAX);
	else
		n = p9_worker_call(t->w, 0, false, (size_t) len, P9_MSIZE_MAX);
	if (n <= 0)
		return -1;
	p9_in_init(&in, t->resp, (size_t) n);
	if (p9_get_header(&in, &rtype, &rtag) < 0 || rtag != t->tag)
		return -1;
	return rtype;
}

static struct p9_out *begin(struct target *t)
{
	static struct p9_out o;

	p9_out_init(&o, t->req, P9_MSIZE_MAX);
	return &o;
}

/* Tversion, Tattach fid 0, walk fid 1 to "f", open it for reading. */
static int session(struct target *t)
{
	struct p9_out *o = begin(t);

	p9_put_u32(o, P9_MSIZE_MAX);
	p9_put_str(o, "9P2000.L");
	if (call(t, o, P9_TVERSION) != P9_TVERSION + 1)
		return -1;
	o = begin(t);
	p9_put_u32(o, 0);
	p9_put_u32(o, ~0u);
	p9_put_str(o, "bench");
	p9_put_str(o, "");
	p9_put_u32(o, 0);
	if (call(t, o, P9_TATTACH) != P9_TATTACH + 1)
		return -1;
	o = begin(t);
	p9_put_u32(o, 0);
	p9_put_u32(o, 1);
	p9_put_u16(o, 1);
	p9_put_str(o, "f");
	if (call(t, o, P9_TWALK) != P9_TWALK + 1)
		return -1;
	o = begin(t);
	p9_put_u32(o, 1);
	p9_put_u32(o, 0); /* O_RDONLY */
	return call(t, o, P9_TLOPEN) == P9_TLOPEN + 1 ? 0 : -1;
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec * 1e6 + (double) ts.tv_nsec / 1e3;
}

enum kind {
	GETATTR,
	READ64K,
	MKDIR_UNLINK,
	_KINDS
};

/* Mean microseconds per request of n requests of one kind. */
static double run(struct target *t, enum kind kind, int n)
{
	double t0 = now_us();

	for (int i = 0; i < n; i++) {
		struct p9_out *o = begin(t);

		if (kind == MKDIR_UNLINK) {
			/* fid 0 is the export's root: mkdir d, then unlinkat d, in turn */
			p9_put_u32(o, 0);
			p9_put_str(o, "d");
			if (i % 2 == 0) {
				p9_put_u32(o, 0755);
				p9_put_u32(o, 0);
				if (call(t, o, P9_TMKDIR) != P9_TMKDIR + 1)
					return -1;
			} else {
				p9_put_u32(o, 0x200); /* AT_REMOVEDIR */
				if (call(t, o, P9_TUNLINKAT) != P9_TUNLINKAT + 1)
					return -1;
			}
			continue;
		}
		p9_put_u32(o, 1);
		if (kind == GETATTR) {
			p9_put_u64(o, 0x3fff);
			if (call(t, o, P9_TGETATTR) != P9_TGETATTR + 1)
				return -1;
		} else {
			p9_put_u64(o, 0);
			p9_put_u32(o, READ_SIZE);
			if (call(t, o, P9_TREAD) != P9_TREAD + 1)
				return -1;
		}
	}
	return (now_us() - t0) / n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *) a, y = *(const double *) b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t) n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {{"rounds", required_argument, NULL, 'r'},
						 {"requests", required_argument, NULL, 'n'},
						 {}};
	char dir[] = "/tmp/bench-9p-worker.XXXXXX", path[64];
	struct target in = {0}, wk = {0};
	double fig[2 * _KINDS][MAX_ROUNDS];
	int rounds = 11, n = 2000, c, fd, ok = 1;
	static uint8_t block[READ_SIZE];

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c == 'r')
			rounds = atoi(optarg);
		else if (c == 'n')
			n = atoi(optarg);
		else
			return 2;
	}
	if (rounds < 1 || rounds > MAX_ROUNDS || n < 1) {
		fprintf(stderr, "bench-9p-worker-cost: --rounds 1..%d, --requests >= 1\n",
			MAX_ROUNDS);
		return 2;
	}
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/f", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, block, sizeof(block)) != (ssize_t) sizeof(block))
		return 1;
	close(fd);
	{
		struct p9_export e = {.dir = dir};
		struct p9_export_result res;

		in.req = malloc(P9_MSIZE_MAX);
		in.resp = malloc(P9_MSIZE_MAX);
		if (!in.req || !in.resp || p9_server_new(dir, false, &in.srv) < 0 ||
		    p9_worker_start(&e, 1, NULL, NULL, NULL, &wk.w, &res) < 0 || res.error < 0) {
			fprintf(stderr, "bench-9p-worker-cost: setup failed\n");
			return 1;
		}
		wk.req = p9_worker_req(wk.w, 0);
		wk.resp = p9_worker_resp(wk.w, 0);
		if (session(&in) < 0 || session(&wk) < 0) {
			fprintf(stderr, "bench-9p-worker-cost: setup failed\n");
			return 1;
		}
	}
	for (int r = 0; r < rounds; r++) {
		fig[0][r] = run(&in, GETATTR, n);
		fig[1][r] = run(&wk, GETATTR, n);
		fig[2][r] = run(&in, READ64K, n / 4 + 1);
		fig[3][r] = run(&wk, READ64K, n / 4 + 1);
		/* an even count: every mkdir has its unlink */
		fig[4][r] = run(&in, MKDIR_UNLINK, 2 * (n / 8 + 1));
		fig[5][r] = run(&wk, MKDIR_UNLINK, 2 * (n / 8 + 1));
		for (int k = 0; k < 2 * _KINDS; k++)
			ok &= fig[k][r] > 0;
	}
	if (!ok) {
		fprintf(stderr, "bench-9p-worker-cost: a request failed\n");
		return 1;
	}
	{
		double ig = median(fig[0], rounds), wg = median(fig[1], rounds);
		double ir = median(fig[2], rounds), wr = median(fig[3], rounds);
		double im = median(fig[4], rounds), wm = median(fig[5], rounds);

		printf("9P request cost, median of %d rounds, microseconds per request\n", rounds);
		printf("  %-28s %10s %10s %8s\n", "", "in-process", "worker", "ratio");
		printf("  %-28s %10.2f %10.2f %8.2f\n", "Tgetattr", ig, wg, wg / ig);
		printf("  %-28s %10.2f %10.2f %8.2f\n", "Tread 64 KiB", ir, wr, wr / ir);
		printf("  %-28s %10.2f %10.2f %8.2f\n", "Tmkdir/Tunlinkat (broker)", im, wm,
		       wm / im);
		printf("inproc_getattr_us=%.2f worker_getattr_us=%.2f getattr_ratio=%.2f "
		       "inproc_read64k_us=%.2f worker_read64k_us=%.2f read64k_ratio=%.2f "
		       "inproc_mkdir_unlink_us=%.2f worker_mkdir_unlink_us=%.2f "
		       "mkdir_unlink_ratio=%.2f\n",
		       ig, wg, wg / ig, ir, wr, wr / ir, im, wm, wm / im);
	}
	p9_server_free(in.srv);
	p9_worker_free(wk.w);
	unlink(path);
	rmdir(dir);
	return 0;
}
