/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The 9p worker (hypervisor/src/9p/9p-worker.h): it serves what the in-process server serves,
 * reports each export, ends with the VMM, and takes nothing on trust from it: the attacker here
 * is a compromised VMM, which sends bad messages, tries to borrow the worker's capabilities with
 * ptrace or /proc/PID/mem, and would like the descriptors it had when it forked the worker to
 * reach the worker.
 */
#include <cap-ng.h>
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <grp.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "9p/9p-wire.h"
#include "vm/vm-internal.h"
#include "9p/9p-worker.h"
#include "cctest.h"
#include "p9c.h"

#define DOTL_RDWR  2u
#define DOTL_CREAT 0100u

START_TEST(test_serves_like_the_server)
{
	struct p9c c;
	char buf[16] = {0};
	uint64_t off = 0;
	char names[256];

	p9c_init_worker(&c, false, true, NULL);
	ASSERT_OK(p9c_walk1(&c, 0, 1, ""));
	ASSERT_OK(p9c_lcreate(&c, 1, "f", DOTL_RDWR, 0640));
	ck_assert_int_eq(p9c_write(&c, 1, 0, "hello", 5), 5);
	ck_assert_int_eq(p9c_read(&c, 1, 0, sizeof(buf), buf), 5);
	ck_assert_str_eq(buf, "hello");
	ASSERT_OK(p9c_mkdir(&c, 0, "d", 0750));
	ck_assert_str_eq(cctest_read_at(c.dir, "f"), "hello");
	ASSERT_OK(p9c_walk1(&c, 0, 2, ""));
	ASSERT_OK(p9c_lopen(&c, 2, 0));
	ck_assert_int_ge(p9c_readdir(&c, 2, &off, 4096, names, sizeof(names)), 4);
	ck_assert_ptr_nonnull(strstr(names, "d/"));
	/* Errors come back as they do from the server itself. */
	ASSERT_ERRNO(p9c_walk1(&c, 0, 3, "nothing"), ENOENT);
	p9c_done(&c);
}
END_TEST

/* The worker's real sandbox, as the VMM gives it (vm_sandbox_enter_9p(), for one read-write
 * share): a syscall outside its table kills it, and the call that needed it fails the test. */
static int enter_sandbox(void *userdata, enum p9_worker_role role)
{
	struct vm_config cfg;

	(void) userdata;
	vm_config_init(&cfg);
	cfg.seccomp = VM_SECCOMP_KILL;
	cfg.n_shares = 1; /* only its read_only matters here */
	return vm_sandbox_enter_9p(&cfg, role);
}

