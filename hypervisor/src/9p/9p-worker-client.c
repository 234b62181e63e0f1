/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The VMM's side of the 9p worker (9p-worker.h): map the shared areas, fork the worker, read
 * its hello, then one message each way per request. The worker is the more trusted of the two,
 * but its reply still has to fit what was asked for.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "9p/9p-wire.h"
#include "cc/cleanup.h"
#include "cc/log.h"

struct p9_worker {
	pid_t pid;
	int sock;
	unsigned n;
	uint8_t *shm; /* 2n areas of P9_WIRE_AREA bytes */
	size_t shm_size;
	bool gone; /* the worker broke a message or went away: every call fails from then on */
	pthread_mutex_t lock;
};

pid_t p9_worker_pid(const struct p9_worker *w)
{
	return w ? w->pid : -1;
}

uint8_t *p9_worker_req(struct p9_worker *w, unsigned i)
{
	return w && i < w->n ? w->shm + P9_WIRE_AREA * 2 * i : NULL;
}

uint8_t *p9_worker_resp(struct p9_worker *w, unsigned i)
{
	return w && i < w->n ? w->shm + P9_WIRE_AREA * (2 * i + 1) : NULL;
}

struct p9_worker *p9_worker_free(struct p9_worker *w)
{
	if (!w)
		return NULL;
	w->sock = safe_close(w->sock);
	/* It exits on EOF: between calls it is waiting for the next message, and no call is in
	 * flight once the VM's threads are gone. (The VMM may not kill: its filter has no kill.) */
	if (w->pid > 0)
		(void) waitpid(w->pid, NULL, 0);
	if (w->shm)
		(void) munmap(w->shm, w->shm_size);
	pthread_mutex_destroy(&w->lock);
	free(w);
	return NULL;
}

/*
 * The shared areas: a memfd of 2n areas, sealed at that size (neither side can shrink it under
 * the other's feet, which would make its next access a SIGBUS), mapped once; the fd is closed,
 * so the mapping is the only way to it.
 */
static int p9_worker_map(struct p9_worker *w)
{
	_cleanup_close_ int fd = -1;
	void *p;

	w->shm_size = P9_WIRE_AREA * 2 * w->n;
	fd = memfd_create("cc-vmm-9p", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t) w->shm_size) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0)
		return -errno;
	p = mmap(NULL, w->shm_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	(void) madvise(p, w->shm_size, MADV_NOHUGEPAGE);
	w->shm = p;
	return 0;
}

static ssize_t p9_worker_recv(int sock, void *buf, size_t len)
{
	ssize_t n;

	do
		n = recv(sock, buf, len, 0);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

static int p9_worker_send(int sock, const void *buf, size_t len)
{
	ssize_t n;

	do
		n = send(sock, buf, len, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return (size_t) n == len ? 0 : -EPIPE;
}

/* The hello: the sandbox's result and one result per export. */
static int p9_worker_read_hello(struct p9_worker *w, struct p9_export_result *results)
{
	struct p9_wire_hello h;
	ssize_t k = p9_worker_recv(w->sock, &h, sizeof(h));

	if (k < 0)
		return (int) k;
	if ((size_t) k != sizeof(h))
		return -ECHILD; /* gone before its hello (0: EOF) */
	if (h.error < 0)
		return h.error;
	if (h.n != w->n)
		return -EBADMSG;
	for (unsigned i = 0; i < w->n; i++) {
		if (h.res[i].error > 0 || h.res[i].hostvol < P9_EXPORT_HOSTVOL_ROOT)
			return -EBADMSG;
		results[i] = (struct p9_export_result){h.res[i].error, h.res[i].hostvol};
	}
	return 0;
}

int p9_worker_start(const struct p9_export *exports, unsigned n, p9_worker_enter_fn enter,
		    void *userdata, struct p9_worker **ret, struct p9_export_result *results)
{
	_cleanup_(p9_worker_freep) struct p9_worker *w = NULL;
	int sv[2], r;
	pid_t parent = getpid();

	assert_return(exports && n > 0 && n <= P9_WORKER_EXPORTS_MAX && ret && results, -EINVAL);
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->sock = -1;
	w->n = n;
	pthread_mutex_init(&w->lock, NULL);
	r = p9_worker_map(w);
	if (r < 0)
		return r;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
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
		p9_worker_main(sv[1], parent, w->shm, exports, n, enter, userdata);
	}
	(void) close(sv[1]);
	w->sock = sv[0];
	r = p9_worker_read_hello(w, results);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(w);
	return 0;
}

static ssize_t p9_worker_exchange(struct p9_worker *w, unsigned i, bool reset, size_t len,
				  size_t resp_cap)
{
	struct p9_wire_req q = {
		.export = i,
		.flags = reset ? P9_WIRE_RESET : 0,
		.len = (uint32_t) len,
		.resp_cap = (uint32_t) resp_cap,
	};
	struct p9_wire_resp a;
	ssize_t k;
	int r;

	r = p9_worker_send(w->sock, &q, sizeof(q));
	if (r < 0)
		return r;
	k = p9_worker_recv(w->sock, &a, sizeof(a));
	if (k < 0)
		return k;
	if ((size_t) k != sizeof(a))
		return -EPIPE;
	return a.len <= resp_cap ? (ssize_t) a.len : -EBADMSG;
}

ssize_t p9_worker_call(struct p9_worker *w, unsigned i, bool reset, size_t len, size_t resp_cap)
{
	ssize_t r = -EPIPE;

	assert_return(w && i < w->n && len <= P9_MSIZE_MAX && resp_cap <= P9_MSIZE_MAX, -EINVAL);
	pthread_mutex_lock(&w->lock);
	if (!w->gone) {
		r = p9_worker_exchange(w, i, reset, len, resp_cap);
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
