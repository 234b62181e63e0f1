/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cc-vmm's sandbox on a running VM (the idle guest stays up): every thread has no_new_privs,
 * a seccomp filter of its own and no capability; with a share, the 9p worker (a child process)
 * has one filter and exactly the 9p set of capabilities, and the VMM no fd on the share; only the
 * VMM's own fds, 0-2 and the RKT_LOCK_FD pod lock are open; a syscall outside a thread kind's list
 * kills the VMM with SIGSYS (CC_VMM_SANDBOX_SELFTEST), and only logs with --seccomp log;
 * --no-sandbox turns it all off. KVM's kernel workers that the kernel attaches to the process
 * (kvm-*) are not the VMM's threads and are skipped, as in vmm_count_threads().
 */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <linux/kcmp.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cctest.h"
#include "vmm-run.h"
#include "vmm/exit.h"

#define TIMEOUT_MS  20000
#define CAPS_9P_RW  0x1bull /* CHOWN, DAC_OVERRIDE, FOWNER, FSETID */
#define CAPS_9P_RO  0x4ull  /* DAC_READ_SEARCH */
#define MAX_THREADS 16

struct thread_status {
	int tid;
	char comm[32];
	unsigned long long cap_inh, cap_prm, cap_eff, cap_bnd, cap_amb;
	int nnp, seccomp, filters;
};

static void status_parse(const char *path, struct thread_status *t)
{
	static const char *const keys[] = {"CapInh:", "CapPrm:", "CapEff:", "CapBnd:", "CapAmb:"};
	unsigned long long *vals[] = {&t->cap_inh, &t->cap_prm, &t->cap_eff, &t->cap_bnd,
				      &t->cap_amb};
	char line[256];
	FILE *f = fopen(path, "re");

	ck_assert_msg(f, "cannot open %s", path);
	t->nnp = t->seccomp = t->filters = -1;
	while (fgets(line, sizeof(line), f)) {
		for (unsigned i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (strncmp(line, keys[i], strlen(keys[i])) == 0)
				*vals[i] = strtoull(line + strlen(keys[i]), NULL, 16);
		if (strncmp(line, "NoNewPrivs:", 11) == 0)
			t->nnp = atoi(line + 11);
		else if (strncmp(line, "Seccomp:", 8) == 0)
			t->seccomp = atoi(line + 8);
		else if (strncmp(line, "Seccomp_filters:", 16) == 0)
			t->filters = atoi(line + 16);
		else if (strncmp(line, "Name:", 5) == 0)
			(void) sscanf(line + 5, "%31s", t->comm);
	}
	fclose(f);
}

/* Every thread of pid but KVM's kernel workers. */
static unsigned threads_read(pid_t pid, struct thread_status *ts)
{
	char dir[64], path[512];
	struct dirent *de;
	unsigned n = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/task", pid);
	d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)) && n < MAX_THREADS) {
		if (de->d_name[0] == '.')
			continue;
		memset(&ts[n], 0, sizeof(ts[n]));
		ts[n].tid = atoi(de->d_name);
		snprintf(path, sizeof(path), "%s/%s/status", dir, de->d_name);
		status_parse(path, &ts[n]);
		if (strncmp(ts[n].comm, "kvm-", 4) != 0)
			n++;
	}
	closedir(d);
	return n;
}

/* Spawns cc-vmm on the idle guest with extra args and waits for "ready" and n_threads. */
static void spawn_idle(const char *const *extra, unsigned n_threads, struct vmm_proc *p,
		       struct vmm_result *res)
{
	char *argv[32] = {"--kernel", (char *) vmm_guest("idle"), "--mem", "32", "--console",
			  "stdio"};
	unsigned n = 6;

	for (unsigned i = 0; extra && extra[i] && n < 31; i++)
		argv[n++] = (char *) extra[i];
	argv[n] = NULL;
	memset(res, 0, sizeof(*res));
	vmm_spawn(argv, p);
	ck_assert_msg(vmm_wait_output(p, "ready\n", TIMEOUT_MS, res), "guest not ready: %s / %s",
		      res->out, res->err);
	for (int i = 0; i < 500 && vmm_count_threads(p->pid) < n_threads; i++)
		(void) usleep(10 * 1000);
	ck_assert_uint_eq(vmm_count_threads(p->pid), n_threads);
}

