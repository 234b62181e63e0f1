/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent-proto.h"
#include "app-exit.h"
#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "cc/macro.h"

#define APPS_FILE_MAX (1024 * 1024)

static const struct {
	const char *name;
	int sig;
} app_exit_signals[] = {
	{"HUP", SIGHUP},   {"INT", SIGINT},	  {"QUIT", SIGQUIT}, {"ILL", SIGILL},
	{"TRAP", SIGTRAP}, {"ABRT", SIGABRT},	  {"BUS", SIGBUS},   {"FPE", SIGFPE},
	{"KILL", SIGKILL}, {"USR1", SIGUSR1},	  {"SEGV", SIGSEGV}, {"USR2", SIGUSR2},
	{"PIPE", SIGPIPE}, {"ALRM", SIGALRM},	  {"TERM", SIGTERM}, {"STKFLT", SIGSTKFLT},
	{"CHLD", SIGCHLD}, {"CONT", SIGCONT},	  {"STOP", SIGSTOP}, {"TSTP", SIGTSTP},
	{"TTIN", SIGTTIN}, {"TTOU", SIGTTOU},	  {"URG", SIGURG},   {"XCPU", SIGXCPU},
	{"XFSZ", SIGXFSZ}, {"VTALRM", SIGVTALRM}, {"PROF", SIGPROF}, {"WINCH", SIGWINCH},
	{"IO", SIGIO},	   {"PWR", SIGPWR},	  {"SYS", SIGSYS},
};

/* A decimal number without sign, leading blanks or trailing junk, at most max. */
static int app_exit_parse_uint(const char *s, long max, long *ret)
{
	char *end;
	long v;

	if (!s || s[0] < '0' || s[0] > '9')
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v > max)
		return -EINVAL;
	*ret = v;
	return 0;
}

int app_exit_signal_from_name(const char *name)
{
	long v;

	if (!name)
		return -EINVAL;
	if (app_exit_parse_uint(name, SIGRTMAX, &v) == 0)
		return v >= 1 ? (int) v : -EINVAL;
	if (strncmp(name, "SIG", 3) == 0)
		name += 3;
	for (size_t i = 0; i < ARRAY_SIZE(app_exit_signals); i++)
		if (strcmp(name, app_exit_signals[i].name) == 0)
			return app_exit_signals[i].sig;
	if (strcmp(name, "RTMIN") == 0)
		return SIGRTMIN;
	if (strcmp(name, "RTMAX") == 0)
		return SIGRTMAX;
	if (strncmp(name, "RTMIN+", 6) == 0 &&
	    app_exit_parse_uint(name + 6, SIGRTMAX - SIGRTMIN, &v) == 0)
		return SIGRTMIN + (int) v;
	if (strncmp(name, "RTMAX-", 6) == 0 &&
	    app_exit_parse_uint(name + 6, SIGRTMAX - SIGRTMIN, &v) == 0)
		return SIGRTMAX - (int) v;
	return -EINVAL;
}

int app_exit_code_from_env(const char *exit_code, const char *exit_status,
			   const char *service_result, int *ret_code)
{
	long v;
	int sig;

	assert_return(ret_code, -EINVAL);
	if (!exit_code || exit_code[0] == '\0') {
		if (!service_result || service_result[0] == '\0')
			return -EINVAL;
		*ret_code = strcmp(service_result, "success") == 0 ? 0 : 1;
		return 0;
	}
	if (strcmp(exit_code, "exited") == 0) {
		if (app_exit_parse_uint(exit_status, 255, &v) < 0)
			return -EINVAL;
		*ret_code = (int) v;
		return 0;
	}
	if (strcmp(exit_code, "killed") != 0 && strcmp(exit_code, "dumped") != 0)
		return -EINVAL;
	sig = app_exit_signal_from_name(exit_status);
	if (sig < 0)
		return sig;
	*ret_code = 128 + sig;
	return 0;
}

static int app_exit_write_status(const char *dir, const char *app, int code)
{
	_cleanup_free_ char *tmp = NULL, *path = NULL;
	_cleanup_close_ int fd = -EBADF;
	char buf[16];
	int r, n;

	if (asprintf(&path, "%s/%s", dir, app) < 0 ||
	    asprintf(&tmp, "%s/.%s.tmp%ld", dir, app, (long) getpid()) < 0)
		return -ENOMEM;
	n = snprintf(buf, sizeof(buf), "%d", code);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	r = loop_write(fd, buf, (size_t) n);
	if (r >= 0 && fsync(fd) < 0)
		r = -errno;
	if (r >= 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		(void) unlink(tmp);
	return r;
}

/* Create the pod exit file with code. 1 when created, 0 when it already existed. */
static int app_exit_end_pod(const char *pod_exit, int code)
{
	_cleanup_close_ int fd = -EBADF;
	char buf[16];
	int n;

	fd = open(pod_exit, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return errno == EEXIST ? 0 : -errno;
	n = snprintf(buf, sizeof(buf), "%d", code);
	return loop_write(fd, buf, (size_t) n) < 0 ? -EIO : 1;
}

/* 1 when every app named in apps_file has a status file, 0 if not. */
static int app_exit_all_done(const struct app_exit_paths *p)
{
	_cleanup_free_ char *apps = NULL;
	char *save = NULL;
	size_t n = 0;
	int r;

	r = read_full_file(p->apps_file, APPS_FILE_MAX, &apps, NULL);
	if (r < 0)
		return r;
	for (char *name = strtok_r(apps, "\n", &save); name; name = strtok_r(NULL, "\n", &save)) {
		_cleanup_free_ char *path = NULL;
		struct stat st;

		name[strcspn(name, " \t\r")] = '\0';
		if (name[0] == '\0')
			continue;
		if (!agent_app_name_is_valid(name))
			return -EBADMSG;
		n++;
		if (asprintf(&path, "%s/%s", p->status_dir, name) < 0)
			return -ENOMEM;
		if (lstat(path, &st) < 0) {
			if (errno == ENOENT)
				return 0;
			return -errno;
		}
	}
	/* An empty list is a broken pod layer, not a finished pod. */
	return n > 0 ? 1 : -EBADMSG;
}

int app_exit_record(const struct app_exit_paths *p, const char *app, int code, bool *ret_end)
{
	int r;

	assert_return(p && p->status_dir && p->pod_exit && p->apps_file && ret_end, -EINVAL);
	assert_return(code >= 0 && code <= 255, -EINVAL);
	if (!agent_app_name_is_valid(app))
		return -EINVAL;

	r = app_exit_write_status(p->status_dir, app, code);
	if (r < 0)
		return r;
	if (code == 0) {
		r = app_exit_all_done(p);
		if (r <= 0) {
			*ret_end = false;
			return r;
		}
	}
	r = app_exit_end_pod(p->pod_exit, code);
	if (r < 0)
		return r;
	*ret_end = r > 0;
	return 0;
}
