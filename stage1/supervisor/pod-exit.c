/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cc/beneath.h"
#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "pod-exit.h"
#include "pod-paths.h"

int pod_exit_parse(const char *buf, size_t len, int *ret)
{
	int v = 0;
	size_t i;

	assert_return(buf && ret, -EINVAL);
	if (len > 0 && buf[len - 1] == '\n')
		len--;
	if (len == 0 || len > 3)
		return -EBADMSG;
	for (i = 0; i < len; i++) {
		if (buf[i] < '0' || buf[i] > '9')
			return -EBADMSG;
		v = v * 10 + (buf[i] - '0');
	}
	if (v > 255 || (len > 1 && buf[0] == '0'))
		return -EBADMSG;
	*ret = v;
	return 0;
}

static void describe_vmm(int st, char *buf, size_t len)
{
	if (WIFSIGNALED(st))
		(void) snprintf(buf, len, "cc-vmm killed by signal %d", WTERMSIG(st));
	else
		(void) snprintf(buf, len, "cc-vmm exit %d", WEXITSTATUS(st));
}

/* The signals that mean cc-vmm crashed rather than was stopped, with what they say. */
static const char *crash_signal_describe(int sig)
{
	switch (sig) {
	case SIGSYS:
		return "SIGSYS: a system call its seccomp filter does not allow";
	case SIGSEGV:
		return "SIGSEGV";
	case SIGBUS:
		return "SIGBUS";
	case SIGILL:
		return "SIGILL";
	case SIGFPE:
		return "SIGFPE";
	case SIGABRT:
		return "SIGABRT: a failed assertion";
	case SIGTRAP:
		return "SIGTRAP";
	default:
		return NULL;
	}
}

void pod_exit_decide(int vmm_status, int pod_exit_code, struct pod_exit *ret)
{
	const char *crash;
	char what[64];
	int sig = 0;

	*ret = (struct pod_exit){.fill_status = -1};
	describe_vmm(vmm_status, what, sizeof(what));
	if (pod_exit_code >= 0) {
		ret->code = pod_exit_code;
		if (!WIFEXITED(vmm_status) || WEXITSTATUS(vmm_status) != 0) {
			ret->report = ret->report_is_warning = true;
			(void) snprintf(ret->msg, sizeof(ret->msg), "%s after the pod ended", what);
		}
		return;
	}
	if (WIFSIGNALED(vmm_status))
		sig = WTERMSIG(vmm_status);
	else if (WEXITSTATUS(vmm_status) == 128 + SIGTERM ||
		 WEXITSTATUS(vmm_status) == 128 + SIGINT)
		sig = WEXITSTATUS(vmm_status) - 128;
	if (sig > 0 && sig < 128) {
		ret->code = 128 + sig;
		ret->fill_status = 128 + sig;
		/* A stop's SIGTERM or SIGKILL needs no words; a crash does. */
		crash = WIFSIGNALED(vmm_status) ? crash_signal_describe(sig) : NULL;
		if (crash) {
			ret->report = true;
			(void) snprintf(ret->msg, sizeof(ret->msg), "cc-vmm crashed (%s)", crash);
		}
		return;
	}
	ret->code = POD_EXIT_NO_STATUS;
	/*
	 * cc-vmm's own failures (exit 1..127: no KVM, busy /dev/kvm, bad kernel, guest crash...)
	 * come with cc-vmm's one-line reason on stderr already: one line per failure.
	 */
	if (WIFEXITED(vmm_status) && WEXITSTATUS(vmm_status) > 0 && WEXITSTATUS(vmm_status) < 128)
		return;
	ret->report = true;
	(void) snprintf(ret->msg, sizeof(ret->msg), "the VM ended without a pod exit status (%s%s)",
			what, pod_exit_code == -2 ? ", malformed " POD_EXIT_PATH : "");
}

int pod_exit_read(int pod_fd)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int code, r;

	/* The guest's file: a link, a FIFO or a huge file there is malformed, never followed,
	 * waited on or read whole. */
	r = beneath_read(pod_fd, POD_EXIT_PATH, POD_EXIT_SIZE_MAX, &buf, &len);
	if (r < 0)
		return r == -ENOENT ? -1 : -2;
	if (pod_exit_parse(buf, len, &code) < 0)
		return -2;
	return code;
}