/* Every operation once, through the worker under its own seccomp filter. */
START_TEST(test_every_op_within_its_filter)
{
	struct p9c c;
	struct p9c_attr a;
	char buf[64] = {0};
	uint64_t off = 0, size = 0;
	uint8_t type;
	uint32_t bsize, namelen;

	cctest_require_privileged(0);
	p9c_init_worker(&c, false, true, enter_sandbox);
	ASSERT_OK(p9c_walk1(&c, 0, 1, ""));
	ASSERT_OK(p9c_lcreate(&c, 1, "f", DOTL_RDWR, 0644));
	ck_assert_int_eq(p9c_write(&c, 1, 0, "data", 4), 4);
	ck_assert_int_eq(p9c_read(&c, 1, 0, sizeof(buf), buf), 4);
	ASSERT_OK(p9c_fsync(&c, 1));
	ASSERT_OK(p9c_fdatasync(&c, 1));
	ck_assert_int_eq(p9c_lock(&c, 1, 1 /* write lock */, 0, 0), 0);
	ASSERT_OK(p9c_getlock(&c, 1, 1, &type));
	ASSERT_OK(p9c_getattr(&c, 1, &a));
	ASSERT_OK(p9c_setattr(&c, 1, 0x1 | 0x8, 0600, 2, 0));	    /* mode, size */
	ASSERT_OK(p9c_setattr(&c, 1, 0x20 | 0x100, 0, 0, 1000000)); /* mtime set */
	ASSERT_OK(p9c_statfs(&c, 1, &bsize, &namelen));
	ASSERT_OK(p9c_mkdir(&c, 0, "d", 0755));
	ASSERT_OK(p9c_symlink(&c, 0, "s", "f"));
	ASSERT_OK(p9c_mknod(&c, 0, "fifo", S_IFIFO | 0600));
	ASSERT_OK(p9c_walk1(&c, 0, 2, "f"));
	ASSERT_OK(p9c_link(&c, 0, 2, "hard"));
	ASSERT_OK(p9c_walk1(&c, 0, 3, "s"));
	ASSERT_OK(p9c_readlink(&c, 3, buf, sizeof(buf)));
	ck_assert_str_eq(buf, "f");
	ASSERT_OK(p9c_renameat(&c, 0, "hard", 0, "hard2"));
	ASSERT_OK(p9c_walk1(&c, 0, 4, "hard2"));
	ASSERT_OK(p9c_rename(&c, 4, 0, "hard3"));
	ASSERT_OK(p9c_xattrcreate(&c, 2, "user.k", 1, 0));
	ck_assert_int_eq(p9c_write(&c, 2, 0, "v", 1), 1);
	ASSERT_OK(p9c_clunk(&c, 2));
	ASSERT_OK(p9c_walk1(&c, 0, 5, "f"));
	ASSERT_OK(p9c_xattrwalk(&c, 5, 6, "user.k", &size));
	ck_assert_uint_eq(size, 1);
	ASSERT_OK(p9c_walk1(&c, 0, 7, ""));
	ASSERT_OK(p9c_lopen(&c, 7, 0));
	ck_assert_int_ge(p9c_readdir(&c, 7, &off, 4096, buf, sizeof(buf)), 1);
	ASSERT_OK(p9c_unlinkat(&c, 0, "fifo", 0));
	ASSERT_OK(p9c_unlinkat(&c, 0, "d", 0x200 /* AT_REMOVEDIR */));
	ASSERT_OK(p9c_walk1(&c, 0, 8, "hard3"));
	ASSERT_OK(p9c_remove(&c, 8));
	/* and a device reset, then the session again */
	c.reset = true;
	ASSERT_OK(p9c_version(&c, 65536, "9P2000.L", NULL, NULL, 0));
	ASSERT_OK(p9c_attach(&c, 0, 0));
	p9c_done(&c);
}
END_TEST

/*
 * The worker as in the jail: an unprivileged uid with no capability, under its filter, so that
 * what the kernel refuses it goes to its broker; and with few descriptors, so that a fid flood
 * runs it out of them (EMFILE to the guest, never its end).
 */
static int enter_sandbox_unprivileged(void *userdata, enum p9_worker_role role)
{
	struct rlimit nofile = {64, 64};

	if (role == P9_WORKER_PARSER &&
	    (setrlimit(RLIMIT_NOFILE, &nofile) < 0 || setgroups(0, NULL) < 0 ||
	     setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0))
		return -errno;
	return enter_sandbox(userdata, role);
}

START_TEST(test_unprivileged_worker_and_its_broker)
{
	struct p9c c;
	struct p9c_attr a;
	char buf[64] = {0};
	uint64_t size = 0;
	uint32_t fid = 100;
	int r = 0;

	cctest_require_privileged(0);
	p9c_init_worker(&c, false, true, enter_sandbox_unprivileged);
	cctest_write_at(c.dir, "pub", "public");
	cctest_write_at(c.dir, "priv", "private");
	ck_assert_int_eq(chmod(strcat(strcpy((char[4200]){0}, c.dir), "/priv"), 0600), 0);
	cctest_mkdir_at(c.dir, "closed");
	cctest_write_at(c.dir, "closed/inner", "in");
	ck_assert_int_eq(chmod(strcat(strcpy((char[4200]){0}, c.dir), "/closed"), 0700), 0);
	/* a walk into a directory only root may search, an open only root may make: the broker */
	ASSERT_OK(p9c_walk1(&c, 0, 1, "closed/inner"));
	ASSERT_OK(p9c_lopen(&c, 1, DOTL_RDWR));
	ck_assert_int_eq(p9c_read(&c, 1, 0, sizeof(buf), buf), 2);
	ASSERT_OK(p9c_walk1(&c, 0, 2, "priv"));
	ASSERT_OK(p9c_lopen(&c, 2, DOTL_RDWR | 01000 /* TRUNC */));
	ck_assert_int_eq(p9c_write(&c, 2, 0, "x", 1), 1);
	ASSERT_OK(p9c_getattr(&c, 2, &a));
	ck_assert_uint_eq(a.size, 1);
	ASSERT_OK(p9c_setattr(&c, 2, 0x1, 0640, 0, 0));
	ASSERT_OK(p9c_walk1(&c, 0, 6, "priv"));
	ASSERT_OK(p9c_xattrcreate(&c, 6, "user.k", 1, 0));
	ck_assert_int_eq(p9c_write(&c, 6, 0, "v", 1), 1);
	ASSERT_OK(p9c_clunk(&c, 6));
	ASSERT_OK(p9c_walk1(&c, 0, 3, "priv"));
	ASSERT_OK(p9c_xattrwalk(&c, 3, 4, "user.k", &size));
	ck_assert_uint_eq(size, 1);
	ASSERT_OK(p9c_walk1(&c, 0, 5, "closed"));
	ASSERT_OK(p9c_lcreate(&c, 5, "new", DOTL_RDWR, 0644));
	ASSERT_OK(p9c_mkdir(&c, 0, "d", 0755));
	ASSERT_OK(p9c_unlinkat(&c, 0, "d", 0x200));
	/* a world-readable file needs no broker; a flood of them runs the worker out of fds */
	for (int i = 0; i < 200 && r >= 0; i++, fid++) {
		r = p9c_walk1(&c, 0, fid, "pub");
		if (r >= 0)
			r = p9c_lopen(&c, fid, 0);
	}
	ck_assert_msg(r == -EMFILE || r == -ENFILE, "the flood ended with %d", r);
	/* still there, and its broker too */
	ASSERT_OK(p9c_getattr(&c, 0, &a));
	ck_assert_int_lt(p9c_mkdir(&c, 0, "d2", 0755), 1);
	while (--fid >= 100)
		(void) p9c_clunk(&c, fid);
	ASSERT_OK(p9c_mkdir(&c, 0, "d3", 0755));
	{
		struct stat st;

		ck_assert_int_eq(stat(strcat(strcpy((char[4200]){0}, c.dir), "/d3"), &st), 0);
		ck_assert(S_ISDIR(st.st_mode));
	}
	p9c_done(&c);
}
END_TEST

