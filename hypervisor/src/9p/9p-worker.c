/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The 9p worker process (9p-worker.h): opens the exports, enters its sandbox, then serves one
 * request at a time until the VMM closes the socket. Every message and every byte of a shared
 * area is the VMM's word, and the VMM may be the guest's: sizes are checked before anything is
 * read, and the request is copied into the worker's own buffer, never parsed in place where the
 * VMM could change it underneath.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "9p/9p-dev.h"
#include "9p/9p-worker-internal.h"
#include "cc/cleanup.h"
#include "cc/log.h"

/*
 * Only the socket stays beside 0-2: the VMM's other descriptors (the pod lock, taps, consoles)
 * are none of the worker's business. The socket goes to P9_WORKER_SOCK_FD, close-on-exec as
 * the socketpair made it (the sandbox closes inherited fds that are not), wherever it was
 * (even 0-2, if the VMM started with those closed).
 */
static int p9_worker_fds(int sock)
{
	int tmp = sock;

	if (sock != P9_WORKER_SOCK_FD) {
		tmp = fcntl(sock, F_DUPFD_CLOEXEC, P9_WORKER_SOCK_FD + 1);
		if (tmp < 0 || dup3(tmp, P9_WORKER_SOCK_FD, O_CLOEXEC) < 0)
			return -errno;
	}
	if (close_range(P9_WORKER_SOCK_FD + 1, ~0u, 0) < 0)
		return -errno;
	if (sock < P9_WORKER_SOCK_FD)
		(void) close(sock);
	return 0;
}

/* Signals for a terminal or a process group are the VMM's: the worker ends with it (EOF, or
 * its parent-death signal), never on its own. */