static void stop_vmm(struct vmm_proc *p, struct vmm_result *res)
{
	kill(p->pid, SIGTERM);
	vmm_finish(p, TIMEOUT_MS, res);
	ck_assert_int_eq(res->status, VMM_EXIT_SIGNAL_BASE + SIGTERM);
}

/* Each thread: no_new_privs, its own single filter, main_caps on the main thread, else 0. */
static void assert_sandboxed(pid_t pid, unsigned n_vcpus, unsigned long long main_caps)
{
	struct thread_status ts[MAX_THREADS];
	unsigned n = 0, vcpus = 0, mains = 0;

	/* A vCPU thread can be seen before its first instruction, which installs its filter:
	 * give every thread up to 5 s to get there (under load), then check. */
	for (int tries = 0; tries < 500; tries++) {
		bool all = true;

		n = threads_read(pid, ts);
		for (unsigned i = 0; i < n; i++)
			all &= ts[i].seccomp == 2;
		if (all)
			break;
		(void) usleep(10 * 1000);
	}
	ck_assert_uint_eq(n, 1 + n_vcpus);
	for (unsigned i = 0; i < n; i++) {
		const struct thread_status *t = &ts[i];
		unsigned long long caps = t->tid == pid ? main_caps : 0;

		mains += t->tid == pid;
		vcpus += strncmp(t->comm, "vcpu", 4) == 0;
		ck_assert_msg(t->nnp == 1, "%s: NoNewPrivs %d", t->comm, t->nnp);
		ck_assert_msg(t->seccomp == 2, "%s: Seccomp %d", t->comm, t->seccomp);
		/* one filter each: the vCPU threads do not inherit the main thread's */
		ck_assert_msg(t->filters == -1 || t->filters == 1, "%s: %d filters", t->comm,
			      t->filters);
		ck_assert_msg(t->cap_eff == caps && t->cap_prm == caps,
			      "%s: CapEff %llx CapPrm %llx, expected %llx", t->comm, t->cap_eff,
			      t->cap_prm, caps);
		ck_assert_msg(t->cap_inh == 0 && t->cap_amb == 0 && t->cap_bnd == 0,
			      "%s: CapInh %llx CapAmb %llx CapBnd %llx", t->comm, t->cap_inh,
			      t->cap_amb, t->cap_bnd);
	}
	ck_assert_uint_eq(mains, 1);
	ck_assert_uint_eq(vcpus, n_vcpus);
}

START_TEST(test_every_thread_sandboxed)
{
	_cleanup_free_ char *dir = cctest_mkdtemp();
	char img[4200], vsock[4200];
	struct vmm_proc p;
	struct vmm_result res;
	int fd;

	vmm_require_kvm();
	snprintf(img, sizeof(img), "%s/disk.img", dir);
	snprintf(vsock, sizeof(vsock), "%s/v.sock", dir);
	fd = open(img, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 1 << 20), 0);
	close(fd);
	{
		char vs[4300];
		const char *extra[] = {"--cpus", "2", "--rng", "--blk", img, "--vsock", vs, NULL};

		snprintf(vs, sizeof(vs), "3:%s", vsock);
		spawn_idle(extra, 3, &p, &res);
	}
	assert_sandboxed(p.pid, 2, 0);
	stop_vmm(&p, &res);
	ck_assert_str_eq(res.err, "");
	cctest_rm_rf(dir);
}
END_TEST

/* The 9p worker: one thread, no_new_privs, its own filter, exactly caps. */
static void assert_worker_sandboxed(pid_t worker, const char *comm, unsigned long long caps)
{
	struct thread_status ts[MAX_THREADS];
	unsigned n = 0;

	for (int tries = 0; tries < 500; tries++) {
		n = threads_read(worker, ts);
		if (n == 1 && ts[0].seccomp == 2)
			break;
		(void) usleep(10 * 1000);
	}
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(ts[0].comm, comm);
	ck_assert_int_eq(ts[0].nnp, 1);
	ck_assert_int_eq(ts[0].seccomp, 2);
	ck_assert_msg(ts[0].filters == -1 || ts[0].filters == 1, "%d filters", ts[0].filters);
	ck_assert_msg(ts[0].cap_eff == caps && ts[0].cap_prm == caps,
		      "%s: CapEff %llx CapPrm %llx, expected %llx", comm, ts[0].cap_eff,
		      ts[0].cap_prm, caps);
	ck_assert_msg(ts[0].cap_inh == 0 && ts[0].cap_amb == 0 && ts[0].cap_bnd == 0,
		      "%s: CapInh %llx CapAmb %llx CapBnd %llx", comm, ts[0].cap_inh, ts[0].cap_amb,
		      ts[0].cap_bnd);
}

