/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Reading what rkt laid out in the pod dir before anything is changed: the pod manifest
 * (`pod`), each app's image manifest (`appsinfo/<app>/manifest`) and each app's rootfs
 * directory (`stage1/rootfs/opt/stage2/<app>/rootfs`). Any problem is one error line.
 */

#include <stddef.h>

#include "manifest/image-manifest.h"
#include "manifest/pod-manifest.h"
#include "cc/error.h"

struct pod_info {
	struct pod_manifest *pod;
	struct image_manifest **images; /* pod->n_apps entries */
};

/* Load from the pod dir pod_fd. */
int pod_info_load(int pod_fd, struct pod_info *ret, struct cc_error *reterr_error);
void pod_info_done(struct pod_info *p);