static void p9_worker_signals(void)
{
	static const int ignored[] = {SIGINT,  SIGTERM, SIGHUP,	 SIGQUIT,
				      SIGTSTP, SIGTTIN, SIGTTOU, SIGPIPE};
	struct sigaction sa = {.sa_handler = SIG_IGN};

	for (unsigned i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		(void) sigaction(ignored[i], &sa, NULL);
}

static int p9_worker_open(const struct p9_export *e, struct p9_server **ret,
			  struct p9_wire_result *res)
{
	_cleanup_(p9_server_freep) struct p9_server *srv = NULL;
	int r;

	res->hostvol = P9_EXPORT_HOSTVOL_DIR;
	r = p9_server_new(e->dir, e->read_only, &srv);
	if (r >= 0 && e->hostvol_root) {
		r = p9_server_add_hostvol_root(srv);
		if (r < 0)
			res->hostvol = P9_EXPORT_HOSTVOL_ROOT;
	}
	for (unsigned k = 0; r >= 0 && k < e->n_hostvols; k++) {
		r = p9_server_add_hostvol(srv, &e->hostvols[k]);
		if (r < 0)
			res->hostvol = (int32_t) k;
	}
	res->error = r < 0 ? r : 0;
	if (r >= 0)
		*ret = TAKE_PTR(srv);
	return r;
}

/* Gives back what a large request left resident, once nothing came for a while. */
static void p9_worker_trim(struct p9_worker_state *s)
{
	(void) p9_buf_trim(&s->req, V9P_BUF_KEEP);
}

/* One request: 0 served, 1 the VMM closed the socket, < 0 the worker cannot go on. */
static int p9_worker_one(struct p9_worker_state *s)
{
	struct p9_wire_req q = {0};
	struct p9_wire_resp a;
	const uint8_t *area;
	ssize_t n;

	n = p9_wire_recv(s->sock, &q, sizeof(q));
	if (n == 0)
		return 1;
	if (n < 0)
		return (int) n;
	if ((size_t) n != sizeof(q) || q.export >= s->n || !s->srv[q.export] ||
	    (q.flags & ~P9_WIRE_RESET) || q.len > P9_MSIZE_MAX || q.resp_cap > P9_MSIZE_MAX)
		return log_error_errno(EBADMSG,
				       "9p worker: refusing a message (%zd bytes, export %u, %u)",
				       n, q.export, q.len);
	area = s->shm + P9_WIRE_AREA * 2 * q.export;
	memcpy(s->req.p, area, q.len);
	p9_buf_used(&s->req, q.len);
	if (q.flags & P9_WIRE_RESET)
		p9_server_reset(s->srv[q.export]);
	a.len = (uint32_t) p9_server_handle(s->srv[q.export], s->req.p, q.len,
					    s->shm + P9_WIRE_AREA * (2 * q.export + 1), q.resp_cap);
	return p9_wire_send(s->sock, &a, sizeof(a));
}

static int p9_worker_loop(struct p9_worker_state *s)
{
	bool trimmed = true;

	for (;;) {
		/* The broker's end is watched too: without it, the exports are gone. */
		struct pollfd p[2] = {{.fd = s->sock, .events = POLLIN}, {.fd = s->broker}};
		int r = poll(p, 2, trimmed ? -1 : (int) (V9P_IDLE_NS / 1000000));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (p[1].revents & (POLLHUP | POLLERR))
			return log_debug_errno(EPIPE, "9p worker: the broker is gone");
		if (r == 0) {
			p9_worker_trim(s);
			trimmed = true;
			continue;
		}
		r = p9_worker_one(s);
		if (r != 0)
			return r;
		trimmed = s->req.hi <= V9P_BUF_KEEP;
	}
}

_Noreturn void p9_worker_main(int sock, pid_t parent, uint8_t *shm, const struct p9_export *exports,
			      unsigned n, p9_worker_enter_fn enter, void *userdata)
{
	struct p9_worker_state s = {.sock = P9_WORKER_SOCK_FD, .n = n, .shm = shm, .broker = -1};
	struct p9_wire_hello h = {.n = n};
	int r;

	/* The worker ends with the VMM, even one killed before it could close the socket. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(1);
	p9_worker_signals();
	(void) prctl(PR_SET_NAME, "cc-vmm-9p");
	/* Not dumpable: the VMM (same uid, no capability) can neither ptrace it nor open its
	 * /proc/PID/mem, so it cannot borrow the worker's capabilities. */
	if (prctl(PR_SET_DUMPABLE, 0) < 0 || p9_worker_fds(sock) < 0)
		_exit(1);
	if (p9_buf_init(&s.req, P9_MSIZE_MAX) < 0)
		_exit(1);
	for (unsigned i = 0; i < n; i++)
		(void) p9_worker_open(&exports[i], &s.srv[i], &h.res[i]);
	/* The capabilities go to the broker; the worker, which parses, keeps none. */
	r = p9_worker_broker_start(&s, exports, enter, userdata);
	if (r >= 0 && enter)
		r = enter(userdata, P9_WORKER_PARSER);
	h.error = r;
	if (p9_wire_send(s.sock, &h, sizeof(h)) < 0 || r < 0)
		_exit(1);
	r = p9_worker_loop(&s);
	p9_worker_broker_stop(&s);
	if (r < 0)
		log_debug_errno(r, "9p worker: %m");
	_exit(r < 0 ? (r == -EBADMSG ? 2 : 1) : 0);
}

_Noreturn void p9_worker_main_exec(pid_t parent, const struct p9_export *exports, unsigned n,
				   p9_worker_enter_fn enter, void *userdata)
{
	size_t size = P9_WIRE_AREA * 2 * n;
	struct stat st;
	void *shm;

	/* The areas, on P9_WORKER_SHM_FD: the VMM's memfd, sealed at 2n areas. */
	if (n == 0 || n > P9_WORKER_EXPORTS_MAX || fstat(P9_WORKER_SHM_FD, &st) < 0 ||
	    (size_t) st.st_size != size)
		_exit(1);
	shm = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, P9_WORKER_SHM_FD, 0);
	if (shm == MAP_FAILED)
		_exit(1);
	(void) madvise(shm, size, MADV_NOHUGEPAGE);
	(void) close(P9_WORKER_SHM_FD);
	if (fcntl(P9_WORKER_SOCK_FD, F_SETFD, FD_CLOEXEC) < 0)
		_exit(1);
	p9_worker_main(P9_WORKER_SOCK_FD, parent, shm, exports, n, enter, userdata);
}