/* The first line of /proc/PID/maps naming what (its address range), into buf. */
/* Whether a line of /proc/PID/maps names what. */
static bool maps_has(pid_t pid, const char *what)
{
	char path[64], line[512];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int) pid);
	f = fopen(path, "re");
	ck_assert_ptr_nonnull(f);
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, what) != NULL;
	fclose(f);
	return found;
}

static void maps_line(pid_t pid, const char *what, char *buf, size_t size)
{
	char path[64], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int) pid);
	f = fopen(path, "re");
	ck_assert_ptr_nonnull(f);
	buf[0] = '\0';
	while (fgets(line, sizeof(line), f))
		if (strstr(line, what)) {
			snprintf(buf, size, "%.*s", (int) strcspn(line, " "), line);
			break;
		}
	fclose(f);
	ck_assert_msg(buf[0], "%d has no %s mapping", (int) pid, what);
}

/* The worker is cc-vmm exec'd again (cc-vmm-9p --9p-worker=VMM ...): its own address layout,
 * so that what a compromised VMM knows of its own says nothing of the worker's. */
static void assert_worker_execed(pid_t vmm, pid_t worker)
{
	char path[64], exe[4200], want[64], cmdline[256], a[128], b[128];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int) worker);
	n = readlink(path, exe, sizeof(exe) - 1);
	ck_assert_int_gt(n, 0);
	exe[n] = '\0';
	ck_assert_str_eq(exe, vmm_binary());
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int) worker);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	n = read(fd, cmdline, sizeof(cmdline) - 1);
	close(fd);
	ck_assert_int_gt(n, 0);
	cmdline[n] = '\0';
	snprintf(want, sizeof(want), "--9p-worker=%d", (int) vmm);
	ck_assert_str_eq(cmdline, "cc-vmm-9p");
	ck_assert_str_eq(cmdline + strlen(cmdline) + 1, want);
	maps_line(vmm, "[stack]", a, sizeof(a));
	maps_line(worker, "[stack]", b, sizeof(b));
	ck_assert_msg(strcmp(a, b) != 0, "the worker's stack is where the VMM's is: %s", a);
}

/* A --9p share: the VMM keeps no capability and no fd on it; the worker exactly the 9p set. */
static void check_9p_caps(bool ro, unsigned long long caps)
{
	_cleanup_free_ char *dir = cctest_mkdtemp();
	_cleanup_free_ char *vis = cctest_mkdtemp();
	char spec[4300], vspec[4300];
	const char *extra[] = {"--cpus",       "2",	  "--9p", spec, "--9p", vspec,
			       "--9p-visible", "visible", NULL};
	char path[4400];
	struct vmm_proc p;
	struct vmm_result res;
	pid_t worker, broker;
	int fd;

	vmm_require_kvm();
	snprintf(spec, sizeof(spec), "share:%s%s", dir, ro ? ",ro" : "");
	snprintf(vspec, sizeof(vspec), "visible:%s%s", vis, ro ? ",ro" : "");
	cctest_write_at(dir, "file", "x");
	cctest_write_at(vis, "file", "x");
	spawn_idle(extra, 3, &p, &res);
	assert_sandboxed(p.pid, 2, 0);
	ck_assert_int_eq(vmm_count_fds(p.pid, dir), 0);
	worker = vmm_9p_worker(p.pid);
	/* By path, the share is the worker's only: the VMM sees an empty read-only directory. */
	snprintf(path, sizeof(path), "/proc/%d/root%s/file", (int) p.pid, dir);
	ck_assert_int_eq(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "/proc/%d/root%s/file", (int) worker, dir);
	ck_assert_int_eq(access(path, F_OK), 0);
	/* A --9p-visible share stays in the VMM's root, read-only. */
	snprintf(path, sizeof(path), "/proc/%d/root%s/file", (int) p.pid, vis);
	ck_assert_int_eq(access(path, F_OK), 0);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	ck_assert_int_eq(fd, -1);
	ck_assert_int_eq(errno, EROFS);
	/* The worker parses 9P with no capability; its broker holds 9p's. */
	assert_worker_sandboxed(worker, "cc-vmm-9p", 0);
	broker = vmm_9p_broker(worker);
	assert_worker_sandboxed(broker, "cc-vmm-9p-fs", caps);
	assert_worker_execed(p.pid, worker);
	ck_assert_int_gt(vmm_count_fds(worker, dir), 0);
	/* The broker: its socket, the export roots, 0-2; nothing of the VMM's. */
	ck_assert_int_eq(vmm_count_fds(broker, dir), 2); /* its root, and its own fsp's */
	ck_assert_int_eq(vmm_count_fds(broker, "socket:"), 1);
	ck_assert_int_eq(vmm_count_fds(broker, "/memfd:"), 0);
	ck_assert_msg(!maps_has(broker, "memfd:"), "the broker maps the shared areas");
	stop_vmm(&p, &res);
	ck_assert_str_eq(res.err, "");
	/* and they ended with the VMM */
	ck_assert_int_eq(kill(worker, 0), -1);
	ck_assert_int_eq(kill(broker, 0), -1);
	cctest_rm_rf(dir);
	cctest_rm_rf(vis);
}

