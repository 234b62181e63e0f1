/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The sandbox pieces without KVM: the seccomp tables (documented, resolvable, no dangerous
 * syscall, KVM_RUN only for vCPUs), the filters they build (loaded in forked children: an
 * allowed call works, a forbidden one or a forbidden argument kills with SIGSYS, LOG lets it
 * through), the selftest variable, the 9p capability sets, dropping capabilities and closing
 * inherited fds.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/kvm.h>
#include <linux/openat2.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cctest.h"
#include "sandbox/sandbox-caps.h"
#include "sandbox/sandbox-fds.h"
#include "sandbox/sandbox-filter.h"
#include "sandbox/sandbox-rules.h"
#include "sandbox/sandbox.h"

/* Ends the child without exit_group (not in the vCPU list): the last thread's exit. */
static _Noreturn void child_exit(int status)
{
	syscall(SYS_exit, status);
	abort();
}

typedef void (*child_fn)(void);

/* Forks; the child loads the filter of kind/action, runs fn and exits 0. Returns wait status. */
static int run_filtered(enum sandbox_thread kind, enum sandbox_action action, child_fn fn)
{
	pid_t pid = fork();
	int status;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		scmp_filter_ctx ctx = NULL;

		if (sandbox_filter_new(kind, action, &ctx) < 0 || seccomp_load(ctx) < 0)
			_exit(99);
		fn();
		/* The 9p processes are single-threaded: their tables end them with exit_group. */
		if (kind == SANDBOX_THREAD_9P || kind == SANDBOX_THREAD_9P_BROKER)
			syscall(SYS_exit_group, 0);
		child_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return status;
}

#define ASSERT_SIGSYS(st)                                                            \
	ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS, "wait status 0x%x", \
		      (unsigned) (st))
/*
 * Sanitizer runtimes make syscalls of their own (interceptors) that no VMM table allows, which
 * is why cc-vmm logs instead of killing in sanitizer builds (vm/vm.c). There the probes of
 * what a table allows run in log mode; the normal build runs them in kill mode. The probes
 * of what a table forbids keep kill mode everywhere.
 */
#if defined(__SANITIZE_ADDRESS__)
#define ALLOWED_PROBE_ACTION SANDBOX_ACTION_LOG
#else
#define ALLOWED_PROBE_ACTION SANDBOX_ACTION_KILL
#endif

#define ASSERT_EXIT0(st) \
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "wait status 0x%x", (unsigned) (st))

/* Does any row of kind's table allow syscall nr with this ioctl request (or any, if -1)? */
static bool table_allows(enum sandbox_thread kind, int nr, long long arg1)
{
	unsigned n;
	const struct sandbox_rule *rules = sandbox_rules_get(kind, &n);

	for (unsigned i = 0; i < n; i++) {
		if (rules[i].nr != nr)
			continue;
		if (rules[i].n_cmp == 0 || arg1 < 0)
			return true;
		if (rules[i].cmp[0].arg == 1 && rules[i].cmp[0].datum_a == (scmp_datum_t) arg1)
			return true;
	}
	return false;
}

/* A syscall's number; a name libseccomp does not know (a typo) fails the test, so that a check
 * of "not allowed" cannot pass on a number that no table could hold. */
static int resolve(const char *name)
{
	int nr = seccomp_syscall_resolve_name(name);

	ck_assert_msg(nr >= 0, "unknown syscall name '%s'", name);
	return nr;
}

START_TEST(test_rules_documented_and_resolvable)
{
	for (int k = 0; k < _SANDBOX_THREAD_MAX; k++) {
		unsigned n;
		const struct sandbox_rule *rules = sandbox_rules_get(k, &n);

		ck_assert_ptr_nonnull(rules);
		ck_assert_uint_gt(n, 5);
		for (unsigned i = 0; i < n; i++) {
			ck_assert_msg(rules[i].why && strlen(rules[i].why) > 3, "%s: no reason",
				      rules[i].name);
			ck_assert_int_ge(rules[i].nr, 0);
			ck_assert_int_eq(seccomp_syscall_resolve_name(rules[i].name), rules[i].nr);
			ck_assert_uint_le(rules[i].n_cmp, SANDBOX_RULE_MAX_CMP);
			for (unsigned j = 0; j < i; j++)
				ck_assert_msg(rules[j].nr != rules[i].nr ||
						      rules[j].n_cmp != rules[i].n_cmp ||
						      memcmp(rules[j].cmp, rules[i].cmp,
							     sizeof(rules[i].cmp)) != 0,
					      "%s: rule %u repeats rule %u", rules[i].name, i, j);
		}
	}
	ck_assert_ptr_null(sandbox_rules_get(_SANDBOX_THREAD_MAX, &(unsigned){0}));
}
END_TEST

