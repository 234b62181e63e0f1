/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Volume planning: which volume is bind-mounted where in each app's rootfs, decided from the
 * pod manifest (and the images' mount points) before anything is touched, so that every
 * spec error is reported while nothing exists yet:
 *   - a pod mount naming a volume the pod does not have;
 *   - a host volume whose source is missing (or not an absolute path);
 *   - two mounts of one app whose targets are the same path or nested ("/data" and
 *     "/data/x"), or a mount on "/".
 * A mount point that no pod mount fulfils uses the pod volume of the same name, else an
 * implicit empty volume of that name (shared by the apps that name it, with a warning), as
 * rkt does. Read-only: the volume's readOnly if set, else the app mount point's.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "manifest/image-manifest.h"
#include "manifest/pod-manifest.h"
#include "cc/error.h"
#include "cc/warnings.h"

/* Empty volumes live here, under the pod dir. */
#define VOLUMES_DIR "cc/volumes"

struct volume_mount {
	char *app;	  /* pod app name */
	char *target;	  /* absolute path inside the app rootfs, lexically normalized */
	char *volume;	  /* volume name */
	bool empty;	  /* kind empty: source is VOLUMES_DIR/<volume> */
	char *source;	  /* kind host: the host path */
	bool single_file; /* host source is not a directory: bind a file onto a file */
	bool read_only;
	bool recursive;
};

struct volume_empty {
	char *name;
	uint32_t mode;
	uint32_t uid;
	uint32_t gid;
};

struct volume_plan {
	struct volume_mount *mounts; /* in pod app order, then mount order */
	size_t n_mounts;
	struct volume_empty *empties; /* each empty volume used by at least one mount, once */
	size_t n_empties;
};

/*
 * Build the plan. images[i] is the image manifest of pod->apps[i] (NULL if none). Host sources
 * are stat()ed (that is the only I/O). Warnings go to warn. On error returns a negative errno
 * and fills reterr_error with one line naming the app, volume and path.
 */
int volume_plan_build(const struct pod_manifest *pod, const struct image_manifest *const *images,
		      struct volume_plan *ret, struct cc_warnings *warn,
		      struct cc_error *reterr_error);
void volume_plan_done(struct volume_plan *p);

/*
 * Normalize an absolute path lexically: "//" and "." dropped, ".." pops a component (never
 * above "/"), no trailing slash. -EINVAL if not absolute. The result is free()d by the caller.
 */
int volume_path_normalize(const char *path, char **ret);
/* Whether normalized paths a and b are equal or one contains the other. */
bool volume_paths_overlap(const char *a, const char *b);
