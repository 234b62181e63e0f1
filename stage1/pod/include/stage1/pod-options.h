/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The stage1's own options that a pod manifest carries as annotations (docs/stage1.md,
 * "Pod options"): rkt passes no stage1-specific flags, so a user sets them per app with
 * `rkt run IMAGE --user-annotation=NAME=VALUE` (the app's userAnnotations), or for the pod
 * in a --pod-manifest (the pod's annotations or userAnnotations).
 *
 *   clear-containers/ksm = true|false   guest RAM and the kernel's written pages
 *                                       MADV_MERGEABLE (cc-vmm --ksm); default false
 *
 * The pod's value decides when it has one (its userAnnotations over its annotations); else
 * KSM is on when any app says true. A value other than "true" or "false" is an error.
 */

#include <stdbool.h>

#include "manifest/pod-manifest.h"
#include "cc/error.h"
#include "cc/warnings.h"

#define POD_OPTION_KSM "clear-containers/ksm"

struct pod_options {
	bool ksm;
};

/* -EINVAL (with reterr) for a value other than "true" or "false". */
int pod_options_parse(const struct pod_manifest *pod, struct pod_options *ret,
		      struct cc_error *reterr);