START_TEST(test_rules_forbid_dangerous_syscalls)
{
	static const char *const never[] = {
		"execve",
		"execveat",
		"fork",
		"vfork",
		"clone",
		"clone3",
		"ptrace",
		"kill",
		"tkill",
		"getppid",
		"process_vm_writev",
		"mount",
		"umount2",
		"pivot_root",
		"chroot",
		"setuid",
		"setgid",
		"setns",
		"unshare",
		"bpf",
		"perf_event_open",
		"seccomp",
		"prctl",
		"capset",
		"init_module",
		"finit_module",
		"kexec_load",
		"open_by_handle_at",
		"keyctl",
		"add_key",
		"userfaultfd",
		"io_uring_setup",
		"personality",
		"memfd_create",
		"socketpair",
	};

	for (int k = 0; k < _SANDBOX_THREAD_MAX; k++)
		for (unsigned i = 0; i < sizeof(never) / sizeof(never[0]); i++)
			ck_assert_msg(!table_allows(k, resolve(never[i]), -1), "%s allows %s",
				      sandbox_thread_to_string(k), never[i]);
}
END_TEST

START_TEST(test_rules_kvm_run_only_on_vcpu)
{
	int ioctl_nr = resolve("ioctl");

	ck_assert(table_allows(SANDBOX_THREAD_VCPU, ioctl_nr, KVM_RUN));
	ck_assert(!table_allows(SANDBOX_THREAD_VMM, ioctl_nr, KVM_RUN));
	/* no thread may create VMs or vCPUs, or change memory slots, after setup */
	for (int k = 0; k < _SANDBOX_THREAD_MAX; k++) {
		ck_assert(!table_allows(k, ioctl_nr, KVM_CREATE_VM));
		ck_assert(!table_allows(k, ioctl_nr, KVM_CREATE_VCPU));
		ck_assert(!table_allows(k, ioctl_nr, KVM_SET_USER_MEMORY_REGION));
	}
	ck_assert(!table_allows(SANDBOX_THREAD_VCPU, ioctl_nr, BLKDISCARD));
	ck_assert(table_allows(SANDBOX_THREAD_VMM, ioctl_nr, BLKDISCARD));
}
END_TEST

/*
 * The file system is the 9p worker's alone: the VMM's threads cannot open, create, chown or
 * chmod anything. The worker, which parses 9P, only reads and walks; what changes a name, an
 * owner, a mode or an xattr is its broker's. Neither has a KVM, network or socket call.
 */
START_TEST(test_rules_files_only_in_9p_worker)
{
	static const char *const reads[] = {"openat", "getdents64", "getxattr", "readlinkat"};
	static const char *const changes[] = {"mkdirat",   "fchownat", "fchmodat",  "linkat",
					      "renameat2", "setxattr", "utimensat", "ftruncate"};
	static const char *const neither[] = {"ioctl",	 "socket",    "connect", "accept4",
					      "mincore", "fallocate", "execve",	 "ptrace"};
	const enum sandbox_thread broker = SANDBOX_THREAD_9P_BROKER, parser = SANDBOX_THREAD_9P;

	for (unsigned i = 0; i < sizeof(reads) / sizeof(reads[0]); i++) {
		int nr = resolve(reads[i]);

		ck_assert_msg(table_allows(parser, nr, -1), "9p lacks %s", reads[i]);
		ck_assert_msg(!table_allows(SANDBOX_THREAD_VMM, nr, -1), "vmm allows %s", reads[i]);
		ck_assert_msg(!table_allows(SANDBOX_THREAD_VCPU, nr, -1), "vcpu allows %s",
			      reads[i]);
	}
	for (unsigned i = 0; i < sizeof(changes) / sizeof(changes[0]); i++) {
		int nr = resolve(changes[i]);

		ck_assert_msg(table_allows(broker, nr, -1), "9p-broker lacks %s", changes[i]);
		ck_assert_msg(!table_allows(parser, nr, -1), "9p allows %s", changes[i]);
		ck_assert_msg(!table_allows(SANDBOX_THREAD_VMM, nr, -1), "vmm allows %s",
			      changes[i]);
	}
	for (unsigned i = 0; i < sizeof(neither) / sizeof(neither[0]); i++) {
		ck_assert_msg(!table_allows(parser, resolve(neither[i]), -1), "9p allows %s",
			      neither[i]);
		ck_assert_msg(!table_allows(broker, resolve(neither[i]), -1), "9p-broker allows %s",
			      neither[i]);
	}
	/* openat2 hides its flags from the filter: the worker has openat only, flags checked. */
	ck_assert(!table_allows(parser, resolve("openat2"), -1));
	/* unlinkat too (the VMM keeps it for its vsock sockets). */
	ck_assert(table_allows(broker, resolve("unlinkat"), -1));
	ck_assert(!table_allows(parser, resolve("unlinkat"), -1));
	/* The broker talks to its worker only: no poll, no wait, no sendto or recvfrom. */
	ck_assert(!table_allows(broker, resolve("sendto"), -1));
	ck_assert(!table_allows(broker, resolve("wait4"), -1));
}
END_TEST

