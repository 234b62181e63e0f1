/* SPDX-License-Identifier: Apache-2.0 */
/* Finding pods under <dir>/pods and reading what rkt reads from them. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cc/beneath.h"
#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "cc/log.h"
#include "manifest/image-manifest.h"
#include "stage0.h"

static bool uuid_is_valid(const char *s)
{
	if (strlen(s) != STAGE0_UUID_LEN)
		return false;
	for (size_t i = 0; i < STAGE0_UUID_LEN; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? s[i] != '-' : !strchr("0123456789abcdef", s[i]))
			return false;
	}
	return true;
}

int pod_pid_read(const char *pod, char **ret)
{
	_cleanup_close_ int pod_fd = -1;
	int r;

	pod_fd = open(pod, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (pod_fd < 0)
		return -errno;
	/* A compromised VMM reaches the pod dir through its lock fd: no link, FIFO, big file. */
	r = beneath_read(pod_fd, "pid", 64, ret, NULL);
	if (r < 0)
		return r;
	(*ret)[strcspn(*ret, "\n")] = '\0';
	return 0;
}

int pod_is_locked(const char *path)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_SH | LOCK_NB) < 0)
		return errno == EWOULDBLOCK ? 1 : -errno;
	return 0;
}

int pod_find(const struct stage0_ctx *ctx, const char *uuid, char **ret_path,
	     enum pod_state *ret_state)
{
	static const char *const where[] = {"run", "exited-garbage"};
	struct stat st;

	if (!uuid_is_valid(uuid))
		return log_error_errno(EINVAL, "'%s' is not a pod UUID", uuid);
	for (size_t i = 0; i < 2; i++) {
		_cleanup_free_ char *p = NULL;
		int locked;

		if (asprintf(&p, "%s/pods/%s/%s", ctx->dir, where[i], uuid) < 0)
			return log_oom();
		if (stat(p, &st) < 0)
			continue;
		locked = pod_is_locked(p);
		if (locked < 0)
			return log_error_errno(locked, "%s: %m", p);
		*ret_state = i == 1 ? POD_GARBAGE : locked ? POD_RUNNING : POD_EXITED;
		*ret_path = TAKE_PTR(p);
		return 0;
	}
	return log_error_errno(ENOENT, "no pod %s in %s/pods", uuid, ctx->dir);
}

int pod_stage1_annotation(const char *pod, const char *what, char **ret)
{
	_cleanup_(image_manifest_freep) struct image_manifest *m = NULL;
	_cleanup_free_ char *path = NULL, *name = NULL;
	struct cc_error err = {};
	int r;

	if (asprintf(&path, "%s/stage1/manifest", pod) < 0 ||
	    asprintf(&name, "coreos.com/rkt/stage1/%s", what) < 0)
		return -ENOMEM;
	r = image_manifest_load(path, &m, &err);
	if (r < 0 && err.msg[0])
		return log_error_errno(r, "%s: %s: %s", path, err.context, err.msg);
	if (r < 0)
		return log_error_errno(r, "%s: %m", path);
	for (size_t i = 0; i < m->annotations.n; i++)
		if (streq(m->annotations.items[i].name, name)) {
			*ret = strdup(m->annotations.items[i].value);
			return *ret ? 0 : -ENOMEM;
		}
	return -ENODATA;
}

int pod_interface_version(const char *pod, int *ret)
{
	_cleanup_free_ char *v = NULL;
	char *end;
	long n;
	int r;

	r = pod_stage1_annotation(pod, "interface-version", &v);
	if (r == -ENODATA) {
		*ret = 1; /* rkt: no annotation means version 1 */
		return 0;
	}
	if (r < 0)
		return r;
	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || *v == '\0' || *end || n < 1 || n > 1000)
		return log_error_errno(EINVAL, "error parsing interface version '%s'", v);
	*ret = (int) n;
	return 0;
}

int pod_stage1_remount(const struct stage0_ctx *ctx, const char *pod)
{
	_cleanup_free_ char *marker = NULL, *idfile = NULL, *id = NULL, *status = NULL,
			    *target = NULL, *lower = NULL, *upper = NULL, *work = NULL;
	int r;

	if (asprintf(&marker, "%s/overlay-prepared", pod) < 0 ||
	    asprintf(&status, "%s/stage1/rootfs/rkt", pod) < 0 ||
	    asprintf(&idfile, "%s/stage1TreeStoreID", pod) < 0)
		return log_oom();
	if (access(marker, F_OK) < 0 || access(status, F_OK) == 0)
		return 0;
	r = read_full_file(idfile, 4096, &id, NULL);
	if (r < 0)
		return log_error_errno(r, "%s: %m", idfile);
	id[strcspn(id, "\n")] = '\0';
	if (asprintf(&target, "%s/stage1/rootfs", pod) < 0 ||
	    asprintf(&lower, "%s/cas/tree/%s/rootfs", ctx->dir, id) < 0 ||
	    asprintf(&upper, "%s/overlay/%s/upper", pod, id) < 0 ||
	    asprintf(&work, "%s/overlay/%s/work", pod, id) < 0)
		return log_oom();
	r = mount_overlay(target, lower, upper, work);
	if (r < 0)
		return log_error_errno(r, "cannot mount the stage1 overlay on %s: %m", target);
	return 0;
}
