/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The worker's broker (9p-worker.h, fs-broker.h): forked by the worker once its exports are
 * open, before either enters its sandbox. It keeps the export roots, its socket and stderr, the
 * capabilities, and nothing the VMM or the guest can write: no shared area, no VMM socket.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "9p/9p-worker-internal.h"
#include "9p/fs-broker.h"
#include "cc/log.h"

/* The broker's descriptors: its socket, then the export roots; nothing else stays open. */
#define P9_BROKER_SOCK_FD 3
#define P9_BROKER_ROOT_FD 4

static int p9_broker_fds(int sock, struct fsb_export *ex, unsigned n)
{
	int tmp[P9_WORKER_EXPORTS_MAX + 1];
	unsigned k = 0;

	/* Out of the way first, then into place: none of them may land on another. */
	tmp[k] = fcntl(sock, F_DUPFD_CLOEXEC, P9_BROKER_ROOT_FD + (int) n);
	if (tmp[k++] < 0)
		return -errno;
	for (unsigned i = 0; i < n; i++) {
		tmp[k] = fcntl(ex[i].root_fd, F_DUPFD_CLOEXEC, P9_BROKER_ROOT_FD + (int) n);
		if (tmp[k++] < 0)
			return -errno;
	}
	for (unsigned i = 0; i < k; i++)
		if (dup3(tmp[i], P9_BROKER_SOCK_FD + (int) i, O_CLOEXEC) < 0)
			return -errno;
	if (close_range(P9_BROKER_ROOT_FD + n, ~0u, 0) < 0)
		return -errno;
	for (unsigned i = 0; i < n; i++)
		ex[i].root_fd = P9_BROKER_ROOT_FD + (int) i;
	return 0;
}

_Noreturn static void p9_broker_main(int sock, pid_t parent, struct p9_worker_state *s,
				     const struct p9_export *exports, p9_worker_enter_fn enter,
				     void *userdata)
{
	struct fsb_export ex[P9_WORKER_EXPORTS_MAX];
	unsigned n = 0;
	int r;

	/* The broker ends with the worker: at EOF, or by this signal if the worker is killed. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(1);
	(void) prctl(PR_SET_NAME, "cc-vmm-9p-fs");
	/* Nothing of the VMM's or the guest's: the shared areas go, the VMM's socket with the
	 * other descriptors. */
	(void) munmap(s->shm, P9_WIRE_AREA * 2 * s->n);
	for (unsigned i = 0; i < s->n; i++) {
		if (!s->srv[i])
			continue;
		ex[n++] = (struct fsb_export){
			.root_fd = p9_server_root_fd(s->srv[i]),
			.read_only = exports[i].read_only,
			.hostvol_root = exports[i].hostvol_root,
			.hostvols = exports[i].hostvols,
			.n_hostvols = exports[i].n_hostvols,
		};
	}
	/* No export, or no descriptor in place: the worker reads EOF instead of a hello. */
	if (n == 0 || p9_broker_fds(sock, ex, n) < 0)
		_exit(1);
	r = enter ? enter(userdata, P9_WORKER_BROKER) : 0;
	/* Its hello: whether its sandbox holds (write(2): its filter has no sendto, and SIGPIPE is
	 * ignored since the worker's start). */
	if (write(P9_BROKER_SOCK_FD, &r, sizeof(r)) != sizeof(r) || r < 0)
		_exit(1);
	r = fsb_serve(P9_BROKER_SOCK_FD, ex, n);
	_exit(r < 0 ? (r == -EBADMSG ? 2 : 1) : 0);
}

int p9_worker_broker_start(struct p9_worker_state *s, const struct p9_export *exports,
			   p9_worker_enter_fn enter, void *userdata)
{
	pid_t self = getpid();
	unsigned served = 0;
	int sv[2], r = 0;
	ssize_t n;

	/* No export could be opened: nothing to broker (the hello says why, per export). */
	for (unsigned i = 0; i < s->n; i++)
		served += s->srv[i] != NULL;
	if (served == 0)
		return 0;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	s->broker_pid = fork();
	if (s->broker_pid < 0) {
		r = -errno;
		(void) close(sv[0]);
		(void) close(sv[1]);
		return r;
	}
	if (s->broker_pid == 0) {
		(void) close(sv[0]);
		p9_broker_main(sv[1], self, s, exports, enter, userdata);
	}
	(void) close(sv[1]);
	s->broker = sv[0];
	do
		n = recv(s->broker, &r, sizeof(r), 0);
	while (n < 0 && errno == EINTR);
	if (n != sizeof(r))
		return n < 0 ? -errno : -ECHILD;
	if (r < 0)
		return r;
	for (unsigned i = 0; i < s->n; i++)
		if (s->srv[i])
			p9_server_set_broker(s->srv[i], s->broker);
	return 0;
}

void p9_worker_broker_stop(struct p9_worker_state *s)
{
	if (s->broker < 0)
		return;
	/* EOF ends it at once: it never waits on anything but its socket. */
	s->broker = safe_close(s->broker);
	(void) waitpid(s->broker_pid, NULL, 0);
}
