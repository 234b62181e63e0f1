/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cc/cleanup.h"
#include "errno-names.h"
#include "seccomp.h"
#include "util.h"

/* rkt's @rkt/default-blacklist, which is Docker's default deny-list. */
static const char *const deny_default[] = {
	"_sysctl",
	"acct",
	"add_key",
	"adjtimex",
	"bpf",
	"clock_adjtime",
	"clock_settime",
	"create_module",
	"delete_module",
	"finit_module",
	"get_kernel_syms",
	"get_mempolicy",
	"init_module",
	"ioperm",
	"iopl",
	"kcmp",
	"kexec_file_load",
	"kexec_load",
	"keyctl",
	"lookup_dcookie",
	"mbind",
	"mount",
	"move_pages",
	"name_to_handle_at",
	"nfsservctl",
	"open_by_handle_at",
	"perf_event_open",
	"pivot_root",
	"process_vm_readv",
	"process_vm_writev",
	"ptrace",
	"query_module",
	"quotactl",
	"reboot",
	"request_key",
	"set_mempolicy",
	"setns",
	"settimeofday",
	"stime",
	"swapoff",
	"swapon",
	"sysfs",
	"umount",
	"umount2",
	"unshare",
	"uselib",
	"userfaultfd",
	"ustat",
	"vm86",
	"vm86old",
};