START_TEST(test_9p_rw_caps)
{
	check_9p_caps(false, CAPS_9P_RW);
}
END_TEST

START_TEST(test_9p_ro_caps)
{
	check_9p_caps(true, CAPS_9P_RO);
}
END_TEST

/* Is every fd of pid one of 0-2, lock_fd (on lock_path), or a VMM fd of the idle VM? */
static void assert_fds(pid_t pid, int lock_fd, const char *lock_path, const char *leak_path)
{
	static const char *const ours[] = {
		"/dev/kvm",
		"anon_inode:kvm-vm",
		"anon_inode:kvm-vcpu",
		"anon_inode:[eventpoll]",
		"anon_inode:[eventfd]",
		"anon_inode:[signalfd]",
	};
	char dir[64], link[512], dest[4200];
	struct dirent *de;
	bool lock_seen = false;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", pid);
	d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d))) {
		int fd = atoi(de->d_name);
		bool known = false;
		ssize_t n;

		if (de->d_name[0] == '.')
			continue;
		snprintf(link, sizeof(link), "%s/%s", dir, de->d_name);
		n = readlink(link, dest, sizeof(dest) - 1);
		ck_assert_int_gt(n, 0);
		dest[n] = '\0';
		ck_assert_msg(strcmp(dest, leak_path) != 0, "inherited fd %d still open", fd);
		if (fd <= 2)
			continue;
		if (fd == lock_fd) {
			ck_assert_str_eq(dest, lock_path);
			lock_seen = true;
			continue;
		}
		for (unsigned i = 0; i < sizeof(ours) / sizeof(ours[0]); i++)
			known |= strncmp(dest, ours[i], strlen(ours[i])) == 0;
		ck_assert_msg(known, "fd %d -> %s is not the VMM's", fd, dest);
	}
	closedir(d);
	ck_assert_msg(lock_seen, "the RKT_LOCK_FD fd %d was closed", lock_fd);
}