START_TEST(test_reset_forgets_fids)
{
	struct p9c c;

	p9c_init_worker(&c, false, true, NULL);
	ASSERT_OK(p9c_walk1(&c, 0, 1, ""));
	/* A device reset reaches the worker with the next request: fid 1 is gone, and so is the
	 * negotiated version. */
	c.reset = true;
	ASSERT_ERRNO(p9c_clunk(&c, 1), EPROTO);
	ASSERT_OK(p9c_version(&c, 65536, "9P2000.L", NULL, NULL, 0));
	ASSERT_ERRNO(p9c_clunk(&c, 1), EBADF);
	/* A reset alone (what the device sends from its event loop): no reply, the fids gone. */
	ASSERT_OK(p9c_attach(&c, 0, 0));
	ASSERT_OK(p9c_walk1(&c, 0, 1, ""));
	ck_assert_int_eq(p9_worker_call(c.worker, 0, true, 0, P9_MSIZE_MIN), 0);
	ASSERT_ERRNO(p9c_clunk(&c, 1), EPROTO);
	p9c_done(&c);
}
END_TEST

START_TEST(test_read_only_export)
{
	struct p9c c;

	p9c_init_worker(&c, true, true, NULL);
	ASSERT_ERRNO(p9c_mkdir(&c, 0, "d", 0755), EROFS);
	p9c_done(&c);
}
END_TEST

START_TEST(test_reports_each_export)
{
	_cleanup_free_ char *dir = cctest_mkdtemp();
	char missing[4200];
	struct stat st;
	struct p9_hostvol hv[2];
	struct p9_export e[3];
	struct p9_export_result res[3];
	struct p9_worker *w = NULL;

	ck_assert_int_eq(stat(dir, &st), 0);
	snprintf(missing, sizeof(missing), "%s/missing", dir);
	/* The same volume twice: the second cannot be added. */
	hv[0] = hv[1] = (struct p9_hostvol){st.st_dev, st.st_ino, 0, 0};
	e[0] = (struct p9_export){.dir = dir, .hostvol_root = true};
	e[1] = (struct p9_export){.dir = missing};
	e[2] = (struct p9_export){.dir = dir, .hostvols = hv, .n_hostvols = 2};
	ASSERT_OK(p9_worker_start(e, 3, NULL, NULL, NULL, &w, res));
	ck_assert_int_eq(res[0].error, 0);
	ck_assert_int_eq(res[1].error, -ENOENT);
	ck_assert_int_eq(res[1].hostvol, P9_EXPORT_HOSTVOL_DIR);
	ck_assert_int_eq(res[2].error, -EEXIST);
	ck_assert_int_eq(res[2].hostvol, 1);
	p9_worker_free(w);
	cctest_rm_rf(dir);
}
END_TEST

