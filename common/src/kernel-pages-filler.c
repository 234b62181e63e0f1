/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdalign.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/kernel-pages-file.h"
#include "cc/kernel-pages-filler.h"
#include "cc/macro.h"
#include "cc/time-util.h"

/* Requests filled under one hold of the lock, at most: other fillers wait meanwhile. */
#define KERNEL_PAGES_FILLER_HOLD 64u

int kernel_pages_filler_serve(int rw_fd, uint64_t region, int chan_fd, unsigned deadline_ms,
			      uint64_t max_fills)
{
	/* One byte more than a request: a longer message is seen as one (MSG_TRUNC). */
	alignas(8) uint8_t buf[sizeof(struct kernel_pages_fill_req) + 1];
	int64_t end = now_monotonic_ms() + deadline_ms;
	unsigned lock_ms = KERNEL_PAGES_FILLER_LOCK_TIMEOUT_MS, held = 0;
	uint64_t fills = 0;
	int r;

	for (;;) {
		struct pollfd pfd = {.fd = chan_fd, .events = POLLIN};
		int64_t now = now_monotonic_ms();
		kernel_pages_fill_ans ans;
		ssize_t n;

		if (now >= end) {
			r = -ETIMEDOUT;
			break;
		}
		n = recv(chan_fd, buf, sizeof(buf), MSG_TRUNC | MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			/* None queued: let go of the lock while waiting for the next. */
			if (held)
				(void) flock(rw_fd, LOCK_UN);
			held = 0;
			if (poll(&pfd, 1, (int) MIN(end - now, (int64_t) INT32_MAX)) < 0 &&
			    errno != EINTR) {
				r = -errno;
				break;
			}
			continue;
		}
		if (n <= 0) {
			/* The VMM closed its end (or sent an empty record): done. */
			r = n < 0 ? -errno : 0;
			break;
		}
		if (fills >= max_fills) {
			ans = -EDQUOT;
		} else {
			if (held == KERNEL_PAGES_FILLER_HOLD) {
				(void) flock(rw_fd, LOCK_UN);
				held = 0;
			}
			/* Taken once for the requests queued together. After another filler
			 * kept it for a whole wait, it is only tried. */
			ans = held ? 0 : kernel_pages_file_lock(rw_fd, lock_ms);
			if (ans == -ETIMEDOUT)
				lock_ms = 0;
			if (ans == 0) {
				held++;
				ans = kernel_pages_fill_held(rw_fd, region, buf, (size_t) n);
			}
		}
		if (ans == 0)
			fills++;
		/* Never blocked by a VMM that does not read its answers: it is done. */
		if (send(chan_fd, &ans, sizeof(ans), MSG_NOSIGNAL | MSG_DONTWAIT) != sizeof(ans)) {
			r = errno == EPIPE ? 0 : -errno;
			break;
		}
	}
	if (held)
		(void) flock(rw_fd, LOCK_UN);
	return r;
}

/* The filler process: only stderr, the file (3) and its channel (4) open. Never returns. */
_noreturn_ static void filler_main(int rw_fd, int chan_fd, uint64_t region, unsigned deadline_ms)
{
	sigset_t none;
	int a, b, null;

	(void) prctl(PR_SET_NAME, "cc-kpages-fill");
	/* Not dumpable: a VMM of the same user cannot ptrace it or write its memory. */
	if (prctl(PR_SET_DUMPABLE, 0) < 0)
		_exit(1);
	(void) signal(SIGTERM, SIG_DFL);
	(void) signal(SIGINT, SIG_DFL);
	(void) signal(SIGHUP, SIG_DFL);
	(void) sigemptyset(&none);
	(void) sigprocmask(SIG_SETMASK, &none, NULL);
	/* Above every fd that 3 and 4 could be, then onto them. */
	a = fcntl(rw_fd, F_DUPFD, 5);
	b = fcntl(chan_fd, F_DUPFD, 5);
	if (a < 0 || b < 0 || dup2(a, 3) < 0 || dup2(b, 4) < 0)
		_exit(1);
	if (close_range(5, ~0u, 0) < 0)
		_exit(1);
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		(void) dup2(null, STDIN_FILENO);
		(void) dup2(null, STDOUT_FILENO);
		if (null > STDERR_FILENO)
			(void) close(null);
	}
	_exit(kernel_pages_filler_serve(3, region, 4, deadline_ms, region / KERNEL_PAGES_PAGE) < 0);
}

int kernel_pages_filler_spawn(const char *path, int kernel_fd, unsigned deadline_ms, pid_t *ret_pid,
			      int *ret_ro, int *ret_chan)
{
	_cleanup_close_ int rw = -1, ro = -1, vmm_end = -1, filler_end = -1;
	struct stat st;
	int sv[2], status, r;
	uint64_t region;
	pid_t pid;

	assert_return(path && ret_ro && ret_chan, -EINVAL);
	if (fstat(kernel_fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_size <= 0)
		return -EINVAL;
	r = kernel_pages_file_open(path, (uint64_t) st.st_size, &rw, &ro);
	if (r < 0)
		return r;
	region = kernel_pages_region_size((uint64_t) st.st_size);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	vmm_end = sv[0];
	filler_end = sv[1];
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		if (ret_pid)
			filler_main(rw, filler_end, region, deadline_ms);
		/* Forked twice: the filler is reparented at once, nobody's child to reap. */
		pid = fork();
		if (pid == 0)
			filler_main(rw, filler_end, region, deadline_ms);
		_exit(pid < 0);
	}
	if (ret_pid) {
		*ret_pid = pid;
	} else {
		while (waitpid(pid, &status, 0) != pid)
			if (errno != EINTR)
				return -errno;
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			return -ECHILD;
	}
	*ret_ro = TAKE_FD(ro);
	*ret_chan = TAKE_FD(vmm_end);
	return 0;
}
