/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

#include "stage0.h"

/* A pod being created by `cc-stage0 run`. */
struct pod_plan {
	char uuid[STAGE0_UUID_LEN + 1];
	char *path; /* the pod dir: pods/prepare/<uuid>, then pods/run/<uuid> */
	int lock_fd;
	bool created;
	bool overlay;
	struct store_image stage1;
	struct store_image *apps;
	char **names;
	size_t n_apps;
};

/* Lay out the pod dir in pods/prepare/<uuid> and move it to pods/run/<uuid>. */
int pod_prepare(const struct stage0_ctx *ctx, const struct run_opts *o, const char *pod_json,
		struct pod_plan *p);
/* The stage1 and app overlays (overlay mode), rkt/status touched, the apps' dirs. */
int pod_mount(const struct pod_plan *p);
/* Unmount and remove a pod that could not be started. */
void pod_plan_abort(struct pod_plan *p);
