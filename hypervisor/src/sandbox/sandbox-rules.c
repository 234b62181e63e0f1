/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The seccomp allowlists. Everything not listed kills the process (or is logged, see
 * sandbox.h). The lists cover what each thread does after the sandbox is entered: setup
 * (opening /dev/kvm, files, taps, sockets; creating threads) is over by then. Sources: the
 * code, docs/9p.md and docs/devices.md "Syscalls after setup", and strace -f of the kvm and
 * e2e device tests.
 *
 * Argument filters where they are cheap and mean something: ioctl requests (KVM_RUN only on
 * vCPU threads), no executable mappings, AF_UNIX sockets only, fcntl commands, signals only
 * to our own process.
 */
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/if_tun.h>
#include <linux/kvm.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "cc/macro.h"
#include "sandbox/sandbox-rules.h"

#define CMP(i, o, a, b)                                               \
	{                                                             \
		.arg = (i), .op = (o), .datum_a = (a), .datum_b = (b) \
	}

/* Any arguments. */
#define ANY(sys, reason)                                           \
	{                                                          \
		.nr = SCMP_SYS(sys), .name = #sys, .why = (reason) \
	}
/* Argument i equals v. */
#define EQ(sys, i, v, reason)                                                                      \
	{                                                                                          \
		.nr = SCMP_SYS(sys), .name = #sys, .n_cmp = 1, .cmp = {CMP(i, SCMP_CMP_EQ, v, 0)}, \
		.why = (reason)                                                                    \
	}
/* Argument i has none of the bits of mask. */
#define CLEAR(sys, i, mask, reason)                                           \
	{                                                                     \
		.nr = SCMP_SYS(sys), .name = #sys, .n_cmp = 1,                \
		.cmp = {CMP(i, SCMP_CMP_MASKED_EQ, mask, 0)}, .why = (reason) \
	}
/* ioctl request r only. */
#define IOCTL(r, reason) EQ(ioctl, 1, r, reason)
/* fcntl command c only. */
#define FCNTL(c, reason) EQ(fcntl, 1, c, reason)

static const struct sandbox_rule sandbox_rules_vcpu[] = {
	/* KVM */
	IOCTL(KVM_RUN, "run the guest: the only place KVM_RUN is allowed"),
	IOCTL(KVM_GET_REGS, "rip for the message when the guest crashes"),
	IOCTL(KVM_IRQ_LINE, "COM1's THRE interrupt, raised from the 8250 model"),
	/* devices, on MMIO exits */
	IOCTL(TUNSETOFFLOAD, "virtio-net activate/reset: the receive offloads the guest acked"),
	ANY(write, "8250 and boot-marker output, irqfd and event-loop eventfds, -vv logs"),
	ANY(close, "a device reset drops host state: vsock connections"),
	ANY(epoll_ctl, "a vsock reset takes its connections out of the muxer's epoll set"),
	ANY(timerfd_settime, "9p: the idle-trim timer, armed by a queue notify without ioeventfd"),
	ANY(futex, "device and transport mutexes, the stop lock"),
	/* memory (malloc and free in device resets and config writes) */
	CLEAR(mmap, 2, PROT_EXEC, "malloc: a thread arena, large blocks; never executable"),
	CLEAR(mprotect, 2, PROT_EXEC, "malloc: growing a thread arena; never executable"),
	ANY(munmap, "free of large blocks"),
	ANY(madvise, "free, and glibc releasing the thread's stack when it ends"),
	ANY(brk, "malloc in the main arena"),
	/* signals, time, the end */
	ANY(rt_sigreturn, "return from the empty kick handler (vm_request_stop)"),
	ANY(rt_sigprocmask, "glibc blocks signals in a thread that ends"),
	ANY(restart_syscall, "a syscall interrupted by the kick signal"),
	ANY(clock_gettime, "boot-marker timestamps when the vDSO is not used"),
	ANY(exit, "the thread ends"),
	ANY(getpid, "abort() on a failed assertion signals its own process"),
	ANY(gettid, "abort() on a failed assertion signals its own thread"),
	{.nr = SCMP_SYS(tgkill),
	 .name = "tgkill",
	 .n_cmp = 2,
	 .cmp = {CMP(0, SCMP_CMP_EQ, 0, 0), CMP(2, SCMP_CMP_EQ, SIGABRT, 0)},
	 .cmp0_is_pid = true,
	 .why = "abort(): SIGABRT to this process only"},
};