static int enter_fails(void *userdata, enum p9_worker_role role)
{
	(void) userdata;
	(void) role;
	return -EPERM;
}

START_TEST(test_sandbox_failure_is_reported)
{
	_cleanup_free_ char *dir = cctest_mkdtemp();
	struct p9_export e = {.dir = dir};
	struct p9_export_result res;
	struct p9_worker *w = NULL;

	ASSERT_ERRNO(p9_worker_start(&e, 1, NULL, enter_fails, NULL, &w, &res), EPERM);
	ck_assert_ptr_null(w);
	/* and reaped: no child is left */
	ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
	ck_assert_int_eq(errno, ECHILD);
	cctest_rm_rf(dir);
}
END_TEST

START_TEST(test_inherits_no_fd)
{
	_cleanup_free_ char *dir = cctest_mkdtemp();
	char a[4200], b[4200];
	struct p9_export e = {.dir = dir};
	struct p9_export_result res;
	struct p9_worker *w = NULL;
	int fa, fb;

	snprintf(a, sizeof(a), "%s/cloexec", dir);
	snprintf(b, sizeof(b), "%s/inherited", dir);
	fa = open(a, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	fb = open(b, O_RDWR | O_CREAT, 0600);
	ck_assert(fa >= 0 && fb >= 0);
	ASSERT_OK(p9_worker_start(&e, 1, NULL, NULL, NULL, &w, &res));
	ASSERT_OK(res.error);
	ck_assert(cctest_fds_on(p9_worker_pid(w), dir, false) > 0);
	ck_assert_uint_eq(cctest_fds_on(p9_worker_pid(w), a, false), 0);
	ck_assert_uint_eq(cctest_fds_on(p9_worker_pid(w), b, false), 0);
	p9_worker_free(w);
	close(fa);
	close(fb);
	cctest_rm_rf(dir);
}
END_TEST

/* In a child with the caller's uid and no capability (a compromised VMM): 0 if pid's memory
 * and registers are out of its reach. */
static int try_borrow(pid_t pid)
{
	char path[64];
	int fd;

	capng_clear(CAPNG_SELECT_BOTH);
	if (capng_apply(CAPNG_SELECT_BOTH) < 0)
		return 10;
	if (ptrace(PTRACE_ATTACH, pid, NULL, NULL) == 0)
		return 11;
	if (errno != EPERM)
		return 12;
	snprintf(path, sizeof(path), "/proc/%d/mem", (int) pid);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd >= 0)
		return 13;
	return 0;
}

START_TEST(test_vmm_cannot_borrow_its_capabilities)
{
	_cleanup_free_ char *dir = cctest_mkdtemp();
	struct p9_export e = {.dir = dir};
	struct p9_export_result res;
	struct p9_worker *w = NULL;
	pid_t child;
	int status;

	cctest_require_privileged(0);
	ASSERT_OK(p9_worker_start(&e, 1, NULL, NULL, NULL, &w, &res));
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0)
		_exit(try_borrow(p9_worker_pid(w)));
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "the worker's memory is reachable without capabilities (step %d)",
		      WEXITSTATUS(status));
	p9_worker_free(w);
	cctest_rm_rf(dir);
}
END_TEST

/* A worker on our end of a socketpair and our shared areas (*ret_shm), its hello read. */
static pid_t raw_worker(const char *dir, int *ret_sock, uint8_t **ret_shm)
{
	struct p9_export e = {.dir = dir};
	struct p9_wire_hello h;
	pid_t parent = getpid(), pid;
	uint8_t *shm;
	int sv[2];

	shm = mmap(NULL, 2 * P9_WIRE_AREA, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
		   0);
	ck_assert_ptr_ne(shm, MAP_FAILED);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(sv[0]);
		p9_worker_main(sv[1], parent, shm, &e, 1, NULL, NULL);
	}
	close(sv[1]);
	ck_assert_int_eq(recv(sv[0], &h, sizeof(h), 0), sizeof(h));
	ck_assert_int_eq(h.error, 0);
	ck_assert_uint_eq(h.n, 1);
	ck_assert_int_eq(h.res[0].error, 0);
	*ret_sock = sv[0];
	*ret_shm = shm;
	return pid;
}

static int raw_exit(pid_t pid)
{
	int status;

	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	return WEXITSTATUS(status);
}