/* rkt's @rkt/default-whitelist (Docker's old default allow-list), for apps that ask for it. */
static const char *const allow_default[] = {
	"accept",
	"accept4",
	"access",
	"alarm",
	"arch_prctl",
	"bind",
	"brk",
	"capget",
	"capset",
	"chdir",
	"chmod",
	"chown",
	"chown32",
	"chroot",
	"clock_getres",
	"clock_gettime",
	"clock_nanosleep",
	"clone",
	"close",
	"connect",
	"copy_file_range",
	"creat",
	"dup",
	"dup2",
	"dup3",
	"epoll_create",
	"epoll_create1",
	"epoll_ctl",
	"epoll_ctl_old",
	"epoll_pwait",
	"epoll_wait",
	"epoll_wait_old",
	"eventfd",
	"eventfd2",
	"execve",
	"execveat",
	"exit",
	"exit_group",
	"faccessat",
	"fadvise64",
	"fadvise64_64",
	"fallocate",
	"fanotify_mark",
	"fchdir",
	"fchmod",
	"fchmodat",
	"fchown",
	"fchown32",
	"fchownat",
	"fcntl",
	"fcntl64",
	"fdatasync",
	"fgetxattr",
	"flistxattr",
	"flock",
	"fork",
	"fremovexattr",
	"fsetxattr",
	"fstat",
	"fstat64",
	"fstatat64",
	"fstatfs",
	"fstatfs64",
	"fsync",
	"ftruncate",
	"ftruncate64",
	"futex",
	"futimesat",
	"get_robust_list",
	"get_thread_area",
	"getcpu",
	"getcwd",
	"getdents",
	"getdents64",
	"getegid",
	"getegid32",
	"geteuid",
	"geteuid32",
	"getgid",
	"getgid32",
	"getgroups",
	"getgroups32",
	"getitimer",
	"getpeername",
	"getpgid",
	"getpgrp",
	"getpid",
	"getppid",
	"getpriority",
	"getrandom",
	"getresgid",
	"getresgid32",
	"getresuid",
	"getresuid32",
	"getrlimit",
	"getrusage",
	"getsid",
	"getsockname",
	"getsockopt",
	"gettid",
	"gettimeofday",
	"getuid",
	"getuid32",
	"getxattr",
	"inotify_add_watch",
	"inotify_init",
	"inotify_init1",
	"inotify_rm_watch",
	"io_cancel",
	"io_destroy",
	"io_getevents",
	"io_setup",
	"io_submit",
	"ioctl",
	"ioprio_get",
	"ioprio_set",
	"ipc",
	"kill",
	"lchown",
	"lchown32",
	"lgetxattr",
	"link",
	"linkat",
	"listen",
	"listxattr",
	"llistxattr",
	"_llseek",
	"lremovexattr",
	"lseek",
	"lsetxattr",
	"lstat",
	"lstat64",
	"madvise",
	"memfd_create",
	"mincore",
	"mkdir",
	"mkdirat",
	"mknod",
	"mknodat",
	"mlock",
	"mlock2",
	"mlockall",
	"mmap",
	"mmap2",
	"modify_ldt",
	"mprotect",
	"mq_getsetattr",
	"mq_notify",
	"mq_open",
	"mq_timedreceive",
	"mq_timedsend",
	"mq_unlink",
	"mremap",
	"msgctl",
	"msgget",
	"msgrcv",
	"msgsnd",
	"msync",
	"munlock",
	"munlockall",
	"munmap",
	"nanosleep",
	"newfstatat",
	"_newselect",
	"open",
	"openat",
	"pause",
	"personality",
	"pipe",
	"pipe2",
	"poll",
	"ppoll",
	"prctl",
	"pread64",
	"preadv",
	"prlimit64",
	"pselect6",
	"pwrite64",
	"pwritev",
	"read",
	"readahead",
	"readlink",
	"readlinkat",
	"readv",
	"recv",
	"recvfrom",
	"recvmmsg",
	"recvmsg",
	"remap_file_pages",
	"removexattr",
	"rename",
	"renameat",
	"renameat2",
	"restart_syscall",
	"rmdir",
	"rt_sigaction",
	"rt_sigpending",
	"rt_sigprocmask",
	"rt_sigqueueinfo",
	"rt_sigreturn",
	"rt_sigsuspend",
	"rt_sigtimedwait",
	"rt_tgsigqueueinfo",
	"sched_get_priority_max",
	"sched_get_priority_min",
	"sched_getaffinity",
	"sched_getattr",
	"sched_getparam",
	"sched_getscheduler",
	"sched_rr_get_interval",
	"sched_setaffinity",
	"sched_setattr",
	"sched_setparam",
	"sched_setscheduler",
	"sched_yield",
	"seccomp",
	"select",
	"semctl",
	"semget",
	"semop",
	"semtimedop",
	"send",
	"sendfile",
	"sendfile64",
	"sendmmsg",
	"sendmsg",
	"sendto",
	"set_robust_list",
	"set_thread_area",
	"set_tid_address",
	"setfsgid",
	"setfsgid32",
	"setfsuid",
	"setfsuid32",
	"setgid",
	"setgid32",
	"setgroups",
	"setgroups32",
	"setitimer",
	"setpgid",
	"setpriority",
	"setregid",
	"setregid32",
	"setresgid",
	"setresgid32",
	"setresuid",
	"setresuid32",
	"setreuid",
	"setreuid32",
	"setrlimit",
	"setsid",
	"setsockopt",
	"setuid",
	"setuid32",
	"setxattr",
	"shmat",
	"shmctl",
	"shmdt",
	"shmget",
	"shutdown",
	"sigaltstack",
	"signalfd",
	"signalfd4",
	"sigreturn",
	"socket",
	"socketcall",
	"socketpair",
	"splice",
	"stat",
	"stat64",
	"statfs",
	"statfs64",
	"symlink",
	"symlinkat",
	"sync",
	"sync_file_range",
	"syncfs",
	"sysinfo",
	"syslog",
	"tee",
	"tgkill",
	"time",
	"timer_create",
	"timer_delete",
	"timer_getoverrun",
	"timer_gettime",
	"timer_settime",
	"timerfd_create",
	"timerfd_gettime",
	"timerfd_settime",
	"times",
	"tkill",
	"truncate",
	"truncate64",
	"ugetrlimit",
	"umask",
	"uname",
	"unlink",
	"unlinkat",
	"utime",
	"utimensat",
	"utimes",
	"vfork",
	"vmsplice",
	"wait4",
	"waitid",
	"waitpid",
	"write",
	"writev",
};

/* systemd 252's syscall groups, reachable as @systemd/<group> (rkt's scheme). */
static const char *const systemd_groups[] = {
	"@aio",	     "@basic-io",  "@chown",	      "@clock",	   "@cpu-emulation",
	"@debug",    "@default",   "@file-system",    "@io-event", "@ipc",
	"@keyring",  "@memlock",   "@module",	      "@mount",	   "@network-io",
	"@obsolete", "@pkey",	   "@privileged",     "@process",  "@raw-io",
	"@reboot",   "@resources", "@sandbox",	      "@setuid",   "@signal",
	"@swap",     "@sync",	   "@system-service", "@timer",
};

#define SYSCALL_NAME_MAX 64

static bool syscall_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > SYSCALL_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return true;
}

/* A filter list under construction: names in order, without duplicates. */
struct name_list {
	const char **names;
	size_t n;
};