START_TEST(test_filters_build_and_export)
{
	for (int k = 0; k < _SANDBOX_THREAD_MAX; k++) {
		for (int a = 0; a < _SANDBOX_ACTION_MAX; a++) {
			_cleanup_(seccomp_releasep) scmp_filter_ctx ctx = NULL;
			char buf[65536];
			FILE *f = tmpfile();
			size_t len;

			ck_assert_ptr_nonnull(f);
			ASSERT_OK(sandbox_filter_new(k, a, &ctx));
			ck_assert_int_eq(seccomp_export_pfc(ctx, fileno(f)), 0);
			rewind(f);
			len = fread(buf, 1, sizeof(buf) - 1, f);
			buf[len] = '\0';
			fclose(f);
			ck_assert_ptr_nonnull(strstr(buf, a == SANDBOX_ACTION_KILL
								  ? "action KILL_PROCESS;"
								  : "action LOG;"));
			ck_assert_ptr_null(strstr(buf, "getppid"));
			/* the VMM's threads: KVM; the 9p worker and broker: files, and no ioctl */
			bool files = k == SANDBOX_THREAD_9P || k == SANDBOX_THREAD_9P_BROKER;

			ck_assert_ptr_nonnull(strstr(buf, files ? "openat" : "ioctl"));
			if (files)
				ck_assert_ptr_null(strstr(buf, "ioctl"));
		}
	}
	ASSERT_ERRNO(sandbox_filter_new(_SANDBOX_THREAD_MAX, SANDBOX_ACTION_KILL,
					&(scmp_filter_ctx){NULL}),
		     EINVAL);
	ASSERT_ERRNO(sandbox_filter_new(SANDBOX_THREAD_VMM, _SANDBOX_ACTION_MAX,
					&(scmp_filter_ctx){NULL}),
		     EINVAL);
}
END_TEST

static void call_getppid(void)
{
	(void) getppid();
}

static void call_kvm_run(void)
{
	if (ioctl(-1, KVM_RUN, 0) != -1 || errno != EBADF)
		child_exit(3);
}

static void call_blkdiscard(void)
{
	if (ioctl(-1, BLKDISCARD, 0) != -1 || errno != EBADF)
		child_exit(3);
}

static void call_socket_unix(void)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		child_exit(3);
	close(fd);
}

static void call_socket_inet(void)
{
	(void) socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
}

static void call_mmap_rw(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		child_exit(3);
}

static void call_mmap_exec(void)
{
	(void) mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

static void call_tgkill_other(void)
{
	(void) syscall(SYS_tgkill, 1, 1, 0);
}

static void call_tgkill_self(void)
{
	if (syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), 0) != 0)
		child_exit(3);
}

