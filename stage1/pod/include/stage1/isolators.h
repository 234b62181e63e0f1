/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * appc isolators -> systemd [Service] directives of the app unit (docs/stage1.md "Isolator
 * mapping"). Every isolator that is ignored or changed adds a warning line naming the app
 * and the isolator. Isolators that cannot be honoured and must not be ignored
 * (os/linux/apparmor-profile: the guest has no AppArmor; unknown capability, errno or seccomp
 * wildcard names; conflicting seccomp sets; zero limits) fail with -EINVAL / -EOPNOTSUPP.
 *
 * Defaults: without a capability isolator the bounding set is appc's 14 default capabilities;
 * without a seccomp isolator the filter is rkt's default deny-list with errno EPERM.
 */

#include <stdbool.h>
#include <stdint.h>

#include "manifest/isolator.h"
#include "cc/error.h"
#include "cc/warnings.h"

struct isolator_options {
	bool disable_capabilities; /* --disable-capabilities-restriction */
	bool disable_seccomp;	   /* --disable-seccomp */
	uint32_t uid;		   /* the app's resolved uid (0: root) */
};

/*
 * Map one app's isolators, bounded by the pod's (pod resource/memory and resource/cpu cap
 * the app's limits). *ret is the directives text ("" when there is none).
 */
int isolators_map(const char *app_name, const struct manifest_isolator_list *app_isolators,
		  const struct manifest_isolator_list *pod_isolators,
		  const struct isolator_options *opts, char **ret, struct cc_warnings *warnings,
		  struct cc_error *reterr);

/*
 * Pod-level isolators that the VM does not apply (everything but resource/memory and
 * resource/cpu, which size the VM): one warning each; os/linux/apparmor-profile fails with
 * -EOPNOTSUPP.
 */
int isolators_report_pod(const struct manifest_isolator_list *pod_isolators,
			 struct cc_warnings *warnings, struct cc_error *reterr);

/* appc cpu-shares (2..262144, default 1024) -> systemd CPUWeight= (1..10000, default 100). */
uint32_t cpu_shares_to_weight(uint32_t shares);