static const struct sandbox_rule sandbox_rules_vmm[] = {
	/* the event loop */
	ANY(epoll_wait, "the event loop, the vsock muxer's own epoll set"),
	ANY(epoll_pwait, "epoll_wait on libcs that use it"),
	ANY(epoll_ctl, "devices watch, pause and drop their fds (net, vsock)"),
	ANY(read, "eventfds (kicks, stop), signalfd, console input, sockets"),
	ANY(write, "eventfds (irqfds, stop), console output, sockets, logs"),
	ANY(readv, "tap receive"),
	ANY(writev, "tap transmit"),
	ANY(close, "vsock connections, teardown"),
	ANY(futex, "device mutexes, joining the vCPU threads"),
	/* virtio-blk */
	ANY(preadv, "blk IN"),
	ANY(pwritev, "blk OUT"),
	ANY(fdatasync, "blk FLUSH"),
	ANY(fallocate, "blk DISCARD on a file (PUNCH_HOLE)"),
	IOCTL(BLKDISCARD, "blk DISCARD on a block device"),
	/* virtio-rng */
	ANY(getrandom, "virtio-rng: fill the guest's buffers"),
	/* virtio-net */
	IOCTL(TUNSETOFFLOAD, "net: the receive offloads, when a reset comes through the loop"),
	/* virtio-vsock: guest connections reach UDS_PATH_P, host clients come on UDS_PATH */
	EQ(socket, 0, AF_UNIX, "vsock: a unix socket to UDS_PATH_P (no other family)"),
	ANY(connect, "vsock: connect to UDS_PATH_P"),
	ANY(accept4, "vsock: host clients on UDS_PATH"),
	ANY(recvfrom,
	    "vsock: the CONNECT line (recv, MSG_PEEK); kernel page sharing: answers; 9p: the "
	    "worker's replies"),
	ANY(sendmsg, "vsock: guest data to the host socket; kernel page sharing: fill requests"),
	ANY(sendto, "9p: a request to the worker (send)"),
	ANY(shutdown, "vsock: guest shutdown of its send side"),
	ANY(timerfd_settime,
	    "vsock: handshake and connection timeouts; 9p: the idle-trim timer; the zero sweep"),
	/* the 9p worker (docs/9p.md "The worker") */
	ANY(wait4, "9p: reap the worker at teardown"),
	ANY(poll, "9p: wait up to a second for the worker to exit at teardown (its pidfd)"),
	ANY(ppoll, "poll on libcs that use it"),
	ANY(unlinkat, "vsock: remove UDS_PATH at teardown"),
	ANY(pread64,
	    "kernel page sharing: the map and the slots; page merging: /proc/self/pagemap"),
	/* memory */
	CLEAR(mmap, 2, PROT_EXEC,
	      "malloc of large blocks (9p bounce buffers); page merging maps guest RAM pages onto "
	      "its "
	      "patterns; never executable"),
	CLEAR(mprotect, 2, PROT_EXEC, "malloc arenas; never executable"),
	ANY(munmap, "free, teardown of guest RAM and vCPU run areas"),
	ANY(madvise, "free; virtio-balloon and the zero sweep: MADV_DONTNEED on guest RAM"),
	ANY(mincore, "the zero sweep: which guest RAM pages are resident"),
	ANY(brk, "malloc in the main arena"),
	/* signals: the stop path */
	ANY(rt_sigprocmask, "vm_run() restores its mask; glibc around pthread_kill"),
	ANY(rt_sigreturn, "return from a signal handler"),
	ANY(restart_syscall, "a syscall interrupted by a signal"),
	ANY(getpid, "pthread_kill (kicking vCPUs) and abort()"),
	ANY(gettid, "abort()"),
	{.nr = SCMP_SYS(tgkill),
	 .name = "tgkill",
	 .n_cmp = 1,
	 .cmp = {CMP(0, SCMP_CMP_EQ, 0, 0)},
	 .cmp0_is_pid = true,
	 .why = "kick the vCPU threads; abort(): this process only"},
	/* time, the end */
	ANY(clock_gettime, "vsock timeouts, boot markers, when the vDSO is not used"),
	ANY(exit_group, "the VMM exits"),
	ANY(exit, "a thread ends"),
};