START_TEST(test_filter_vmm)
{
	ASSERT_SIGSYS(run_filtered(SANDBOX_THREAD_VMM, SANDBOX_ACTION_KILL, call_getppid));
	ASSERT_SIGSYS(run_filtered(SANDBOX_THREAD_VMM, SANDBOX_ACTION_KILL, call_kvm_run));
	ASSERT_EXIT0(run_filtered(SANDBOX_THREAD_VMM, ALLOWED_PROBE_ACTION, call_blkdiscard));
	ASSERT_EXIT0(run_filtered(SANDBOX_THREAD_VMM, ALLOWED_PROBE_ACTION, call_socket_unix));
	ASSERT_SIGSYS(run_filtered(SANDBOX_THREAD_VMM, SANDBOX_ACTION_KILL, call_socket_inet));
	ASSERT_EXIT0(run_filtered(SANDBOX_THREAD_VMM, ALLOWED_PROBE_ACTION, call_mmap_rw));
	ASSERT_SIGSYS(run_filtered(SANDBOX_THREAD_VMM, SANDBOX_ACTION_KILL, call_mmap_exec));
	ASSERT_SIGSYS(run_filtered(SANDBOX_THREAD_VMM, SANDBOX_ACTION_KILL, call_tgkill_other));
	ASSERT_EXIT0(run_filtered(SANDBOX_THREAD_VMM, ALLOWED_PROBE_ACTION, call_tgkill_self));
}
END_TEST

static void call_open_path(void)
{
	int fd = openat(AT_FDCWD, "/", O_PATH | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		child_exit(3);
	close(fd);
}

static void call_open_creat(void)
{
	(void) openat(AT_FDCWD, "/nonexistent-dir/x", O_WRONLY | O_CREAT | O_CLOEXEC, 06755);
}

static void call_open_trunc(void)
{
	(void) openat(AT_FDCWD, "/nonexistent-dir/x", O_WRONLY | O_TRUNC | O_CLOEXEC);
}

static void call_open_tmpfile(void)
{
	(void) openat(AT_FDCWD, "/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
}

static void call_openat2(void)
{
	struct open_how how = {.flags = O_PATH};

	(void) syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof(how));
}

static void call_mmap_shared(void)
{
	(void) mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
}

static void call_fchmodat(void)
{
	if (fchmodat(AT_FDCWD, "/nonexistent-dir/x", 04755, 0) != -1 || errno != ENOENT)
		child_exit(3);
}

/* The worker, which parses 9P, creates, truncates and chmods nothing, and maps nothing shared;
 * its broker may (docs/9p.md, "Seccomp"). */
START_TEST(test_filter_9p_worker_and_broker)
{
	const enum sandbox_thread w = SANDBOX_THREAD_9P, b = SANDBOX_THREAD_9P_BROKER;

	ASSERT_EXIT0(run_filtered(w, ALLOWED_PROBE_ACTION, call_open_path));
	ASSERT_EXIT0(run_filtered(w, ALLOWED_PROBE_ACTION, call_mmap_rw));
	ASSERT_SIGSYS(run_filtered(w, SANDBOX_ACTION_KILL, call_open_creat));
	ASSERT_SIGSYS(run_filtered(w, SANDBOX_ACTION_KILL, call_open_trunc));
	ASSERT_SIGSYS(run_filtered(w, SANDBOX_ACTION_KILL, call_open_tmpfile));
	ASSERT_SIGSYS(run_filtered(w, SANDBOX_ACTION_KILL, call_openat2));
	ASSERT_SIGSYS(run_filtered(w, SANDBOX_ACTION_KILL, call_mmap_shared));
	ASSERT_SIGSYS(run_filtered(w, SANDBOX_ACTION_KILL, call_mmap_exec));
	ASSERT_SIGSYS(run_filtered(w, SANDBOX_ACTION_KILL, call_fchmodat));
	ASSERT_EXIT0(run_filtered(b, ALLOWED_PROBE_ACTION, call_open_path));
	ASSERT_EXIT0(run_filtered(b, ALLOWED_PROBE_ACTION, call_fchmodat));
	ASSERT_SIGSYS(run_filtered(b, SANDBOX_ACTION_KILL, call_mmap_exec));
	ASSERT_SIGSYS(run_filtered(b, SANDBOX_ACTION_KILL, call_getppid));
}
END_TEST

START_TEST(test_filter_vcpu)
{
	ASSERT_SIGSYS(run_filtered(SANDBOX_THREAD_VCPU, SANDBOX_ACTION_KILL, call_getppid));
	ASSERT_EXIT0(run_filtered(SANDBOX_THREAD_VCPU, ALLOWED_PROBE_ACTION, call_kvm_run));
	ASSERT_SIGSYS(run_filtered(SANDBOX_THREAD_VCPU, SANDBOX_ACTION_KILL, call_blkdiscard));
	ASSERT_SIGSYS(run_filtered(SANDBOX_THREAD_VCPU, SANDBOX_ACTION_KILL, call_socket_unix));
	ASSERT_EXIT0(run_filtered(SANDBOX_THREAD_VCPU, ALLOWED_PROBE_ACTION, call_mmap_rw));
	ASSERT_SIGSYS(run_filtered(SANDBOX_THREAD_VCPU, SANDBOX_ACTION_KILL, call_mmap_exec));
}
END_TEST

START_TEST(test_filter_log_lets_through)
{
	for (int k = 0; k < _SANDBOX_THREAD_MAX; k++) {
		ASSERT_EXIT0(run_filtered(k, SANDBOX_ACTION_LOG, call_getppid));
		ASSERT_EXIT0(run_filtered(k, SANDBOX_ACTION_LOG, call_socket_unix));
	}
}
END_TEST

/* sandbox_new + sandbox_enter_thread in a child with CC_VMM_SANDBOX_SELFTEST=value. */
static int run_selftest(const char *value, enum sandbox_thread kind, enum sandbox_action action)
{
	pid_t pid = fork();
	int status;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct sandbox_config cfg = {.action = action, .keep_fd = -1};
		struct sandbox *sb = NULL;
		int r;

		setenv(SANDBOX_SELFTEST_ENV, value, 1);
		r = sandbox_new(&cfg, &sb);
		if (r < 0)
			_exit(-r);
		if (sandbox_enter_thread(sb, kind) < 0)
			_exit(98);
		child_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return status;
}

START_TEST(test_selftest_variable)
{
	ASSERT_SIGSYS(run_selftest("vcpu", SANDBOX_THREAD_VCPU, SANDBOX_ACTION_KILL));
	ASSERT_SIGSYS(run_selftest("vmm", SANDBOX_THREAD_VMM, SANDBOX_ACTION_KILL));
	/* another kind's selftest does not fire here */
	ASSERT_EXIT0(run_selftest("vmm", SANDBOX_THREAD_VCPU, ALLOWED_PROBE_ACTION));
	ASSERT_EXIT0(run_selftest("", SANDBOX_THREAD_VMM, ALLOWED_PROBE_ACTION));
	ASSERT_EXIT0(run_selftest("vcpu", SANDBOX_THREAD_VCPU, SANDBOX_ACTION_LOG));
	{
		int st = run_selftest("bogus", SANDBOX_THREAD_VCPU, SANDBOX_ACTION_KILL);

		ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == EINVAL);
	}
}
END_TEST

