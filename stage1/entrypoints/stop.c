/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cc-stage1-stop: the stage1 `stop` entrypoint (/cc/stop in the stage1 ACI).
 *
 *   stop [--force] UUID
 *
 * rkt runs it in the pod dir. Graceful: asks the pod's agent (vsock port 1024) to stop every
 * app (SIGTERM, the unit's grace period, SIGKILL, post-stop handlers; the pod then ends by
 * itself). --force: SIGKILL to the VMM (the PID in ./pid, checked to be cc-vmm). Either way
 * stop then waits (bounded) until the VMM is gone and the pod lock is free, so that the
 * status files are final when it returns. A pod that already ended is not an error.
 * Exit: 0, 1 with one line "stop: <message>", 2 for usage errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "agent-client.h"
#include "agent-proto.h"
#include "cc/beneath.h"
#include "cc/cleanup.h"
#include "stage1/flags.h"

#define STOP_VSOCK		"cc/vsock"
#define STOP_VMM_NAME		"cc-vmm"
#define STOP_CONNECT_TIMEOUT_MS 10000
#define STOP_ACCEPT_TIMEOUT_MS	30000
/* Grace periods are the apps' (TimeoutStopSec, 10 s by default), plus post-stop and the
 * guest's reboot. */
#define STOP_WAIT_MS	  (5 * 60 * 1000)
#define STOP_LOCK_WAIT_MS 10000

static int fail(int code, const char *msg)
{
	fprintf(stderr, "stop: %s\n", msg);
	return code;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int read_pid(pid_t *ret)
{
	_cleanup_free_ char *s = NULL;
	char *end;
	long v;
	int r;

	/* From the pod dir (the cwd): through no link, a small regular file only. */
	r = beneath_read(AT_FDCWD, "pid", 64, &s, NULL);
	if (r < 0)
		return r;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || (*end != '\0' && *end != '\n') || v <= 0 || v > 0x3fffffff)
		return -EBADMSG;
	*ret = (pid_t) v;
	return 0;
}

/* 1 when pid runs cc-vmm, 0 when it is gone, -EPERM when it runs something else. */
static int pid_is_vmm(pid_t pid)
{
	char link[64], exe[4096];
	const char *base;
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int) pid);
	n = readlink(link, exe, sizeof(exe) - 1);
	if (n < 0)
		return errno == ENOENT || errno == ESRCH ? 0 : -errno;
	exe[n] = '\0';
	base = strrchr(exe, '/');
	base = base ? base + 1 : exe;
	if (strcmp(base, STOP_VMM_NAME) == 0 || strcmp(base, STOP_VMM_NAME " (deleted)") == 0)
		return 1;
	return -EPERM;
}

/* Wait until pid is gone, then until the pod lock (on the pod dir) is free. */
static int wait_pod_end(pid_t pid, int timeout_ms)
{
	long long deadline = now_ms() + timeout_ms;
	_cleanup_close_ int pfd = -EBADF, dfd = -EBADF;

	pfd = (int) syscall(SYS_pidfd_open, pid, 0);
	if (pfd < 0 && errno != ESRCH)
		return -errno;
	while (pfd >= 0) {
		struct pollfd p = {.fd = pfd, .events = POLLIN};
		long long left = deadline - now_ms();
		int r;

		if (left <= 0)
			return -ETIMEDOUT;
		r = poll(&p, 1, (int) left);
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r > 0)
			break;
	}
	/* The supervisor writes the last status files after the VMM ended, then exits and
	 * releases the lock rkt gave it. */
	dfd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	deadline = now_ms() + STOP_LOCK_WAIT_MS;
	while (flock(dfd, LOCK_SH | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK && errno != EINTR)
			return -errno;
		if (now_ms() >= deadline)
			return -ETIMEDOUT;
		usleep(20000);
	}
	(void) flock(dfd, LOCK_UN);
	return 0;
}

static int stop_force(pid_t pid)
{
	int r = pid_is_vmm(pid);

	if (r == 0)
		return 0; /* already gone */
	if (r == -EPERM) {
		fprintf(stderr, "stop: process %d (from ./pid) is not %s: not killing it\n",
			(int) pid, STOP_VMM_NAME);
		return 1;
	}
	if (r < 0) {
		fprintf(stderr, "stop: cannot inspect process %d: %s\n", (int) pid, strerror(-r));
		return 1;
	}
	if (kill(pid, SIGKILL) < 0 && errno != ESRCH) {
		fprintf(stderr, "stop: cannot kill process %d: %m\n", (int) pid);
		return 1;
	}
	return 0;
}

static int stop_graceful(void)
{
	_cleanup_close_ int fd = -EBADF;
	struct cc_error err = {};
	int r;

	r = agent_client_connect(STOP_VSOCK, AGENT_PORT, STOP_CONNECT_TIMEOUT_MS, &fd, &err);
	if (r >= 0)
		r = agent_client_stop(fd, STOP_ACCEPT_TIMEOUT_MS, &err);
	if (r < 0) {
		fprintf(stderr, "stop: %s (stop --force kills the pod's VM)\n",
			cc_error_message(&err));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct cc_error err = {};
	struct stop_flags f;
	pid_t pid;
	int r;

	r = stop_flags_parse(argc, argv, &f, &err);
	if (r < 0)
		return fail(2, cc_error_message(&err));
	r = read_pid(&pid);
	if (r == -ENOENT)
		return fail(1, "no ./pid: the pod never started (is the cwd a pod dir?)");
	if (r < 0) {
		fprintf(stderr, "stop: cannot read ./pid: %s\n", strerror(-r));
		return 1;
	}
	if (kill(pid, 0) < 0 && errno == ESRCH)
		return 0; /* the pod already ended */

	r = f.force ? stop_force(pid) : stop_graceful();
	if (r != 0)
		return r;
	r = wait_pod_end(pid, STOP_WAIT_MS);
	if (r == -ETIMEDOUT)
		return fail(1, f.force ? "the pod's VM did not exit after SIGKILL"
				       : "the pod did not end in time (try stop --force)");
	if (r < 0) {
		fprintf(stderr, "stop: cannot wait for the pod to end: %s\n", strerror(-r));
		return 1;
	}
	return 0;
}
