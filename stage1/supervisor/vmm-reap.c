/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cc/beneath.h"
#include "cc/cleanup.h"
#include "pod-paths.h"
#include "vmm-jail.h"
#include "vmm-reap.h"

static int exe_is_vmm(pid_t pid)
{
	char path[64], exe[PATH_MAX + 1];
	const char *base;
	ssize_t n;

	(void) snprintf(path, sizeof(path), "/proc/%d/exe", (int) pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n < 0)
		return errno == ENOENT || errno == ESRCH ? 0 : -errno;
	exe[n] = '\0';
	if (n > 10 && strcmp(exe + n - 10, " (deleted)") == 0)
		exe[n - 10] = '\0';
	base = strrchr(exe, '/');
	return strcmp(base ? base + 1 : exe, VMM_EXE_NAME) == 0;
}

/* Whether path is the directory held by fd. */
static int proc_dir_is_path(const char *path, int fd)
{
	struct stat a, b;

	if (stat(path, &a) < 0)
		return errno == ENOENT || errno == ESRCH ? 0 : -errno;
	if (fstat(fd, &b) < 0)
		return -errno;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Whether /proc/<pid>/<link> (cwd, root) is the directory held by fd. */
static int proc_dir_is(pid_t pid, const char *link, int fd)
{
	char path[64];

	(void) snprintf(path, sizeof(path), "/proc/%d/%s", (int) pid, link);
	return proc_dir_is_path(path, fd);
}

/*
 * Jailed (vmm-jail.h), the VMM's root is a tmpfs of its own, whose VMM_JAIL_VM_DIR is this pod's
 * POD_VM_DIR. Resolved beneath that root through no link: the VMM is not trusted.
 */
static int proc_jail_is(pid_t pid, int dir_fd)
{
	_cleanup_close_ int root_fd = -1, vm_fd = -1, pod_vm_fd = -1;
	char path[64];

	(void) snprintf(path, sizeof(path), "/proc/%d/root", (int) pid);
	root_fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root_fd < 0)
		return errno == ENOENT || errno == ESRCH ? 0 : -errno;
	vm_fd = beneath_open(root_fd, &VMM_JAIL_VM_DIR[1], O_PATH | O_DIRECTORY, S_IFDIR);
	if (vm_fd < 0)
		return 0;
	pod_vm_fd = beneath_open(dir_fd, POD_VM_DIR, O_PATH | O_DIRECTORY, S_IFDIR);
	if (pod_vm_fd < 0)
		return pod_vm_fd == -ENOENT ? 0 : pod_vm_fd;
	(void) snprintf(path, sizeof(path), "/proc/self/fd/%d", vm_fd);
	return proc_dir_is_path(path, pod_vm_fd);
}

int vmm_process_matches(pid_t pid, int dir_fd)
{
	_cleanup_close_ int root_fd = -1;
	int r;

	if (pid <= 1)
		return 0;
	r = exe_is_vmm(pid);
	if (r <= 0)
		return r;
	r = proc_jail_is(pid, dir_fd);
	if (r != 0)
		return r;
	/* Sandboxed, the VMM's root and cwd are the pod's stage1 rootfs (cc-vmm --chroot): the
	 * VMM's own tree, so reached through no link. */
	root_fd = beneath_open(dir_fd, POD_STAGE1_ROOTFS, O_PATH | O_DIRECTORY, S_IFDIR);
	if (root_fd >= 0) {
		r = proc_dir_is(pid, "root", root_fd);
		if (r != 0)
			return r;
	}
	return proc_dir_is(pid, "cwd", dir_fd);
}

static int pid_file_read(int pod_fd, pid_t *ret)
{
	_cleanup_free_ char *buf = NULL;
	char *end;
	long v;
	int r;

	/* Run writes it, but a compromised VMM holds a pod dir fd: a link, FIFO, directory or
	 * big file there is malformed, never followed, waited on or read whole. */
	r = beneath_read(pod_fd, POD_PID_PATH, 32, &buf, NULL);
	if (r == -ELOOP || r == -EBADFD || r == -EISDIR || r == -EFBIG)
		return -EBADMSG;
	if (r < 0)
		return r;
	errno = 0;
	v = strtol(buf, &end, 10);
	if (end == buf || (*end && strcmp(end, "\n") != 0) || errno || v <= 1 || v > INT32_MAX)
		return -EBADMSG;
	*ret = (pid_t) v;
	return 0;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	(void) clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000 + (uint64_t) ts.tv_nsec / 1000000;
}

/* Wait for pid to exit (zombie or reaped); pidfd where the kernel has it, else /proc polling. */
static int wait_gone(pid_t pid, int pidfd, unsigned timeout_ms)
{
	uint64_t deadline = now_ms() + timeout_ms;
	char path[64];

	if (pidfd >= 0) {
		struct pollfd p = {.fd = pidfd, .events = POLLIN};
		int r = poll(&p, 1, (int) timeout_ms);

		if (r < 0)
			return -errno;
		return r == 0 ? -ETIMEDOUT : 0;
	}
	(void) snprintf(path, sizeof(path), "/proc/%d/exe", (int) pid);
	while (now_ms() < deadline) {
		if (access(path, F_OK) < 0)
			return 0; /* gone, or a zombie (exe no longer readable) */
		(void) usleep(10000);
	}
	return -ETIMEDOUT;
}

int vmm_reap_leftover(int pod_fd, unsigned timeout_ms, pid_t *ret_pid)
{
	_cleanup_close_ int pidfd = -1;
	pid_t pid = 0;
	int r;

	r = pid_file_read(pod_fd, &pid);
	if (r == -ENOENT || r == -EBADMSG)
		return 0;
	if (r < 0)
		return r;
	/* Pin the process first, so the checks and the kill hit the same one. */
	pidfd = (int) syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0 && errno == ESRCH)
		return 0;
	r = vmm_process_matches(pid, pod_fd);
	if (r <= 0)
		return r;
	if (ret_pid)
		*ret_pid = pid;
	if (pidfd >= 0)
		r = (int) syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
	else
		r = kill(pid, SIGKILL);
	if (r < 0)
		return errno == ESRCH ? 0 : -errno;
	r = wait_gone(pid, pidfd, timeout_ms);
	return r < 0 ? r : 1;
}