START_TEST(test_names)
{
	for (int k = 0; k < _SANDBOX_THREAD_MAX; k++)
		ck_assert_int_eq(sandbox_thread_from_string(sandbox_thread_to_string(k)), k);
	for (int a = 0; a < _SANDBOX_ACTION_MAX; a++)
		ck_assert_int_eq(sandbox_action_from_string(sandbox_action_to_string(a)), a);
	ck_assert_int_eq(sandbox_thread_from_string("main"), _SANDBOX_THREAD_INVALID);
	ck_assert_int_eq(sandbox_action_from_string(NULL), _SANDBOX_ACTION_INVALID);
	ck_assert_ptr_null(sandbox_thread_to_string(_SANDBOX_THREAD_MAX));
}
END_TEST

START_TEST(test_caps_for_9p)
{
	const uint64_t rw = SANDBOX_CAP(CAP_CHOWN) | SANDBOX_CAP(CAP_DAC_OVERRIDE) |
			    SANDBOX_CAP(CAP_FOWNER) | SANDBOX_CAP(CAP_FSETID);

	ck_assert_uint_eq(sandbox_caps_for_9p(false, false), 0);
	ck_assert_uint_eq(sandbox_caps_for_9p(false, true), SANDBOX_CAP(CAP_DAC_READ_SEARCH));
	ck_assert_uint_eq(sandbox_caps_for_9p(true, false), rw);
	ck_assert_uint_eq(sandbox_caps_for_9p(true, true), rw);
	ck_assert_uint_eq(rw, 0x1b);
}
END_TEST

/* The value of "Field:" in /proc/self/status, as hex. */
static unsigned long long status_hex(const char *field)
{
	char line[256];
	unsigned long long v = ~0ull;
	FILE *f = fopen("/proc/self/status", "re");

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, field, strlen(field)) == 0)
			v = strtoull(line + strlen(field), NULL, 16);
	fclose(f);
	return v;
}

