/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The hostile guest's steps of cc-testapp (the e2e attack tests, docs/stage1.md, "Host access
 * to guest-writable paths"): an app with every capability enters PID 1's mount namespace, where
 * the 9p shares are mounted (/rkt, /opt/stage2, /var/log/journal), and plants links and FIFOs
 * where the host reads and writes; and floods the VMM's budgets (9p xattr bytes and fids, vsock
 * connections: docs/9p.md and docs/vsock.md, "Budget") so the host can check the VMM's memory.
 * Every flood has a maximum count and a deadline, and keeps what it got (files and connections
 * stay open) until the app exits.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/vm_sockets.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "cc-testapp.h"

/* "A:B" into a (up to the colon) and *b; -1 if malformed. */
static int split_pair(const char *arg, char a[static 1024], const char **b)
{
	const char *colon = strchr(arg, ':');

	if (!colon || colon == arg || (size_t) (colon - arg) >= 1024 || !colon[1])
		return -1;
	memcpy(a, arg, (size_t) (colon - arg));
	a[colon - arg] = '\0';
	*b = colon + 1;
	return 0;
}

/* setns=PID: join PID's mount namespace (root and cwd become its root). */
void testapp_step_setns(const char *arg)
{
	char path[64];
	int fd;

	(void) snprintf(path, sizeof(path), "/proc/%s/ns/mnt", arg);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, CLONE_NEWNS) < 0) {
		testapp_say("setns %s errno=%s", arg, testapp_errno_name(errno));
		if (fd >= 0)
			(void) close(fd);
		return;
	}
	(void) close(fd);
	testapp_say("setns %s ok", arg);
}

/* symlink=TARGET:LINK */
void testapp_step_symlink(const char *arg)
{
	char target[1024];
	const char *link;

	if (split_pair(arg, target, &link) < 0)
		testapp_say("bad step argument %s", arg);
	else if (symlink(target, link) < 0)
		testapp_say("symlink %s errno=%s", link, testapp_errno_name(errno));
	else
		testapp_say("symlink %s ok", link);
}

/* rmdir=PATH (an empty directory; on an overlay a lower one too, where rename says EXDEV) */
void testapp_step_rmdir(const char *path)
{
	if (rmdir(path) < 0)
		testapp_say("rmdir %s errno=%s", path, testapp_errno_name(errno));
	else
		testapp_say("rmdir %s ok", path);
}

/* mkfifo=PATH */
void testapp_step_mkfifo(const char *path)
{
	if (mkfifo(path, 0644) < 0)
		testapp_say("mkfifo %s errno=%s", path, testapp_errno_name(errno));
	else
		testapp_say("mkfifo %s ok", path);
}

/* truncate=PATH:SIZE: create PATH (a sparse file) of SIZE bytes */
void testapp_step_truncate(const char *arg)
{
	char path[PATH_MAX];
	const char *colon = strrchr(arg, ':');
	int fd;

	if (!colon || (size_t) (colon - arg) >= sizeof(path)) {
		testapp_say("truncate %s errno=EINVAL", arg);
		return;
	}
	memcpy(path, arg, colon - arg);
	path[colon - arg] = '\0';
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || ftruncate(fd, strtoll(colon + 1, NULL, 10)) < 0)
		testapp_say("truncate %s errno=%s", path, testapp_errno_name(errno));
	else
		testapp_say("truncate %s ok", path);
	if (fd >= 0)
		close(fd);
}

/* The floods' bounds: a count and a deadline each, so the test always ends. */
#define FLOOD_XATTR_PROCS 64	      /* concurrent setxattr callers, one file each */
#define FLOOD_XATTR_CALLS 64	      /* setxattr calls per caller, a new name each */
#define FLOOD_XATTR_VALUE (60 * 1024) /* bytes per value (Txattrcreate's announced size) */
#define FLOOD_FIDS_MAX	  40000	      /* over the 32768 fids of a share's budget */
#define FLOOD_VSOCK_MAX	  1024	      /* over the 256 connections of a VM's budget */
#define FLOOD_SECONDS	  150
#define FLOOD_ERRNO_MAX	  256

/* Errno counts of a flood, printed as " ENOSPC=12 EOPNOTSUPP=3" (errno >= 256 in "E?"). */
struct flood_errors {
	unsigned n[FLOOD_ERRNO_MAX];
};

static void flood_errors_add(struct flood_errors *e, int err)
{
	__atomic_fetch_add(&e->n[err > 0 && err < FLOOD_ERRNO_MAX ? err : 0], 1, __ATOMIC_RELAXED);
}

static void flood_errors_format(const struct flood_errors *e, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; i < FLOOD_ERRNO_MAX && len < size; i++)
		if (e->n[i])
			len += (size_t) snprintf(buf + len, size - len, " %s=%u",
						 i ? testapp_errno_name(i) : "E?", e->n[i]);
}

static time_t flood_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

/* One caller of xattrflood: FLOOD_XATTR_CALLS names on DIR/x<k>; counts into shared. */
static void flood_xattr_caller(const char *dir, int k, time_t deadline, unsigned *ok,
			       struct flood_errors *errs)
{
	static char value[FLOOD_XATTR_VALUE];
	char path[PATH_MAX], name[64];
	int fd;

	memset(value, 'x' + k % 2, sizeof(value));
	(void) snprintf(path, sizeof(path), "%s/x%d", dir, k);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		flood_errors_add(errs, errno);
		return;
	}
	(void) close(fd);
	for (int i = 0; i < FLOOD_XATTR_CALLS && flood_now() < deadline; i++) {
		(void) snprintf(name, sizeof(name), "user.flood%d.%d", k, i);
		if (setxattr(path, name, value, sizeof(value), 0) == 0)
			__atomic_fetch_add(ok, 1, __ATOMIC_RELAXED);
		else
			flood_errors_add(errs, errno);
	}
}