/* Memory, signals and the end: the same for the worker and its broker. */
#define SANDBOX_RULES_9P_COMMON                                                                \
	CLEAR(mprotect, 2, PROT_EXEC, "malloc arenas; never executable"), ANY(munmap, "free"), \
		ANY(madvise, "free; the idle trim of the buffers"),                            \
		ANY(brk, "malloc in the main arena"), ANY(write, "logs on stderr"),            \
		ANY(close, "clunk, teardown, descriptors passed"),                             \
		ANY(rt_sigreturn, "return from a signal handler"),                             \
		ANY(rt_sigprocmask, "abort() and raise() block signals before tgkill"),        \
		ANY(restart_syscall, "a syscall interrupted by a signal"),                     \
		ANY(clock_gettime, "log timestamps when the vDSO is not used"),                \
		ANY(getpid, "abort()"), ANY(gettid, "abort()"),                                \
		{.nr = SCMP_SYS(tgkill),                                                       \
		 .name = "tgkill",                                                             \
		 .n_cmp = 2,                                                                   \
		 .cmp = {CMP(0, SCMP_CMP_EQ, 0, 0), CMP(2, SCMP_CMP_EQ, SIGABRT, 0)},          \
		 .cmp0_is_pid = true,                                                          \
		 .why = "abort(): SIGABRT to this process only"},                              \
		ANY(exit_group, "the process exits")

/*
 * The worker parses 9P and holds no capability: it reads what an unprivileged uid may read and
 * asks its broker for the rest, so no call here changes a file's name, owner, mode or xattrs.
 */
static const struct sandbox_rule sandbox_rules_9p[] = {
	/* the VMM's requests, on the worker's socket; the broker's answers */
	ANY(poll, "wait for a request; the idle timeout trims the buffers"),
	ANY(ppoll, "poll on libcs that use it"),
	ANY(recvfrom, "a request from the VMM (recv)"),
	ANY(sendto, "a reply to the VMM (send, MSG_NOSIGNAL)"),
	ANY(sendmsg, "a request to the broker, with descriptors"),
	ANY(recvmsg, "the broker's reply, with descriptors"),
	ANY(wait4, "reap the broker at the end"),
	/* the file system, as an unprivileged uid (docs/9p.md "Seccomp"): nothing it opens is
	 * created or truncated, and no file is mapped shared (a write through a mapping would keep
	 * a setuid bit that a write(2) clears) */
	CLEAR(openat, 2, O_CREAT | O_TRUNC | (O_TMPFILE & ~O_DIRECTORY),
	      "9p: walk one component (O_PATH, O_NOFOLLOW); reopen through /proc/self/fd"),
	{.nr = SCMP_SYS(mmap),
	 .name = "mmap",
	 .n_cmp = 2,
	 .cmp = {CMP(2, SCMP_CMP_MASKED_EQ, PROT_EXEC, 0),
		 CMP(3, SCMP_CMP_MASKED_EQ, MAP_SHARED, 0)},
	 .why = "malloc of large blocks; never executable, never shared"},
	ANY(newfstatat, "9p: getattr, qids (fstatat AT_EMPTY_PATH)"),
	ANY(fstatfs, "9p: statfs"),
	ANY(getdents64, "9p: readdir"),
	ANY(lseek, "9p: readdir offsets"),
	ANY(pread64, "9p: read"),
	ANY(pwrite64, "9p: write"),
	ANY(fsync, "9p: Tfsync"),
	ANY(fdatasync, "9p: Tfsync with datasync"),
	FCNTL(F_OFD_SETLK, "9p: Tlock"),
	FCNTL(F_OFD_GETLK, "9p: Tgetlock"),
	FCNTL(F_GETFL, "9p: the open flags of a fid"),
	FCNTL(F_DUPFD_CLOEXEC, "9p: duplicate a held fd"),
	ANY(readlinkat, "9p: readlink"),
	ANY(getxattr, "9p: xattrwalk"),
	ANY(lgetxattr, "9p: xattrwalk of a symlink"),
	ANY(listxattr, "9p: xattr list"),
	ANY(llistxattr, "9p: xattr list of a symlink"),
	SANDBOX_RULES_9P_COMMON,
};

