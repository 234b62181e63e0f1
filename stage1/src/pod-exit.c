/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
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

/* status_fd is the guest's directory: whatever is there under any name is left alone. */
static int status_write(int status_fd, const char *app, int code)
{
	char tmp[NAME_MAX + 1], val[8];
	_cleanup_close_ int fd = -1;
	int r;

	if (strlen(app) > NAME_MAX - 16)
		return -ENAMETOOLONG;
	if (strchr(app, '/'))
		return -EINVAL;
	(void) snprintf(tmp, sizeof(tmp), ".%s.cc-tmp", app);
	(void) snprintf(val, sizeof(val), "%d", code);
	/* A leftover temporary name (or one the guest planted: unlinking follows nothing). */
	(void) unlinkat(status_fd, tmp, 0);
	fd = beneath_create(status_fd, tmp, O_WRONLY, 0644);
	if (fd < 0)
		return fd;
	r = loop_write(fd, val, strlen(val));
	if (r >= 0 && fsync(fd) < 0)
		r = -errno;
	if (r >= 0 && linkat(status_fd, tmp, status_fd, app, 0) < 0)
		r = -errno; /* EEXIST: the guest wrote it meanwhile, keep the guest's */
	(void) unlinkat(status_fd, tmp, 0);
	return r;
}

int pod_status_fill(int pod_fd, const struct pod_manifest *pod, int code)
{
	_cleanup_close_ int status_fd = -1;
	int written = 0, first_err = 0;

	assert_return(pod && code >= 0 && code <= 255, -EINVAL);
	/* Every component of stage1/rootfs/rkt/status may be the guest's link to a host
	 * directory: resolved beneath the pod dir, through no link. */
	status_fd = beneath_open(pod_fd, POD_STATUS_DIR, O_PATH | O_DIRECTORY, S_IFDIR);
	if (status_fd < 0)
		return status_fd;
	for (size_t i = 0; i < pod->n_apps; i++) {
		struct stat st;
		int r;

		if (fstatat(status_fd, pod->apps[i].name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			continue;
		r = status_write(status_fd, pod->apps[i].name, code);
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