/*
 * xattrflood=DIR: FLOOD_XATTR_PROCS processes at once each set FLOOD_XATTR_CALLS user.*
 * attributes of 60 KiB on a file of DIR (made if missing): over 9p each is a Txattrcreate of
 * 60 KiB, its Twrite and its Tclunk, so 64 in flight announce 3.8 MiB against the share's
 * 2 MiB budget. "xattrflood DIR calls=N ok=N[ ERRNO=N...] seconds=S".
 */
void testapp_step_xattrflood(const char *dir)
{
	struct shared {
		unsigned ok;
		struct flood_errors errs;
	} * sh;
	time_t start = flood_now(), deadline = start + FLOOD_SECONDS;
	char errs[1024];
	unsigned calls;
	int procs = 0;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		testapp_say("xattrflood %s errno=%s", dir, testapp_errno_name(errno));
		return;
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		testapp_say("xattrflood %s errno=%s", dir, testapp_errno_name(errno));
		return;
	}
	for (int k = 0; k < FLOOD_XATTR_PROCS; k++) {
		pid_t pid = fork();

		if (pid == 0) {
			flood_xattr_caller(dir, k, deadline, &sh->ok, &sh->errs);
			_exit(0);
		}
		if (pid > 0)
			procs++;
	}
	while (procs > 0 && wait(NULL) > 0)
		procs--;
	flood_errors_format(&sh->errs, errs, sizeof(errs));
	calls = sh->ok;
	for (int i = 0; i < FLOOD_ERRNO_MAX; i++)
		calls += sh->errs.n[i];
	testapp_say("xattrflood %s calls=%u ok=%u%s seconds=%ld", dir, calls, sh->ok, errs,
		    (long) (flood_now() - start));
	(void) munmap(sh, sizeof(*sh));
}

/* Raise RLIMIT_NOFILE (the app has CAP_SYS_RESOURCE) so its own limit is not what stops it. */
static void flood_raise_nofile(void)
{
	struct rlimit rl = {.rlim_cur = FLOOD_FIDS_MAX + FLOOD_VSOCK_MAX + 256,
			    .rlim_max = FLOOD_FIDS_MAX + FLOOD_VSOCK_MAX + 256};
	struct rlimit now;

	if (getrlimit(RLIMIT_NOFILE, &now) == 0 && now.rlim_cur >= rl.rlim_cur)
		return;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		testapp_say("rlimit nofile errno=%s", testapp_errno_name(errno));
}

/*
 * fidflood=PATH: open PATH (made if missing) read-only again and again, keeping every
 * descriptor: over 9p each open is a new fid (Twalk) and a host descriptor (Tlopen). Stops at
 * FLOOD_FIDS_MAX, the deadline or 16 failures in a row. "fidflood PATH open=N[ ERRNO=N...]
 * seconds=S".
 */
void testapp_step_fidflood(const char *path)
{
	time_t start = flood_now(), deadline = start + FLOOD_SECONDS;
	struct flood_errors *errs = calloc(1, sizeof(*errs));
	int opened = 0, failed_in_row = 0, fd;
	char line[1024];

	if (!errs)
		return;
	flood_raise_nofile();
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		testapp_say("fidflood %s errno=%s", path, testapp_errno_name(errno));
		free(errs);
		return;
	}
	(void) close(fd);
	for (int i = 0; i < FLOOD_FIDS_MAX && failed_in_row < 16; i++) {
		if (i % 256 == 0 && flood_now() >= deadline)
			break;
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			opened++;
			failed_in_row = 0;
		} else {
			flood_errors_add(errs, errno);
			failed_in_row++;
		}
	}
	flood_errors_format(errs, line, sizeof(line));
	testapp_say("fidflood %s open=%d%s seconds=%ld", path, opened, line,
		    (long) (flood_now() - start));
	free(errs);
}

/* One AF_VSOCK stream connection to the host (CID 2) at port; the fd or -errno. */
static int flood_vsock_connect(unsigned port)
{
	struct sockaddr_vm addr = {
		.svm_family = AF_VSOCK, .svm_cid = VMADDR_CID_HOST, .svm_port = port};
	int fd = socket(AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int err;

	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *) &addr, sizeof(addr)) == 0)
		return fd;
	err = errno;
	(void) close(fd);
	return -err;
}

/*
 * vsockflood=PORT:N: up to N (at most FLOOD_VSOCK_MAX) connections to the host's PORT, kept
 * open; stops at the deadline or 16 failures in a row. "vsockflood PORT connected=N[
 * ERRNO=N...] seconds=S".
 */
void testapp_step_vsockflood(const char *arg)
{
	time_t start = flood_now(), deadline = start + FLOOD_SECONDS;
	struct flood_errors *errs;
	unsigned port;
	int n, connected = 0, failed_in_row = 0;
	char line[1024];

	if (sscanf(arg, "%u:%d", &port, &n) != 2 || n < 0 || n > FLOOD_VSOCK_MAX) {
		testapp_say("bad step argument %s", arg);
		return;
	}
	errs = calloc(1, sizeof(*errs));
	if (!errs)
		return;
	flood_raise_nofile();
	for (int i = 0; i < n && failed_in_row < 16 && flood_now() < deadline; i++) {
		int fd = flood_vsock_connect(port);

		if (fd >= 0) {
			connected++;
			failed_in_row = 0;
		} else {
			flood_errors_add(errs, -fd);
			failed_in_row++;
		}
	}
	flood_errors_format(errs, line, sizeof(line));
	testapp_say("vsockflood %u connected=%d%s seconds=%ld", port, connected, line,
		    (long) (flood_now() - start));
	free(errs);
}
