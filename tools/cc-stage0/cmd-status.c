/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `cc-stage0 status UUID`: what `rkt status` prints, from the same files: the lock (running or
 * exited), the mtimes of pod-created and pid, the pid file, and each app's exit code from
 * rkt/status/<app> (in overlay mode read from the stage1 overlay's upper dir, as rkt does).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cc/beneath.h"
#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "cc/log.h"
#include "manifest/pod-manifest.h"
#include "stage0.h"

/* An exit code and a newline; more is not a status file. */
#define STATUS_SIZE_MAX 64

/* rkt's "2006-01-02 15:04:05.999 -0700 MST" in UTC: milliseconds without trailing zeros. */
static void time_print(const char *key, const struct timespec *ts)
{
	char buf[64], frac[16] = "";
	struct tm tm;
	long ms = (ts->tv_nsec / 1000000) % 1000;

	gmtime_r(&ts->tv_sec, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
	if (ms > 0) {
		snprintf(frac, sizeof(frac), ".%03ld", ms);
		for (size_t l = strlen(frac); frac[l - 1] == '0'; l--)
			frac[l - 1] = '\0';
	}
	printf("%s=%s%s +0000 UTC\n", key, buf, frac);
}

/* The pod's app names: from `pod`, or from appsinfo/ when `pod` cannot be parsed. */
static int app_names(const char *pod, struct strv *names, char ***owned, size_t *n_owned)
{
	_cleanup_(pod_manifest_freep) struct pod_manifest *m = NULL;
	_cleanup_free_ char *path = NULL;
	_cleanup_closedir_ DIR *d = NULL;
	struct cc_error err = {};
	struct dirent *de;

	if (asprintf(&path, "%s/pod", pod) < 0)
		return -ENOMEM;
	if (pod_manifest_load(path, &m, &err) >= 0) {
		*owned = calloc(m->n_apps ? m->n_apps : 1, sizeof(char *));
		if (!*owned)
			return -ENOMEM;
		for (size_t i = 0; i < m->n_apps; i++) {
			(*owned)[i] = strdup(m->apps[i].name);
			if (!(*owned)[i] || strv_push(names, (*owned)[i]) < 0)
				return -ENOMEM;
			*n_owned = i + 1;
		}
		return 0;
	}
	free(path);
	if (asprintf(&path, "%s/appsinfo", pod) < 0)
		return -ENOMEM;
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char **o;

		if (de->d_name[0] == '.')
			continue;
		o = reallocarray(*owned, *n_owned + 1, sizeof(char *));
		if (!o)
			return -ENOMEM;
		*owned = o;
		o[*n_owned] = strdup(de->d_name);
		if (!o[*n_owned] || strv_push(names, o[*n_owned]) < 0)
			return -ENOMEM;
		++*n_owned;
	}
	return 0;
}

/*
 * rkt/status under the pod dir, as a path relative to it. Every file there is the guest's
 * (a read-write 9p share): it is opened beneath the pod dir through no link, and only regular
 * files of at most STATUS_SIZE_MAX bytes are read (cc/beneath.h).
 */
static int status_dir(const char *pod, char **ret)
{
	_cleanup_free_ char *marker = NULL, *idfile = NULL, *id = NULL;

	if (asprintf(&marker, "%s/overlay-prepared", pod) < 0 ||
	    asprintf(&idfile, "%s/stage1TreeStoreID", pod) < 0)
		return -ENOMEM;
	if (access(marker, F_OK) == 0 && read_full_file(idfile, 4096, &id, NULL) >= 0) {
		id[strcspn(id, "\n")] = '\0';
		return asprintf(ret, "overlay/%s/upper/rkt/status", id) < 0 ? -ENOMEM : 0;
	}
	return asprintf(ret, "stage1/rootfs/rkt/status") < 0 ? -ENOMEM : 0;
}

/* Print app-<name>=<code> for each app whose status file is a small regular file. */
static void app_codes_print(const char *pod, const char *sdir, const struct strv *names)
{
	_cleanup_close_ int pod_fd = -1, dir_fd = -1;

	pod_fd = open(pod, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (pod_fd >= 0)
		dir_fd = beneath_open(pod_fd, sdir, O_PATH | O_DIRECTORY, S_IFDIR);
	if (dir_fd < 0) {
		log_debug_errno(pod_fd < 0 ? -errno : dir_fd, "%s/%s: %m", pod, sdir);
		return;
	}
	for (size_t i = 0; i < names->n; i++) {
		_cleanup_free_ char *code = NULL;
		int r;

		r = beneath_read(dir_fd, names->v[i], STATUS_SIZE_MAX, &code, NULL);
		if (r < 0) {
			log_debug_errno(r, "%s/%s/%s: %m", pod, sdir, names->v[i]);
			continue;
		}
		code[strcspn(code, "\n")] = '\0';
		printf("app-%s=%s\n", names->v[i], code);
	}
}

int cmd_status(const struct stage0_ctx *ctx, int argc, char **argv)
{
	_cleanup_free_ char *pod = NULL, *path = NULL, *pid = NULL, *sdir = NULL;
	struct strv names = {};
	char **owned = NULL;
	size_t n_owned = 0;
	enum pod_state state;
	struct stat st;
	int r;

	if (argc != 2) {
		log_error("usage: status UUID");
		return 2;
	}
	r = pod_find(ctx, argv[1], &pod, &state);
	if (r < 0)
		return STAGE0_EXIT_ERROR;
	r = app_names(pod, &names, &owned, &n_owned);
	if (r >= 0)
		r = status_dir(pod, &sdir);
	if (r < 0) {
		log_error_errno(r, "%s: cannot read the pod: %m", pod);
		goto out;
	}
	printf("state=%s\n", state == POD_RUNNING  ? "running"
			     : state == POD_EXITED ? "exited"
						   : "exited-garbage");
	if (asprintf(&path, "%s/pod-created", pod) >= 0 && stat(path, &st) == 0)
		time_print("created", &st.st_mtim);
	free(path);
	if (asprintf(&path, "%s/pid", pod) >= 0 && lstat(path, &st) == 0) {
		time_print("started", &st.st_mtim);
		(void) pod_pid_read(pod, &pid); /* none printed for a link, FIFO or big file */
	}
	printf("networks=\n");
	if (pid)
		printf("pid=%s\n", pid);
	printf("exited=%s\n", state == POD_RUNNING ? "false" : "true");
	app_codes_print(pod, sdir, &names);
out:
	strv_done(&names);
	for (size_t i = 0; i < n_owned; i++)
		free(owned[i]);
	free(owned);
	return r < 0 ? STAGE0_EXIT_ERROR : 0;
}