START_TEST(test_refuses_bad_messages)
{
	_cleanup_free_ char *dir = cctest_mkdtemp();
	const struct p9_wire_req bad[] = {
		{.export = 1, .len = 7, .resp_cap = 64},		/* no such export */
		{.export = 0, .len = P9_MSIZE_MAX + 1, .resp_cap = 64}, /* too long */
		{.export = 0, .len = 7, .resp_cap = P9_MSIZE_MAX + 1},	/* reply too large */
		{.export = 0, .flags = 2, .len = 7, .resp_cap = 64},	/* unknown flag */
	};
	static const uint8_t tversion[] = {21, 0, 0,   0,   100, 1,   0,   0,	0,   1,	 0,
					   8,  0, '9', 'P', '2', '0', '0', '0', '.', 'L'};
	struct p9_wire_req q = {.export = 0, .len = sizeof(tversion), .resp_cap = 64};
	struct p9_wire_resp a;
	uint8_t *shm;
	int sock;
	pid_t pid;

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		pid = raw_worker(dir, &sock, &shm);
		ck_assert_int_eq(send(sock, &bad[i], sizeof(bad[i]), 0), sizeof(bad[i]));
		ck_assert_msg(raw_exit(pid) == 2, "message %u was not refused", i);
		close(sock);
		munmap(shm, 2 * P9_WIRE_AREA);
	}
	/* A message shorter than a request. */
	pid = raw_worker(dir, &sock, &shm);
	ck_assert_int_eq(send(sock, "abc", 3, 0), 3);
	ck_assert_int_eq(raw_exit(pid), 2);
	close(sock);
	munmap(shm, 2 * P9_WIRE_AREA);
	/* A good one is served from the shared areas, then the VMM hanging up is a clean end. */
	pid = raw_worker(dir, &sock, &shm);
	memcpy(shm, tversion, sizeof(tversion));
	ck_assert_int_eq(send(sock, &q, sizeof(q), 0), sizeof(q));
	ck_assert_int_eq(recv(sock, &a, sizeof(a), 0), sizeof(a));
	ck_assert_uint_gt(a.len, 7);
	ck_assert_uint_le(a.len, 64);
	ck_assert_uint_eq(shm[P9_WIRE_AREA + 4], 101); /* Rversion */
	close(sock);
	ck_assert_int_eq(raw_exit(pid), 0);
	munmap(shm, 2 * P9_WIRE_AREA);
	cctest_rm_rf(dir);
}
END_TEST

START_TEST(test_gone_worker_fails_every_call)
{
	struct p9c c;
	static const uint8_t tclunk[] = {11, 0, 0, 0, 120, 0x34, 0x12, 1, 0, 0, 0};
	uint8_t resp[64];
	size_t n;

	p9c_init_worker(&c, false, true, NULL);
	ck_assert_int_eq(kill(p9_worker_pid(c.worker), SIGKILL), 0);
	memcpy(p9_worker_req(c.worker, 0), tclunk, sizeof(tclunk));
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(p9_worker_call(c.worker, 0, false, sizeof(tclunk), sizeof(resp)),
				 -EPIPE);
	/* What the device answers then: Rlerror(EIO) to the request's tag. */
	n = p9_reply_error(tclunk, sizeof(tclunk), -EIO, resp, sizeof(resp));
	ck_assert_uint_eq(n, 11);
	ck_assert_uint_eq(resp[4], 7);
	ck_assert_uint_eq(resp[5] | resp[6] << 8, 0x1234);
	ck_assert_uint_eq(resp[7], EIO);
	p9c_done(&c);
}
END_TEST

static void count_gone(void *userdata)
{
	(*(int *) userdata)++;
}

/* Terminal and process-group signals are the VMM's business; a worker that does go away is
 * reported once. */
START_TEST(test_signals_and_gone_callback)
{
	struct p9c c;
	int gone = 0;

	p9c_init_worker(&c, false, true, NULL);
	p9_worker_on_gone(c.worker, count_gone, &gone);
	ck_assert_int_eq(kill(p9_worker_pid(c.worker), SIGTERM), 0);
	ck_assert_int_eq(kill(p9_worker_pid(c.worker), SIGINT), 0);
	ck_assert_int_eq(kill(p9_worker_pid(c.worker), SIGHUP), 0);
	ASSERT_OK(p9c_walk1(&c, 0, 1, ""));
	ck_assert_int_eq(gone, 0);
	ck_assert_int_eq(kill(p9_worker_pid(c.worker), SIGKILL), 0);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(p9_worker_call(c.worker, 0, false, 7, 64), -EPIPE);
	ck_assert_int_eq(gone, 1);
	p9c_done(&c);
}
END_TEST

