/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The part of `run` that changes things, once every check has passed: guest/ (0700) and the
 * guest's guest/rkt/status are created and a stale guest/rkt/cc-pod-exit removed, cc/ is
 * created (0700), each app rootfs gets proc sys dev tmp run, stage1/rootfs/opt and the apps'
 * overlay upper dirs become 0700 (the apps' rootfs may hold the guest's setuid programs: root
 * only), the volumes are mounted, and the pod layer is written to cc/layer. On failure the caller
 * removes cc/. The caller has already moved to a private mount namespace (mount_ns_private())
 * and opened pod_fd after that (see volume_plan_apply()).
 */

#include "pod-load.h"
#include "cc/error.h"
#include "cc/warnings.h"
#include "stage1/flags.h"
#include "stage1/podlayer.h"
#include "volume-plan.h"
#include "volume-root.h"

struct run_prepare_params {
	int pod_fd;
	const struct pod_info *info;
	const struct run_flags *flags;
	const struct volume_plan *plan;
	struct volume_roots *roots; /* out: the host volumes' roots (volume-root.h) */
	/* Pod networks (run-net.h): NULL / 0 for --net=none. */
	const char *metadata_host;
	const struct podlayer_net_file *net_files;
	size_t n_net_files;
	const char *net_resolv_conf;
};

int run_prepare(const struct run_prepare_params *p, struct cc_warnings *warn,
		struct cc_error *reterr_error);