/* Publish the unlinked file fd as name in dir_fd: through /proc, or AT_EMPTY_PATH without it. */
static int tmpfile_link(int fd, int dir_fd, const char *name)
{
	char p[64];
	int r;

	(void) snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	if (linkat(AT_FDCWD, p, dir_fd, name, AT_SYMLINK_FOLLOW) == 0)
		return 0;
	r = -errno;
	if (r != -ENOENT || access("/proc/self/fd", F_OK) == 0)
		return r;
	return linkat(fd, "", dir_fd, name, AT_EMPTY_PATH) < 0 ? -errno : 0;
}

int pod_status_write(int status_fd, const char *app, int code)
{
	char tmp[NAME_MAX + 1], val[8];
	_cleanup_close_ int fd = -1;
	bool named = false;
	int r;

	assert_return(app && code >= 0 && code <= 255, -EINVAL);
	if (strlen(app) > NAME_MAX - 16)
		return -ENAMETOOLONG;
	if (!*app || strchr(app, '/') || strcmp(app, ".") == 0 || strcmp(app, "..") == 0)
		return -EINVAL;
	(void) snprintf(val, sizeof(val), "%d", code);
	/* A file with no name until it is complete: nothing in the directory is opened. */
	fd = openat(status_fd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
	if (fd < 0 && errno != EOPNOTSUPP && errno != EISDIR)
		return -errno;
	if (fd < 0) {
		/* No O_TMPFILE here (overlayfs before Linux 6.6): a temporary name, after
		 * unlinking whatever has it (unlinking follows nothing). */
		(void) snprintf(tmp, sizeof(tmp), ".%s.cc-tmp", app);
		(void) unlinkat(status_fd, tmp, 0);
		fd = beneath_create(status_fd, tmp, O_WRONLY, 0644);
		if (fd < 0) /* EEXIST: a directory has the name; not the app's code */
			return fd == -EEXIST ? -EBUSY : fd;
		named = true;
	}
	r = loop_write(fd, val, strlen(val));
	if (r >= 0 && fsync(fd) < 0)
		r = -errno;
	/* Only this EEXIST means the app has its code already: linkat never replaces. */
	if (r >= 0 && named && linkat(status_fd, tmp, status_fd, app, 0) < 0)
		r = -errno;
	else if (r >= 0 && !named)
		r = tmpfile_link(fd, status_fd, app);
	if (named)
		(void) unlinkat(status_fd, tmp, 0);
	return r;
}

int pod_status_each(int pod_fd, const struct pod_manifest *pod, pod_status_code_fn code_for,
		    void *userdata)
{
	_cleanup_close_ int status_fd = -1;
	int written = 0, first_err = 0;

	assert_return(pod && code_for, -EINVAL);
	/* Only run writes rkt/status (the guest has guest/rkt); a compromised VMM, chrooted in
	 * stage1/rootfs, could still link a component: resolved beneath the pod dir, no link. */
	status_fd = beneath_open(pod_fd, POD_STATUS_DIR, O_PATH | O_DIRECTORY, S_IFDIR);
	if (status_fd < 0)
		return status_fd;
	for (size_t i = 0; i < pod->n_apps; i++) {
		const char *app = pod->apps[i].name;
		struct stat st;
		int code, r;

		if (fstatat(status_fd, app, &st, AT_SYMLINK_NOFOLLOW) == 0)
			continue;
		code = code_for(app, userdata);
		if (code < 0)
			continue;
		r = pod_status_write(status_fd, app, code);
		if (r == -EEXIST)
			continue;
		if (r < 0) {
			if (first_err == 0)
				first_err = r;
			continue;
		}
		written++;
	}
	return first_err < 0 ? first_err : written;
}

static int code_given(const char *app _unused_, void *userdata)
{
	return *(const int *) userdata;
}

int pod_status_fill(int pod_fd, const struct pod_manifest *pod, int code)
{
	assert_return(code >= 0 && code <= 255, -EINVAL);
	return pod_status_each(pod_fd, pod, code_given, &code);
}
