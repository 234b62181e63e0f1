/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* appc pod manifests (acKind "PodManifest"), as rkt's stage0 writes them to pods/<uuid>/pod. */

#include <stddef.h>
#include <stdint.h>

#include "manifest/error.h"
#include "manifest/image-manifest.h"
#include "manifest/types.h"

struct pod_mount {
	char *volume; /* AC Name */
	char *path;
	struct manifest_volume *app_volume; /* inline volume overriding the lookup, or NULL */
};

struct pod_image {
	char *id;   /* sha512-<hex>, possibly truncated */
	char *name; /* AC Identifier or NULL */
	struct manifest_kv_list labels;
};

struct pod_app {
	char *name; /* AC Name, unique in the pod */
	struct pod_image image;
	struct manifest_app *app; /* replaces the image's app wholesale; NULL: use the image's */
	bool read_only_rootfs;
	struct pod_mount *mounts;
	size_t n_mounts;
	struct manifest_kv_list annotations;
};

struct pod_exposed_port {
	char *name; /* AC Name of an app port */
	uint16_t host_port;
	char *host_ip;			/* NULL when absent */
	struct manifest_port *pod_port; /* NULL when absent */
};

struct pod_manifest {
	char *ac_version;
	char *ac_kind;
	struct pod_app *apps;
	size_t n_apps;
	struct manifest_volume *volumes;
	size_t n_volumes;
	struct manifest_isolator_list isolators;
	struct manifest_kv_list annotations;
	struct pod_exposed_port *ports;
	size_t n_ports;
	struct manifest_kv_list user_annotations;
	struct manifest_kv_list user_labels;
};

/* See image_manifest_parse() for the error convention. */
int pod_manifest_parse(const char *buf, size_t len, struct pod_manifest **ret,
		       struct cc_error *reterr_error);
int pod_manifest_load(const char *path, struct pod_manifest **ret, struct cc_error *reterr_error);
int pod_manifest_to_json(const struct pod_manifest *m, char **ret);

struct pod_manifest *pod_manifest_free(struct pod_manifest *m);
static inline void pod_manifest_freep(struct pod_manifest **m)
{
	*m = pod_manifest_free(*m);
}

/* The app named name, or NULL. */
const struct pod_app *pod_manifest_find_app(const struct pod_manifest *m, const char *name);

/*
 * The app a pod app runs: the pod's own app object when present (it replaces the image's
 * wholesale, no merging), else the image manifest's app. NULL when neither has one (image may
 * be NULL).
 */
const struct manifest_app *pod_app_effective_app(const struct pod_app *pa,
						 const struct image_manifest *image);

/*
 * The volume backing a mount of a pod app: the mount's inline appVolume when present, else the
 * pod volume named by mount->volume. NULL when none matches.
 */
const struct manifest_volume *pod_manifest_find_volume(const struct pod_manifest *m,
						       const struct pod_mount *mount);

/*
 * The mount of a pod app that fulfills an app mount point: the one with the same path (pods.md),
 * else the one whose volume has the mount point's name. NULL when there is none; rkt then
 * uses a pod volume named like the mount point, or an implicit empty volume.
 */
const struct pod_mount *pod_app_find_mount(const struct pod_app *pa,
					   const struct manifest_mount_point *mp);