START_TEST(test_caps_apply)
{
	pid_t pid = fork();
	int status;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		bool root = geteuid() == 0;

		if (sandbox_caps_apply(SANDBOX_CAP(CAP_DAC_READ_SEARCH), true) < 0)
			_exit(2);
		if (status_hex("CapEff:") != (root ? 0x4 : 0) ||
		    status_hex("CapPrm:") != (root ? 0x4 : 0) || status_hex("CapInh:") != 0 ||
		    status_hex("CapAmb:") != 0 || (root && status_hex("CapBnd:") != 0))
			_exit(3);
		if (sandbox_caps_apply(0, false) < 0)
			_exit(4);
		_exit(status_hex("CapEff:") == 0 && status_hex("CapPrm:") == 0 ? 0 : 5);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ASSERT_EXIT0(status);
}
END_TEST

START_TEST(test_fds_close_inherited)
{
	pid_t pid = fork();
	int status;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		bool std_open[3];
		int inherited, keep, ours, n;

		for (int fd = 0; fd <= 2; fd++)
			std_open[fd] = fcntl(fd, F_GETFD) >= 0;
		inherited = open("/dev/null", O_RDONLY);
		keep = open("/dev/null", O_RDONLY);
		ours = open("/dev/null", O_RDONLY | O_CLOEXEC);
		n = sandbox_fds_close_inherited(keep);

		if (n < 1)
			_exit(2);
		if (fcntl(inherited, F_GETFD) != -1 || errno != EBADF)
			_exit(3);
		if (fcntl(keep, F_GETFD) < 0 || fcntl(ours, F_GETFD) < 0)
			_exit(4);
		for (int fd = 0; fd <= 2; fd++)
			if ((fcntl(fd, F_GETFD) >= 0) != std_open[fd])
				_exit(5);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ASSERT_EXIT0(status);
}
END_TEST

/* The process step in a child: fds, no_new_privs, capabilities (as root), then a thread. */
START_TEST(test_enter_process)
{
	pid_t pid = fork();
	int status;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct sandbox_config cfg = {
			.action = SANDBOX_ACTION_KILL,
			.keep_fd = -1,
			.vmm_caps = SANDBOX_CAP(CAP_DAC_READ_SEARCH),
		};
		struct sandbox *sb = NULL;
		int inherited = open("/dev/null", O_RDONLY);
		bool root = geteuid() == 0;

		unsetenv(SANDBOX_SELFTEST_ENV);
		if (inherited < 0 || sandbox_new(&cfg, &sb) < 0 || sandbox_enter_process(sb) < 0)
			_exit(2);
		if (fcntl(inherited, F_GETFD) != -1 || status_hex("NoNewPrivs:") != 1)
			_exit(3);
		if (status_hex("CapEff:") != (root ? 0x4 : 0) || (root && status_hex("CapBnd:")))
			_exit(4);
		if (status_hex("Seccomp:") != 0 || sandbox_enter_thread(sb, SANDBOX_THREAD_VMM) < 0)
			_exit(5);
		/* the vmm filter is on: still no capability gained, and KVM_RUN kills */
		if (status_hex("Seccomp:") != 2 || status_hex("CapEff:") != (root ? 0x4 : 0))
			_exit(6);
		(void) ioctl(-1, KVM_RUN, 0);
		_exit(7);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ASSERT_SIGSYS(status);
}
END_TEST

static Suite *sandbox_suite(void)
{
	Suite *s = suite_create("sandbox");
	TCase *tc = tcase_create("tables");

	tcase_add_test(tc, test_rules_documented_and_resolvable);
	tcase_add_test(tc, test_rules_forbid_dangerous_syscalls);
	tcase_add_test(tc, test_rules_kvm_run_only_on_vcpu);
	tcase_add_test(tc, test_rules_files_only_in_9p_worker);
	tcase_add_test(tc, test_filters_build_and_export);
	tcase_add_test(tc, test_names);
	suite_add_tcase(s, tc);
	tc = tcase_create("filters");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_filter_vmm);
	tcase_add_test(tc, test_filter_9p_worker_and_broker);
	tcase_add_test(tc, test_filter_vcpu);
	tcase_add_test(tc, test_filter_log_lets_through);
	tcase_add_test(tc, test_selftest_variable);
	suite_add_tcase(s, tc);
	tc = tcase_create("process");
	tcase_add_test(tc, test_caps_for_9p);
	tcase_add_test(tc, test_caps_apply);
	tcase_add_test(tc, test_fds_close_inherited);
	tcase_add_test(tc, test_enter_process);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(sandbox_suite());
}
