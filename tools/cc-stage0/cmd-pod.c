/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `cc-stage0 stop|enter|gc`: the stage1 entrypoints called as rkt 1.30 calls them (argv, cwd =
 * the pod dir, rkt's environment): stop and gc fork and wait, enter execs the entrypoint from
 * the tree store's copy of the stage1, not from the pod.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "cc/log.h"
#include "manifest/pod-manifest.h"
#include "stage0.h"

static int entrypoint(const char *root, const char *pod, const char *what, char **ret)
{
	_cleanup_free_ char *e = NULL;
	int r;

	r = pod_stage1_annotation(pod, what, &e);
	if (r == -ENODATA)
		return log_error_errno(r, "rkt %s not implemented for pod's stage1", what);
	if (r < 0)
		return r;
	return asprintf(ret, "%s/%s", root, e + (e[0] == '/')) < 0 ? log_oom() : 0;
}

int cmd_stop(const struct stage0_ctx *ctx, int argc, char **argv)
{
	bool force = false;
	int i = 1, ret = 0;

	if (i < argc && streq(argv[i], "--force")) {
		force = true;
		i++;
	}
	if (i >= argc) {
		log_error("usage: stop [--force] UUID...");
		return 2;
	}
	for (; i < argc; i++) {
		_cleanup_free_ char *pod = NULL, *root = NULL, *entry = NULL;
		enum pod_state state;
		int r;

		if (pod_find(ctx, argv[i], &pod, &state) < 0) {
			ret = STAGE0_EXIT_ERROR;
			continue;
		}
		if (state != POD_RUNNING) {
			printf("pod \"%s\" is already stopped\n", argv[i]);
			continue;
		}
		if (asprintf(&root, "%s/stage1/rootfs", pod) < 0)
			return log_oom(), STAGE0_EXIT_ERROR;
		if (entrypoint(root, pod, "stop", &entry) < 0) {
			ret = STAGE0_EXIT_ERROR;
			continue;
		}
		r = spawn_wait(force ? (const char *const[]){entry, "--force", argv[i], NULL}
				     : (const char *const[]){entry, argv[i], NULL},
			       pod, -1);
		if (r != 0) {
			log_error("error stopping \"%s\": the stop entrypoint exited %d", argv[i],
				  r);
			ret = STAGE0_EXIT_ERROR;
			continue;
		}
		printf("\"%s\"\n", argv[i]);
	}
	return ret;
}

static int app_pick(const char *pod, const char *want, char **ret)
{
	_cleanup_(pod_manifest_freep) struct pod_manifest *m = NULL;
	_cleanup_free_ char *path = NULL;
	struct cc_error err = {};
	int r;

	if (asprintf(&path, "%s/pod", pod) < 0)
		return log_oom();
	r = pod_manifest_load(path, &m, &err);
	if (r < 0)
		return log_error_errno(r, "%s: %s: %s", path, err.context, err.msg);
	if (want) {
		if (!pod_manifest_find_app(m, want))
			return log_error_errno(ENOENT, "the pod has no app '%s'", want);
		*ret = strdup(want);
	} else if (m->n_apps == 1) {
		*ret = strdup(m->apps[0].name);
	} else
		return log_error_errno(EINVAL, "the pod has several apps: give one with --app");
	return *ret ? 0 : log_oom();
}

/* rkt enter polls every 100 ms for pid (or ppid) while the pod runs. */
static int pid_wait(const char *pod, char **ret)
{
	for (;;) {
		int r = pod_pid_read(pod, ret);

		if (r >= 0)
			return 0;
		if (r != -ENOENT)
			return log_error_errno(r, "%s/pid: %m", pod);
		if (pod_is_locked(pod) != 1)
			return log_error_errno(ESRCH, "the pod stopped before it wrote its pid");
		nanosleep(&(struct timespec){.tv_nsec = 100 * 1000 * 1000}, NULL);
	}
}

int cmd_enter(const struct stage0_ctx *ctx, int argc, char **argv)
{
	_cleanup_free_ char *pod = NULL, *app = NULL, *idfile = NULL, *id = NULL, *root = NULL,
			    *entry = NULL, *pid = NULL, *pidarg = NULL, *apparg = NULL;
	const char *want = NULL;
	struct strv a = {};
	enum pod_state state;
	int i = 1, r;

	if (i < argc && strncmp(argv[i], "--app=", 6) == 0)
		want = argv[i++] + 6;
	if (i >= argc) {
		log_error("usage: enter [--app=NAME] UUID [CMD ARGS...]");
		return 2;
	}
	if (pod_find(ctx, argv[i], &pod, &state) < 0)
		return STAGE0_EXIT_ERROR;
	if (state != POD_RUNNING) {
		log_error("pod %s is not running", argv[i]);
		return STAGE0_EXIT_ERROR;
	}
	if (app_pick(pod, want, &app) < 0 || pid_wait(pod, &pid) < 0)
		return STAGE0_EXIT_ERROR;
	if (asprintf(&idfile, "%s/stage1TreeStoreID", pod) < 0)
		return log_oom(), STAGE0_EXIT_ERROR;
	r = read_full_file(idfile, 4096, &id, NULL);
	if (r < 0) {
		log_error_errno(r, "%s: %m", idfile);
		return STAGE0_EXIT_ERROR;
	}
	id[strcspn(id, "\n")] = '\0';
	if (asprintf(&root, "%s/cas/tree/%s/rootfs", ctx->dir, id) < 0 ||
	    asprintf(&pidarg, "--pid=%s", pid) < 0 || asprintf(&apparg, "--appname=%s", app) < 0)
		return log_oom(), STAGE0_EXIT_ERROR;
	if (entrypoint(root, pod, "enter", &entry) < 0)
		return STAGE0_EXIT_ERROR;
	r = strv_push(&a, entry);
	if (r >= 0)
		r = strv_push(&a, pidarg);
	if (r >= 0)
		r = strv_push(&a, apparg);
	if (r >= 0)
		r = strv_push(&a, "--");
	if (r >= 0 && i + 1 >= argc)
		r = strv_push(&a, "/bin/bash");
	for (int j = i + 1; r >= 0 && j < argc; j++)
		r = strv_push(&a, argv[j]);
	if (r >= 0)
		r = strv_push(&a, NULL);
	if (r < 0)
		return log_oom(), STAGE0_EXIT_ERROR;
	if (chdir(pod) < 0 || setenv("PWD", pod, 1) < 0) {
		log_error_errno(errno, "%s: %m", pod);
		return STAGE0_EXIT_ERROR;
	}
	execv(entry, (char *const *) a.v);
	log_error_errno(errno, "cannot execute %s: %m", entry);
	strv_done(&a);
	return STAGE0_EXIT_ERROR;
}

/* Run the stage1's gc on a pod in exited-garbage, then unmount and remove it. */
static int pod_collect(const struct stage0_ctx *ctx, const char *pod, const char *uuid)
{
	_cleanup_free_ char *root = NULL, *entry = NULL;
	_cleanup_close_ int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	struct strv a = {};
	int version = 1, r;

	printf("Garbage collecting pod \"%s\"\n", uuid);
	fflush(stdout);
	if (asprintf(&root, "%s/stage1/rootfs", pod) < 0)
		return log_oom();
	r = pod_stage1_remount(ctx, pod);
	if (r >= 0)
		r = pod_interface_version(pod, &version);
	if (r >= 0)
		r = entrypoint(root, pod, "gc", &entry);
	if (r >= 0) {
		r = strv_push(&a, entry);
		if (r >= 0 && ctx->debug)
			r = strv_push(&a, "--debug");
		if (r >= 0 && version >= 5)
			r = strv_push(&a, "--local-config");
		if (r >= 0 && version >= 5)
			r = strv_push(&a, ctx->local_config);
		if (r >= 0)
			r = strv_push(&a, uuid);
		if (r >= 0)
			r = strv_push(&a, NULL);
		if (r >= 0) {
			r = spawn_wait(a.v, pod, null);
			if (r != 0)
				log_error("stage1 gc of pod %s exited %d", uuid, r);
		}
		strv_done(&a);
	}
	/* As rkt: the pod is removed even when its gc failed. */
	r = umount_under(pod);
	if (r < 0)
		return log_error_errno(r, "cannot unmount everything under %s: %m", pod);
	r = rm_rf(pod);
	if (r < 0)
		return log_error_errno(r, "cannot remove %s: %m", pod);
	return 0;
}

/* Move unlocked pods of pods/<from> to pods/exited-garbage, or remove aborted preparations. */
static int pods_sweep(const struct stage0_ctx *ctx, const char *from)
{
	_cleanup_free_ char *dir = NULL, *garbage = NULL;
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;

	if (asprintf(&dir, "%s/pods/%s", ctx->dir, from) < 0 ||
	    asprintf(&garbage, "%s/pods/exited-garbage", ctx->dir) < 0)
		return log_oom();
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : log_error_errno(errno, "%s: %m", dir);
	if (mkdir_p(garbage, 0700) < 0)
		return log_error_errno(errno, "%s: %m", garbage);
	while ((de = readdir(d))) {
		_cleanup_free_ char *src = NULL, *dst = NULL;

		if (de->d_name[0] == '.')
			continue;
		if (asprintf(&src, "%s/%s", dir, de->d_name) < 0 ||
		    asprintf(&dst, "%s/%s", garbage, de->d_name) < 0)
			return log_oom();
		if (pod_is_locked(src) != 0)
			continue;
		if (streq(from, "prepare")) {
			(void) umount_under(src);
			(void) rm_rf(src);
		} else if (rename(src, dst) < 0)
			log_error_errno(errno, "cannot move %s to %s: %m", src, garbage);
		else
			printf("gc: moving pod \"%s\" to garbage\n", de->d_name);
	}
	return 0;
}

int cmd_gc(const struct stage0_ctx *ctx, int argc, char **argv)
{
	_cleanup_free_ char *garbage = NULL;
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;
	int ret = 0;

	if (argc > 1) {
		for (int i = 1; i < argc; i++) {
			_cleanup_free_ char *pod = NULL, *dst = NULL;
			enum pod_state state;

			if (pod_find(ctx, argv[i], &pod, &state) < 0) {
				ret = STAGE0_EXIT_ERROR;
				continue;
			}
			if (pod_is_locked(pod) != 0) {
				log_error("pod %s is running (or being collected): not collected",
					  argv[i]);
				ret = STAGE0_EXIT_ERROR;
				continue;
			}
			if (state == POD_EXITED) {
				if (asprintf(&dst, "%s/pods/exited-garbage", ctx->dir) < 0)
					return log_oom(), STAGE0_EXIT_ERROR;
				(void) mkdir_p(dst, 0700);
				free(dst);
				if (asprintf(&dst, "%s/pods/exited-garbage/%s", ctx->dir, argv[i]) <
				    0)
					return log_oom(), STAGE0_EXIT_ERROR;
				if (rename(pod, dst) < 0) {
					log_error_errno(errno, "cannot move %s: %m", pod);
					ret = STAGE0_EXIT_ERROR;
					continue;
				}
				free(pod);
				pod = TAKE_PTR(dst);
			}
			if (pod_collect(ctx, pod, argv[i]) < 0)
				ret = STAGE0_EXIT_ERROR;
		}
		return ret;
	}
	if (pods_sweep(ctx, "prepare") < 0 || pods_sweep(ctx, "run") < 0)
		ret = STAGE0_EXIT_ERROR;
	if (asprintf(&garbage, "%s/pods/exited-garbage", ctx->dir) < 0)
		return log_oom(), STAGE0_EXIT_ERROR;
	d = opendir(garbage);
	if (!d)
		return errno == ENOENT ? ret : STAGE0_EXIT_ERROR;
	while ((de = readdir(d))) {
		_cleanup_free_ char *pod = NULL;

		if (de->d_name[0] == '.')
			continue;
		if (asprintf(&pod, "%s/%s", garbage, de->d_name) < 0)
			return log_oom(), STAGE0_EXIT_ERROR;
		if (pod_is_locked(pod) != 0)
			continue;
		if (pod_collect(ctx, pod, de->d_name) < 0)
			ret = STAGE0_EXIT_ERROR;
	}
	return ret;
}
