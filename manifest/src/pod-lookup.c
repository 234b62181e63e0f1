/* SPDX-License-Identifier: Apache-2.0 */
/* Lookups stage1 needs on a parsed pod manifest. */
#include <string.h>

#include "manifest/pod-manifest.h"

const struct pod_app *pod_manifest_find_app(const struct pod_manifest *m, const char *name)
{
	if (!m || !name)
		return NULL;
	for (size_t i = 0; i < m->n_apps; i++)
		if (strcmp(m->apps[i].name, name) == 0)
			return &m->apps[i];
	return NULL;
}

const struct manifest_app *pod_app_effective_app(const struct pod_app *pa,
						 const struct image_manifest *image)
{
	if (!pa)
		return NULL;
	if (pa->app)
		return pa->app;
	return image ? image->app : NULL;
}

const struct manifest_volume *pod_manifest_find_volume(const struct pod_manifest *m,
						       const struct pod_mount *mount)
{
	if (!mount)
		return NULL;
	if (mount->app_volume)
		return mount->app_volume;
	if (!m)
		return NULL;
	for (size_t i = 0; i < m->n_volumes; i++)
		if (strcmp(m->volumes[i].name, mount->volume) == 0)
			return &m->volumes[i];
	return NULL;
}

const struct pod_mount *pod_app_find_mount(const struct pod_app *pa,
					   const struct manifest_mount_point *mp)
{
	if (!pa || !mp)
		return NULL;
	/* pods.md: a mount fulfills the mount point with the same path... */
	for (size_t i = 0; i < pa->n_mounts; i++)
		if (strcmp(pa->mounts[i].path, mp->path) == 0)
			return &pa->mounts[i];
	/* ...and failing that, a mount of the volume named like the mount point. */
	for (size_t i = 0; i < pa->n_mounts; i++)
		if (strcmp(pa->mounts[i].volume, mp->name) == 0)
			return &pa->mounts[i];
	return NULL;
}