/* The broker: the file operations that need its capabilities, on descriptors it checked. */
static const struct sandbox_rule sandbox_rules_9p_broker[] = {
	CLEAR(mmap, 2, PROT_EXEC, "malloc of large blocks; never executable"),
	ANY(recvmsg, "a request from the worker, with descriptors"),
	ANY(sendmsg, "the reply, with descriptors"),
	ANY(openat2, "9p: walk one component, RESOLVE_BENEATH; create"),
	ANY(openat, "9p: reopen through /proc/self/fd; '..' to classify a directory"),
	ANY(newfstatat, "9p: what a descriptor is, whether a name still designates it"),
	ANY(ftruncate, "9p: setattr size"),
	FCNTL(F_GETFL, "9p: whether an open file is writable (truncate)"),
	FCNTL(F_DUPFD_CLOEXEC, "9p: a root fd for its own /proc/self/fd table"),
	ANY(mkdirat, "9p: mkdir"),
	ANY(symlinkat, "9p: symlink"),
	ANY(mknodat, "9p: mknod (FIFOs, sockets, regular files; never devices)"),
	ANY(linkat, "9p: link"),
	ANY(renameat, "9p: rename, renameat"),
	ANY(renameat2, "9p: rename on libcs that use it"),
	ANY(unlinkat, "9p: unlinkat, remove; a node the host-volume policy refuses"),
	ANY(fchownat, "9p: setattr uid/gid, owner of new nodes"),
	ANY(fchown, "9p: owner of new files"),
	ANY(fchmodat, "9p: setattr mode, mode of new nodes"),
	ANY(fchmod, "9p: mode of new files; setuid and setgid dropped"),
	ANY(utimensat, "9p: setattr times"),
	ANY(getxattr, "9p: xattrwalk the worker may not read"),
	ANY(listxattr, "9p: xattr list the worker may not read"),
	ANY(setxattr, "9p: xattrcreate (user.*)"),
	ANY(removexattr, "9p: xattrcreate of size 0"),
	SANDBOX_RULES_9P_COMMON,
};

const struct sandbox_rule *sandbox_rules_get(enum sandbox_thread kind, unsigned *ret_n)
{
	switch (kind) {
	case SANDBOX_THREAD_VCPU:
		*ret_n = ARRAY_SIZE(sandbox_rules_vcpu);
		return sandbox_rules_vcpu;
	case SANDBOX_THREAD_VMM:
		*ret_n = ARRAY_SIZE(sandbox_rules_vmm);
		return sandbox_rules_vmm;
	case SANDBOX_THREAD_9P:
		*ret_n = ARRAY_SIZE(sandbox_rules_9p);
		return sandbox_rules_9p;
	case SANDBOX_THREAD_9P_BROKER:
		*ret_n = ARRAY_SIZE(sandbox_rules_9p_broker);
		return sandbox_rules_9p_broker;
	default:
		*ret_n = 0;
		return NULL;
	}
}