START_TEST(test_only_needed_fds)
{
	_cleanup_free_ char *dir = cctest_mkdtemp();
	char lock[4200], leak[4200], num[16];
	struct vmm_proc p;
	struct vmm_result res;
	int lock_fd, leak_fd;

	vmm_require_kvm();
	snprintf(lock, sizeof(lock), "%s/lock", dir);
	snprintf(leak, sizeof(leak), "%s/leak", dir);
	/* inherited by cc-vmm: no O_CLOEXEC on purpose */
	lock_fd = open(lock, O_RDONLY | O_CREAT, 0600);
	leak_fd = open(leak, O_RDONLY | O_CREAT, 0600);
	ck_assert_int_ge(lock_fd, 3);
	ck_assert_int_ge(leak_fd, 3);
	snprintf(num, sizeof(num), "%d", lock_fd);
	setenv("RKT_LOCK_FD", num, 1);
	spawn_idle(NULL, 2, &p, &res);
	assert_fds(p.pid, lock_fd, lock, leak);
	stop_vmm(&p, &res);

	/* control: without the sandbox the inherited fd stays, and there is no filter */
	{
		const char *extra[] = {"--no-sandbox", NULL};
		struct thread_status ts[MAX_THREADS];
		char path[128], dest[4200];
		ssize_t n;

		spawn_idle(extra, 2, &p, &res);
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", p.pid, leak_fd);
		n = readlink(path, dest, sizeof(dest) - 1);
		ck_assert_int_gt(n, 0);
		dest[n] = '\0';
		ck_assert_str_eq(dest, leak);
		ck_assert_uint_eq(threads_read(p.pid, ts), 2);
		ck_assert_int_eq(ts[0].seccomp, 0);
		ck_assert_int_eq(ts[1].seccomp, 0);
		stop_vmm(&p, &res);
	}
	unsetenv("RKT_LOCK_FD");
	close(lock_fd);
	close(leak_fd);
	cctest_rm_rf(dir);
}
END_TEST

/* Raw wait status of p (killed after timeout_ms: the test fails). */
static int wait_raw(struct vmm_proc *p, int timeout_ms)
{
	int st;

	for (int waited = 0;; waited += 5) {
		pid_t w = waitpid(p->pid, &st, WNOHANG);

		if (w == p->pid)
			break;
		if (waited > timeout_ms) {
			kill(p->pid, SIGKILL);
			waitpid(p->pid, &st, 0);
			ck_abort_msg("cc-vmm did not die");
		}
		(void) usleep(5000);
	}
	close(p->out_fd);
	close(p->err_fd);
	return st;
}

static const char *const selftest_kinds[] = {"vcpu", "vmm"};

START_TEST(test_forbidden_syscall_kills)
{
	char *argv[] = {"--kernel",  (char *) vmm_guest("idle"),
			"--mem",     "32",
			"--cpus",    "2",
			"--seccomp", "kill",
			NULL};
	struct vmm_proc p;
	int st;

	vmm_require_kvm();
	setenv("CC_VMM_SANDBOX_SELFTEST", selftest_kinds[_i], 1);
	vmm_spawn(argv, &p);
	st = wait_raw(&p, TIMEOUT_MS);
	ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS, "%s: wait status 0x%x",
		      selftest_kinds[_i], (unsigned) st);
	unsetenv("CC_VMM_SANDBOX_SELFTEST");
}
END_TEST

START_TEST(test_forbidden_syscall_logged)
{
	const char *extra[] = {"--cpus", "2", "--seccomp", "log", NULL};
	struct vmm_proc p;
	struct vmm_result res;

	vmm_require_kvm();
	setenv("CC_VMM_SANDBOX_SELFTEST", selftest_kinds[_i], 1);
	spawn_idle(extra, 3, &p, &res);
	(void) usleep(200 * 1000);
	ck_assert_int_eq(waitpid(p.pid, &(int){0}, WNOHANG), 0);
	assert_sandboxed(p.pid, 2, 0);
	stop_vmm(&p, &res);
	unsetenv("CC_VMM_SANDBOX_SELFTEST");
}
END_TEST

/* A worker killed under a running VM (SIGTERM to a process group does not: it ignores it) ends
 * the VM at once with a failure and a message, not a guest whose file systems answer EIO. */
static void check_worker_death(bool broker)
{
	_cleanup_free_ char *dir = cctest_mkdtemp();
	char spec[4300];
	const char *extra[] = {"--9p", spec, NULL};
	struct vmm_proc p;
	struct vmm_result res;
	pid_t worker, victim;

	vmm_require_kvm();
	snprintf(spec, sizeof(spec), "share:%s", dir);
	spawn_idle(extra, 2, &p, &res);
	worker = vmm_9p_worker(p.pid);
	victim = broker ? vmm_9p_broker(worker) : worker;
	ck_assert_int_eq(kill(victim, SIGTERM), 0);
	(void) usleep(100 * 1000);
	ck_assert_int_eq(kill(victim, 0), 0);
	ck_assert_int_eq(kill(victim, SIGKILL), 0);
	vmm_finish(&p, TIMEOUT_MS, &res);
	ck_assert_int_eq(res.status, VMM_EXIT_FAILURE);
	ck_assert_msg(strstr(res.err, "the 9p worker is gone"), "%s", res.err);
	/* Neither outlives the other. */
	ck_assert_int_eq(kill(worker, 0), -1);
	cctest_rm_rf(dir);
}