static int name_list_add(struct name_list *l, const char *name)
{
	const char **n;

	for (size_t i = 0; i < l->n; i++)
		if (streq(l->names[i], name))
			return 0;
	n = realloc(l->names, (l->n + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	l->names = n;
	l->names[l->n++] = name;
	return 0;
}

static int name_list_add_all(struct name_list *l, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int r = name_list_add(l, names[i]);

		if (r < 0)
			return r;
	}
	return 0;
}

/* ~0 (ignored), 1 (@appc.io/all), 2 (@appc.io/empty) or a negative errno. */
static int wildcard_expand(struct name_list *l, const char *w, bool retain, struct cc_error *reterr)
{
	if (streq(w, "@appc.io/all")) {
		if (!retain)
			return cc_error_set(reterr, -EINVAL,
					    "@appc.io/all is only meaningful in a retain-set");
		return 1;
	}
	if (streq(w, "@appc.io/empty")) {
		if (retain)
			return cc_error_set(reterr, -EINVAL,
					    "@appc.io/empty is only meaningful in a remove-set");
		return 2;
	}
	if (streq(w, "@rkt/default-blacklist") || streq(w, "@docker/default-blacklist"))
		return name_list_add_all(l, deny_default, ARRAY_SIZE(deny_default));
	if (streq(w, "@rkt/default-whitelist") || streq(w, "@docker/default-whitelist"))
		return name_list_add_all(l, allow_default, ARRAY_SIZE(allow_default));
	if (strncmp(w, "@systemd/", 9) == 0) {
		const char *g = w + 9;

		if (streq(g, "default-whitelist"))
			return name_list_add(l, "@default");
		for (size_t i = 0; i < ARRAY_SIZE(systemd_groups); i++)
			if (streq(g, systemd_groups[i] + 1))
				return name_list_add(l, systemd_groups[i]);
	}
	return cc_error_set(reterr, -EINVAL, "unknown seccomp wildcard '%.128s'", w);
}

static void filter_line(struct strbuf *b, const struct name_list *l, bool retain)
{
	strbuf_append(b, retain ? "SystemCallFilter=" : "SystemCallFilter=~");
	for (size_t i = 0; i < l->n; i++) {
		if (i)
			strbuf_append_char(b, ' ');
		strbuf_append(b, l->names[i]);
	}
	strbuf_append_char(b, '\n');
}

void seccomp_default_filter(struct strbuf *b)
{
	strbuf_append(b, "SystemCallFilter=~");
	for (size_t i = 0; i < ARRAY_SIZE(deny_default); i++)
		strbuf_printf(b, "%s%s", i ? " " : "", deny_default[i]);
	strbuf_append(b, "\nSystemCallErrorNumber=EPERM\n");
}

int seccomp_filter_append(struct strbuf *b, const struct manifest_name_set *set, bool retain,
			  bool *ret_unfiltered, struct cc_error *reterr)
{
	_cleanup_free_ const char **names = NULL;
	struct name_list l = {};
	const char *errno_name = set->errno_name && *set->errno_name ? set->errno_name : NULL;
	bool all = false, empty = false;
	int r = 0;

	*ret_unfiltered = false;
	if (errno_name) {
		const char *canonical = errno_canonical_name(errno_name);

		if (!canonical)
			return cc_error_set(reterr, -EINVAL, "unknown errno '%.64s'", errno_name);
		errno_name = canonical;
	}
	for (size_t i = 0; i < set->n && r >= 0; i++) {
		const char *s = set->names[i];

		if (s[0] == '@') {
			r = wildcard_expand(&l, s, retain, reterr);
			all = all || r == 1;
			empty = empty || r == 2;
		} else if (!syscall_name_ok(s)) {
			r = cc_error_set(reterr, -EINVAL, "'%.128s' is not a system call name", s);
		} else {
			r = name_list_add(&l, s);
		}
	}
	names = l.names;
	if (r < 0)
		return r;
	if (all) {
		*ret_unfiltered = true;
		return 0;
	}
	if (empty && l.n == 0) {
		/* @appc.io/empty alone: the implementation's default deny-list. */
		if (!errno_name) {
			seccomp_default_filter(b);
			return 0;
		}
		r = name_list_add_all(&l, deny_default, ARRAY_SIZE(deny_default));
		names = l.names;
		if (r < 0)
			return r;
	}
	filter_line(b, &l, retain);
	if (errno_name)
		strbuf_printf(b, "SystemCallErrorNumber=%s\n", errno_name);
	return 0;
}