/* The exec'd worker (as cc-vmm runs it): this test program again, with --9p-test-worker. */
START_TEST(test_exec_worker)
{
	_cleanup_free_ char *dir = cctest_mkdtemp();
	char parent[32], self[4200], exe[4200], path[64];
	char *argv[] = {"test-9p-worker", "--9p-test-worker", parent, dir, NULL};
	struct p9_export_result res;
	struct p9_worker *w = NULL;
	ssize_t n;

	snprintf(parent, sizeof(parent), "%d", (int) getpid());
	ASSERT_OK(p9_worker_start(NULL, 1, argv, NULL, NULL, &w, &res));
	ASSERT_OK(res.error);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	ck_assert_int_gt(n, 0);
	self[n] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/exe", (int) p9_worker_pid(w));
	n = readlink(path, exe, sizeof(exe) - 1);
	ck_assert_int_gt(n, 0);
	exe[n] = '\0';
	ck_assert_str_eq(exe, self);
	ck_assert(cctest_fds_on(p9_worker_pid(w), dir, false) > 0);
	p9_worker_free(w);
	/* An exec that fails is a worker that never said hello. */
	argv[0] = "test-9p-worker";
	argv[1] = "--no-such-mode";
	ASSERT_ERRNO(p9_worker_start(NULL, 1, argv, NULL, NULL, &w, &res), ECHILD);
	cctest_rm_rf(dir);
}
END_TEST

START_TEST(test_ends_with_the_vmm)
{
	_cleanup_free_ char *dir = cctest_mkdtemp();
	int pfd[2];
	pid_t vmm, worker;

	ck_assert_int_eq(pipe(pfd), 0);
	vmm = fork();
	ck_assert_int_ge(vmm, 0);
	if (vmm == 0) {
		struct p9_export e = {.dir = dir};
		struct p9_export_result res;
		struct p9_worker *w = NULL;
		pid_t pid;

		if (p9_worker_start(&e, 1, NULL, NULL, NULL, &w, &res) < 0)
			_exit(1);
		pid = p9_worker_pid(w);
		if (write(pfd[1], &pid, sizeof(pid)) != sizeof(pid))
			_exit(1);
		/* killed: no chance to close the socket */
		raise(SIGKILL);
	}
	close(pfd[1]);
	ck_assert_int_eq(read(pfd[0], &worker, sizeof(worker)), sizeof(worker));
	close(pfd[0]);
	ck_assert_int_eq(waitpid(vmm, NULL, 0), vmm);
	for (int i = 0; i < 500 && kill(worker, 0) == 0; i++)
		(void) usleep(10 * 1000);
	ck_assert_msg(kill(worker, 0) < 0 && errno == ESRCH, "worker %d outlived its VMM",
		      (int) worker);
	cctest_rm_rf(dir);
}
END_TEST

static Suite *p9_worker_suite(void)
{
	Suite *s = suite_create("9p-worker");
	TCase *tc = tcase_create("worker");

	tcase_add_test(tc, test_serves_like_the_server);
	tcase_add_test(tc, test_every_op_within_its_filter);
	tcase_add_test(tc, test_unprivileged_worker_and_its_broker);
	tcase_add_test(tc, test_reset_forgets_fids);
	tcase_add_test(tc, test_read_only_export);
	tcase_add_test(tc, test_reports_each_export);
	tcase_add_test(tc, test_sandbox_failure_is_reported);
	tcase_add_test(tc, test_inherits_no_fd);
	tcase_add_test(tc, test_vmm_cannot_borrow_its_capabilities);
	tcase_add_test(tc, test_refuses_bad_messages);
	tcase_add_test(tc, test_gone_worker_fails_every_call);
	tcase_add_test(tc, test_signals_and_gone_callback);
	tcase_add_test(tc, test_exec_worker);
	tcase_add_test(tc, test_ends_with_the_vmm);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	/* test_exec_worker's worker: --9p-test-worker PARENT DIR */
	if (argc == 4 && strcmp(argv[1], "--9p-test-worker") == 0) {
		struct p9_export e = {.dir = argv[3]};

		p9_worker_main_exec((pid_t) atoi(argv[2]), &e, 1, NULL, NULL);
	}
	if (argc > 1)
		return 2;
	return cctest_run_suite(p9_worker_suite());
}