START_TEST(test_worker_death_stops_the_vm)
{
	check_worker_death(false);
}
END_TEST

/* Its broker's death too: the worker sees its socket close and ends, and the VM with it. */
START_TEST(test_broker_death_stops_the_vm)
{
	check_worker_death(true);
}
END_TEST

/* A forbidden syscall in the 9p worker ends the worker (SIGSYS) and so the VM, with a message. */
START_TEST(test_forbidden_syscall_in_9p_worker)
{
	_cleanup_free_ char *dir = cctest_mkdtemp();
	char spec[4300];
	char *argv[] = {"--kernel", (char *) vmm_guest("idle"), "--9p", spec, NULL};
	struct vmm_result res;

	vmm_require_kvm();
	snprintf(spec, sizeof(spec), "share:%s", dir);
	setenv("CC_VMM_SANDBOX_SELFTEST", "9p", 1);
	vmm_run(argv, TIMEOUT_MS, &res);
	unsetenv("CC_VMM_SANDBOX_SELFTEST");
	ck_assert_int_eq(res.status, VMM_EXIT_FAILURE);
	ck_assert_msg(strstr(res.err, "cannot start the 9p worker"), "%s", res.err);
	cctest_rm_rf(dir);
}
END_TEST

START_TEST(test_bad_options)
{
	char *bad_seccomp[] = {"--kernel", (char *) vmm_guest("idle"), "--seccomp", "trap", NULL};
	char *idle[] = {"--kernel", (char *) vmm_guest("idle"), NULL};
	struct vmm_result res;

	vmm_run(bad_seccomp, TIMEOUT_MS, &res);
	ck_assert_int_eq(res.status, VMM_EXIT_USAGE);
	ck_assert_str_eq(res.err, "cc-vmm: --seccomp: expected kill or log\n");
	setenv("RKT_LOCK_FD", "three", 1);
	vmm_run(idle, TIMEOUT_MS, &res);
	unsetenv("RKT_LOCK_FD");
	ck_assert_int_eq(res.status, VMM_EXIT_USAGE);
	ck_assert_str_eq(res.err, "cc-vmm: RKT_LOCK_FD: expected an fd number, got 'three'\n");
	setenv("CC_VMM_SANDBOX_SELFTEST", "bogus", 1);
	vmm_run(idle, TIMEOUT_MS, &res);
	unsetenv("CC_VMM_SANDBOX_SELFTEST");
	ck_assert_int_eq(res.status, VMM_EXIT_FAILURE);
	ck_assert_ptr_nonnull(strstr(res.err, "cannot enter the sandbox"));
}
END_TEST

/* kcmp(KCMP_FILE) of our fd with the VMM's /dev/kvm fd: 0 when they are one open file. */
static long kcmp_kvm_fd(pid_t pid, int fd)
{
	char dir[64], link[512], dest[64];
	struct dirent *de;
	long r = -1;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", pid);
	d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d))) {
		ssize_t n;

		snprintf(link, sizeof(link), "%s/%s", dir, de->d_name);
		n = readlink(link, dest, sizeof(dest) - 1);
		if (n <= 0)
			continue;
		dest[n] = '\0';
		if (strcmp(dest, "/dev/kvm") == 0)
			r = syscall(SYS_kcmp, getpid(), pid, KCMP_FILE, fd, atoi(de->d_name));
	}
	closedir(d);
	return r;
}

/*
 * --kvm-fd: the VM runs on an inherited KVM device (the stage1's jail has no /dev) and keeps
 * only its own duplicate; the number given is closed once the VM exists.
 */
