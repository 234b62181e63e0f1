/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The VMM's side of the 9p worker (9p-worker.h): map the shared areas, fork the worker, read
 * its hello, then one message each way per request. The worker is the more trusted of the two,
 * but its reply still has to fit what was asked for.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "9p/9p-wire.h"
#include "cc/cleanup.h"
#include "cc/log.h"

struct p9_worker {
	pid_t pid;
	int pidfd; /* to wait for its end with a timeout: the VMM may not kill it */
	int sock;
	int shm_fd; /* until the worker has it */
	unsigned n;
	uint8_t *shm; /* 2n areas of P9_WIRE_AREA bytes */
	size_t shm_size;
	bool gone; /* the worker broke a message or went away: every call fails from then on */
	void (*on_gone)(void *userdata);
	void *on_gone_userdata;
	pthread_mutex_t lock;
};

/* How long teardown waits for the worker to exit after the socket closed. */
#define P9_WORKER_EXIT_WAIT_MS 1000

pid_t p9_worker_pid(const struct p9_worker *w)
{
	return w ? w->pid : -1;
}

int p9_worker_fd(const struct p9_worker *w)
{
	return w ? w->sock : -1;
}

void p9_worker_on_gone(struct p9_worker *w, void (*fn)(void *userdata), void *userdata)
{
	pthread_mutex_lock(&w->lock);
	w->on_gone = fn;
	w->on_gone_userdata = userdata;
	pthread_mutex_unlock(&w->lock);
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
	w->shm_fd = safe_close(w->shm_fd);
	/*
	 * It exits on EOF: between calls it is waiting for the next message, and no call is in
	 * flight once the VM's threads are gone. One stopped or stuck in a host call is not waited
	 * for beyond a second (the VMM may not kill: its filter has no kill); its parent-death
	 * signal ends it with the VMM.
	 */
	if (w->pid > 0 && w->pidfd >= 0) {
		struct pollfd p = {.fd = w->pidfd, .events = POLLIN};

		while (poll(&p, 1, P9_WORKER_EXIT_WAIT_MS) < 0 && errno == EINTR)
			;
	}
	if (w->pid > 0)
		(void) waitpid(w->pid, NULL, w->pidfd >= 0 ? WNOHANG : 0);
	w->pidfd = safe_close(w->pidfd);
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
	void *p;

	w->shm_size = P9_WIRE_AREA * 2 * w->n;
	w->shm_fd = memfd_create("cc-vmm-9p", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (w->shm_fd < 0)
		return -errno;
	if (ftruncate(w->shm_fd, (off_t) w->shm_size) < 0 ||
	    fcntl(w->shm_fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0)
		return -errno;
	p = mmap(NULL, w->shm_size, PROT_READ | PROT_WRITE, MAP_SHARED, w->shm_fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	(void) madvise(p, w->shm_size, MADV_NOHUGEPAGE);
	w->shm = p;
	return 0;
}

/*
 * In the child: the socket on P9_WORKER_SOCK_FD and the memfd on P9_WORKER_SHM_FD, nothing else
 * above 2 (wherever they were: the VMM may have started with 0-2 closed), then the worker
 * program.
 */
static _Noreturn void p9_worker_exec(int sock, int shm_fd, pid_t parent, char *const *argv)
{
	int s, m;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(127);
	s = fcntl(sock, F_DUPFD_CLOEXEC, P9_WORKER_SHM_FD + 1);
	m = fcntl(shm_fd, F_DUPFD_CLOEXEC, P9_WORKER_SHM_FD + 1);
	if (s < 0 || m < 0 || dup2(s, P9_WORKER_SOCK_FD) < 0 || dup2(m, P9_WORKER_SHM_FD) < 0)
		_exit(127);
	(void) close_range(P9_WORKER_SHM_FD + 1, ~0u, 0);
	execv("/proc/self/exe", argv);
	_exit(127);
}

/* The hello: the sandbox's result and one result per export. */
static int p9_worker_read_hello(struct p9_worker *w, struct p9_export_result *results)
{
	struct p9_wire_hello h;
	ssize_t k = p9_wire_recv(w->sock, &h, sizeof(h));

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

int p9_worker_spawn(const struct p9_export *exports, unsigned n, char *const *exec_argv,
		    p9_worker_enter_fn enter, void *userdata, struct p9_worker **ret)
{
	_cleanup_(p9_worker_freep) struct p9_worker *w = NULL;
	int sv[2], r;
	pid_t parent = getpid();

	assert_return((exports || exec_argv) && n > 0 && n <= P9_WORKER_EXPORTS_MAX && ret,
		      -EINVAL);
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->sock = w->shm_fd = w->pidfd = -1;
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
		if (exec_argv)
			p9_worker_exec(sv[1], w->shm_fd, parent, exec_argv);
		p9_worker_main(sv[1], parent, w->shm, exports, n, enter, userdata);
	}
	(void) close(sv[1]);
	w->shm_fd = safe_close(w->shm_fd);
	w->pidfd = (int) syscall(SYS_pidfd_open, w->pid, 0);
	/* Above 2, even if the VMM started with some of 0-2 closed: its logs go to 2. */
	w->sock = sv[0] > STDERR_FILENO ? sv[0] : fcntl(sv[0], F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
	r = w->sock < 0 ? -errno : 0;
	if (w->sock != sv[0])
		(void) close(sv[0]);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(w);
	return 0;
}

int p9_worker_wait(struct p9_worker *w, struct p9_export_result *results)
{
	assert_return(w && results, -EINVAL);
	return p9_worker_read_hello(w, results);
}

int p9_worker_start(const struct p9_export *exports, unsigned n, char *const *exec_argv,
		    p9_worker_enter_fn enter, void *userdata, struct p9_worker **ret,
		    struct p9_export_result *results)
{
	_cleanup_(p9_worker_freep) struct p9_worker *w = NULL;
	int r;

	assert_return(ret && results, -EINVAL);
	r = p9_worker_spawn(exports, n, exec_argv, enter, userdata, &w);
	if (r >= 0)
		r = p9_worker_wait(w, results);
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

	r = p9_wire_send(w->sock, &q, sizeof(q));
	if (r < 0)
		return r;
	k = p9_wire_recv(w->sock, &a, sizeof(a));
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
			if (w->on_gone)
				w->on_gone(w->on_gone_userdata);
			r = -EPIPE;
		}
	}
	pthread_mutex_unlock(&w->lock);
	return r;
}
