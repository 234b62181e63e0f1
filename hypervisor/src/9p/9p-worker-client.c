/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The VMM's side of the 9p worker (9p-worker.h): fork it, read its hello, then one framed
 * request and reply per call. The worker is the more trusted of the two, but its reply still
 * has to fit what was asked for.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "9p/9p-wire.h"
#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "cc/log.h"

struct p9_worker {
	pid_t pid;
	int sock;
	bool gone; /* the worker broke a frame or went away: every call fails from then on */
	pthread_mutex_t lock;
};

pid_t p9_worker_pid(const struct p9_worker *w)
{
	return w ? w->pid : -1;
}

struct p9_worker *p9_worker_free(struct p9_worker *w)
{
	if (!w)
		return NULL;
	w->sock = safe_close(w->sock);
	/* It exits on EOF: between calls it is waiting for the next frame, and no call is in
	 * flight once the VM's threads are gone. (The VMM may not kill: its filter has no kill.) */
	if (w->pid > 0)
		(void) waitpid(w->pid, NULL, 0);
	pthread_mutex_destroy(&w->lock);
	free(w);
	return NULL;
}

/* The hello: the sandbox's result and one result per export. */
static int p9_worker_read_hello(struct p9_worker *w, unsigned n, struct p9_export_result *results)
{
	struct p9_wire_hello h;
	struct p9_wire_result res[P9_WORKER_EXPORTS_MAX];
	ssize_t k;

	k = loop_read(w->sock, &h, sizeof(h));
	if (k < 0)
		return (int) k;
	if ((size_t) k != sizeof(h))
		return -ECHILD;
	if (h.error < 0)
		return h.error;
	if (h.n != n)
		return -EBADMSG;
	k = loop_read(w->sock, res, n * sizeof(*res));
	if (k < 0)
		return (int) k;
	if ((size_t) k != n * sizeof(*res))
		return -ECHILD;
	for (unsigned i = 0; i < n; i++) {
		if (res[i].error > 0 || res[i].hostvol < P9_EXPORT_HOSTVOL_ROOT)
			return -EBADMSG;
		results[i] = (struct p9_export_result){res[i].error, res[i].hostvol};
	}
	return 0;
}

int p9_worker_start(const struct p9_export *exports, unsigned n, p9_worker_enter_fn enter,
		    void *userdata, struct p9_worker **ret, struct p9_export_result *results)
{
	_cleanup_(p9_worker_freep) struct p9_worker *w = NULL;
	int sv[2], r;
	pid_t parent = getpid();

	assert_return((exports || n == 0) && n <= P9_WORKER_EXPORTS_MAX && ret && results, -EINVAL);
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->sock = -1;
	pthread_mutex_init(&w->lock, NULL);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	w->pid = fork();
	if (w->pid < 0) {
		r = -errno;
		safe_close(sv[0]);
		safe_close(sv[1]);
		return r;
	}
	if (w->pid == 0) {
		(void) close(sv[0]);
		p9_worker_main(sv[1], parent, exports, n, enter, userdata);
	}
	(void) close(sv[1]);
	w->sock = sv[0];
	r = p9_worker_read_hello(w, n, results);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(w);
	return 0;
}

static int p9_worker_send(int sock, struct iovec *iov, int n_iov)
{
	struct msghdr m = {.msg_iov = iov, .msg_iovlen = (size_t) n_iov};

	while (m.msg_iovlen > 0) {
		ssize_t k = sendmsg(sock, &m, MSG_NOSIGNAL);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		/* Skip what went out. */
		while (m.msg_iovlen > 0 && (size_t) k >= m.msg_iov->iov_len) {
			k -= (ssize_t) m.msg_iov->iov_len;
			m.msg_iov++;
			m.msg_iovlen--;
		}
		if (m.msg_iovlen > 0) {
			m.msg_iov->iov_base = (uint8_t *) m.msg_iov->iov_base + k;
			m.msg_iov->iov_len -= (size_t) k;
		}
	}
	return 0;
}

static ssize_t p9_worker_exchange(struct p9_worker *w, unsigned i, bool reset, const void *req,
				  size_t len, void *resp, size_t resp_cap)
{
	struct p9_wire_req q = {
		.export = i,
		.flags = reset ? P9_WIRE_RESET : 0,
		.len = (uint32_t) len,
		.resp_cap = (uint32_t) resp_cap,
	};
	struct iovec iov[2] = {{&q, sizeof(q)}, {(void *) req, len}};
	struct p9_wire_resp a;
	ssize_t k;
	int r;

	r = p9_worker_send(w->sock, iov, len ? 2 : 1);
	if (r < 0)
		return r;
	k = loop_read(w->sock, &a, sizeof(a));
	if (k < 0)
		return k;
	if ((size_t) k != sizeof(a))
		return -EPIPE;
	if (a.len > resp_cap)
		return -EBADMSG;
	k = loop_read(w->sock, resp, a.len);
	if (k < 0)
		return k;
	return (size_t) k == a.len ? k : -EPIPE;
}

ssize_t p9_worker_call(struct p9_worker *w, unsigned i, bool reset, const void *req, size_t len,
		       void *resp, size_t resp_cap)
{
	ssize_t r = -EPIPE;

	assert_return(w && len <= P9_MSIZE_MAX && resp_cap <= P9_MSIZE_MAX, -EINVAL);
	pthread_mutex_lock(&w->lock);
	if (!w->gone) {
		r = p9_worker_exchange(w, i, reset, req, len, resp, resp_cap);
		if (r < 0) {
			log_error_errno(r, "9p worker (pid %d) is gone: every 9p request fails: %m",
					(int) w->pid);
			w->gone = true;
			r = -EPIPE;
		}
	}
	pthread_mutex_unlock(&w->lock);
	return r;
}
