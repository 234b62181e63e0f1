/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent-proto.h"
#include "app-exit.h"
#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "cc/macro.h"

#define APPS_FILE_MAX (1024 * 1024)

/* A decimal number without sign, leading blanks or trailing junk, at most max. */
static int app_exit_parse_uint(const char *s, size_t len, long max, long *ret)
{
	long v = 0;

	if (len == 0 || len > 10)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (s[i] - '0');
	}
	if (v > max)
		return -EINVAL;
	*ret = v;
	return 0;
}

/* The value of "key=" in the "Key=value" lines of text, or NULL; its length in *ret_len. */
static const char *app_exit_show_value(const char *text, const char *key, size_t *ret_len)
{
	size_t klen = strlen(key);

	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t) (nl - line) : strlen(line);

		if (len > klen && strncmp(line, key, klen) == 0 && line[klen] == '=') {
			*ret_len = len - klen - 1;
			return line + klen + 1;
		}
		line = nl ? nl + 1 : NULL;
	}
	return NULL;
}

int app_exit_code_from_show(const char *text, int *ret_code)
{
	const char *code_s, *status_s, *result;
	size_t code_len, status_len, result_len;
	long code, status;

	assert_return(text && ret_code, -EINVAL);
	code_s = app_exit_show_value(text, "ExecMainCode", &code_len);
	status_s = app_exit_show_value(text, "ExecMainStatus", &status_len);
	result = app_exit_show_value(text, "Result", &result_len);
	if (!code_s || !status_s || !result ||
	    app_exit_parse_uint(code_s, code_len, CLD_DUMPED, &code) < 0 ||
	    app_exit_parse_uint(status_s, status_len, 255, &status) < 0)
		return -EINVAL;
	switch (code) {
	case 0:
		/* The main process never ran (e.g. a failed pre-start handler). */
		*ret_code = result_len == 7 && strncmp(result, "success", 7) == 0 ? 0 : 1;
		return 0;
	case CLD_EXITED:
		*ret_code = (int) status;
		return 0;
	case CLD_KILLED:
	case CLD_DUMPED:
		if (status < 1 || status > SIGRTMAX)
			return -EINVAL;
		*ret_code = 128 + (int) status;
		return 0;
	default:
		return -EINVAL;
	}
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