START_TEST(test_kvm_fd)
{
	char num[16], *argv[] = {"--kernel",
				 (char *) vmm_guest("idle"),
				 "--kvm-fd",
				 num,
				 "--kvm-device",
				 "/dev/kvm",
				 NULL};
	const char *extra[] = {"--kvm-fd", num, "--kvm-device", "/nonexistent", NULL};
	struct vmm_proc p;
	struct vmm_result res;
	int kvm_fd;

	vmm_require_kvm();
	kvm_fd = open("/dev/kvm", O_RDWR); /* inherited: no O_CLOEXEC on purpose */
	ck_assert_int_ge(kvm_fd, 3);
	snprintf(num, sizeof(num), "%d", kvm_fd);
	vmm_run(argv, TIMEOUT_MS, &res);
	ck_assert_int_eq(res.status, VMM_EXIT_USAGE);
	ck_assert_str_eq(res.err, "cc-vmm: --kvm-fd and --kvm-device exclude each other\n");
	/* --kvm-device comes after: drop it, keep the rest; /nonexistent would fail if used */
	extra[2] = NULL;
	spawn_idle(extra, 2, &p, &res);
	/* one: the VM's duplicate of ours (kcmp: the same open file, not /dev/kvm opened again) */
	ck_assert_int_eq(vmm_count_fds(p.pid, "/dev/kvm"), 1);
	ck_assert_int_eq(kcmp_kvm_fd(p.pid, kvm_fd), 0);
	stop_vmm(&p, &res);
	close(kvm_fd);
	snprintf(num, sizeof(num), "%d", 900);
	argv[4] = NULL;
	vmm_run(argv, TIMEOUT_MS, &res);
	ck_assert_int_eq(res.status, VMM_EXIT_FAILURE);
	ck_assert_str_eq(res.err, "cc-vmm: --kvm-fd: fd 900 is not open: Bad file descriptor\n");
}
END_TEST

/*
 * CC_VMM_SANDBOX_SELFTEST=escape:FILE is the attacker's test of the stage1's jail
 * (tests/unit/stage1-run/test-run-real-vmm); here, without a jail, it must find a way out and
 * fail the VM naming it, or the jail's "refused" would prove nothing.
 */
START_TEST(test_escape_selftest_finds_a_way_out)
{
	_cleanup_free_ char *dir = cctest_mkdtemp();
	char share[4200], canary[4200], env[4300];
	char *argv[] = {"--kernel", (char *) vmm_guest("idle"), "--9p", share, NULL};
	struct vmm_result res;
	FILE *f;

	vmm_require_kvm();
	snprintf(share, sizeof(share), "pod:%s", dir);
	snprintf(canary, sizeof(canary), "%s.canary", dir);
	f = fopen(canary, "we");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	snprintf(env, sizeof(env), "escape:%s", canary);
	setenv("CC_VMM_SANDBOX_SELFTEST", env, 1);
	vmm_run(argv, TIMEOUT_MS, &res);
	ck_assert_int_eq(res.status, VMM_EXIT_FAILURE);
	ck_assert_msg(strstr(res.err, "sandbox selftest: escape: opened ") &&
			      strstr(res.err, "by its name"),
		      "%s", res.err);
	setenv("CC_VMM_SANDBOX_SELFTEST", "escape:relative", 1);
	vmm_run(argv, TIMEOUT_MS, &res);
	ck_assert_int_eq(res.status, VMM_EXIT_FAILURE);
	ck_assert_ptr_nonnull(strstr(res.err, "sandbox selftest: escape: Invalid argument"));
	unsetenv("CC_VMM_SANDBOX_SELFTEST");
	unlink(canary);
	cctest_rm_rf(dir);
}
END_TEST

static Suite *sandbox_suite(void)
{
	Suite *s = suite_create("vmm-sandbox");
	TCase *tc = tcase_create("sandbox");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_every_thread_sandboxed);
	tcase_add_test(tc, test_9p_rw_caps);
	tcase_add_test(tc, test_9p_ro_caps);
	tcase_add_test(tc, test_only_needed_fds);
	tcase_add_loop_test(tc, test_forbidden_syscall_kills, 0, 2);
	tcase_add_loop_test(tc, test_forbidden_syscall_logged, 0, 2);
	tcase_add_test(tc, test_forbidden_syscall_in_9p_worker);
	tcase_add_test(tc, test_worker_death_stops_the_vm);
	tcase_add_test(tc, test_broker_death_stops_the_vm);
	tcase_add_test(tc, test_bad_options);
	tcase_add_test(tc, test_kvm_fd);
	tcase_add_test(tc, test_escape_selftest_finds_a_way_out);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(sandbox_suite());
}
