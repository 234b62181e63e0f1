/* SPDX-License-Identifier: Apache-2.0 */
/* appc isolators -> systemd directives (docs/stage1.md "Isolator mapping"). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "caps.h"
#include "seccomp.h"
#include "stage1/isolators.h"
#include "strbuf.h"

uint32_t cpu_shares_to_weight(uint32_t shares)
{
	/* systemd's own CPUShares= -> CPUWeight= rule: scale so that 1024 maps to 100. */
	uint64_t w = ((uint64_t) shares * 100 + 512) / 1024;

	return (uint32_t) (w < 1 ? 1 : w > 10000 ? 10000 : w);
}

struct map_ctx {
	const char *app;
	const struct manifest_isolator_list *app_isolators;
	const struct manifest_isolator_list *pod_isolators;
	const struct isolator_options *opts;
	struct strbuf *out;
	struct cc_warnings *warnings;
	struct cc_error *reterr;
};

static size_t count_type(const struct manifest_isolator_list *l, enum manifest_isolator_type t)
{
	size_t n = 0;

	for (size_t i = 0; l && i < l->n; i++)
		n += l->items[i].type == t;
	return n;
}

/* The limit of an app resource isolator, bounded by the pod's; 0 and r > 0: none to apply. */
static int resource_limit(struct map_ctx *c, enum manifest_isolator_type t, const char *unit,
			  uint64_t *ret)
{
	const struct manifest_isolator *iso = manifest_isolators_find_type(c->app_isolators, t);
	const struct manifest_isolator *pod = manifest_isolators_find_type(c->pod_isolators, t);
	uint64_t limit, request, pod_limit;
	int r;

	*ret = 0;
	if (!iso)
		return 1;
	if (count_type(c->app_isolators, t) > 1 &&
	    cc_warnings_add(c->warnings, "app %s: %zu %s isolators: only the last one applies",
			    c->app, count_type(c->app_isolators, t), iso->name) < 0)
		return -ENOMEM;
	r = manifest_resource_get_limit(iso, &limit);
	if (r == -ENODATA)
		return cc_warnings_add(c->warnings, "app %s: %s without a limit is ignored", c->app,
				       iso->name) < 0
			       ? -ENOMEM
			       : 1;
	if (r < 0)
		return cc_error_set(c->reterr, r, "app %s: %s: invalid limit", c->app, iso->name);
	if (limit == 0)
		return cc_error_set(c->reterr, -EINVAL, "app %s: %s: the limit must not be 0",
				    c->app, iso->name);
	if (manifest_resource_get_request(iso, &request) >= 0 && request < limit &&
	    cc_warnings_add(c->warnings,
			    "app %s: %s request %" PRIu64 "%s is not reserved: only the limit "
			    "is enforced",
			    c->app, iso->name, request, unit) < 0)
		return -ENOMEM;
	if (pod && manifest_resource_get_limit(pod, &pod_limit) >= 0 && pod_limit > 0 &&
	    limit > pod_limit) {
		if (cc_warnings_add(c->warnings,
				    "app %s: %s limit %" PRIu64 "%s is lowered to the pod's "
				    "limit %" PRIu64 "%s",
				    c->app, iso->name, limit, unit, pod_limit, unit) < 0)
			return -ENOMEM;
		limit = pod_limit;
	}
	*ret = limit;
	return 0;
}

static int map_resources(struct map_ctx *c)
{
	uint64_t v;
	int r;

	r = resource_limit(c, MANIFEST_ISOLATOR_RESOURCE_MEMORY, " bytes", &v);
	if (r < 0)
		return r;
	if (v > 0)
		strbuf_printf(c->out, "MemoryMax=%" PRIu64 "\n", v);
	r = resource_limit(c, MANIFEST_ISOLATOR_RESOURCE_CPU, "m", &v);
	if (r < 0)
		return r;
	if (v > 0) {
		/* millicores -> percent of one CPU; systemd takes two decimals. */
		if (v % 10 == 0)
			strbuf_printf(c->out, "CPUQuota=%" PRIu64 "%%\n", v / 10);
		else
			strbuf_printf(c->out, "CPUQuota=%" PRIu64 ".%" PRIu64 "%%\n", v / 10,
				      v % 10);
	}
	return 0;
}

static int map_scalars(struct map_ctx *c)
{
	const struct manifest_isolator *iso;

	iso = manifest_isolators_find_type(c->app_isolators, MANIFEST_ISOLATOR_CPU_SHARES);
	if (iso) {
		uint32_t w = cpu_shares_to_weight((uint32_t) iso->v.cpu_shares);

		strbuf_printf(c->out, "CPUWeight=%" PRIu32 "\n", w);
		if ((uint64_t) w * 1024 != (uint64_t) iso->v.cpu_shares * 100 &&
		    cc_warnings_add(c->warnings,
				    "app %s: os/linux/cpu-shares %" PRId32 " is applied as "
				    "CPUWeight=%" PRIu32 " (cgroup v2 weight, rounded)",
				    c->app, iso->v.cpu_shares, w) < 0)
			return -ENOMEM;
	}
	iso = manifest_isolators_find_type(c->app_isolators, MANIFEST_ISOLATOR_OOM_SCORE_ADJ);
	if (iso)
		strbuf_printf(c->out, "OOMScoreAdjust=%" PRId32 "\n", iso->v.oom_score_adj);
	iso = manifest_isolators_find_type(c->app_isolators, MANIFEST_ISOLATOR_NO_NEW_PRIVILEGES);
	if (iso)
		strbuf_printf(c->out, "NoNewPrivileges=%s\n",
			      iso->v.no_new_privileges ? "yes" : "no");
	return 0;
}

static int cap_set_add(struct map_ctx *c, const struct manifest_isolator *iso, uint64_t *set)
{
	for (size_t k = 0; k < iso->v.set.n; k++) {
		int cap = cap_from_name(iso->v.set.names[k]);

		if (cap < 0)
			return cc_error_set(c->reterr, -EINVAL,
					    "app %s: %s: unknown capability '%.64s'", c->app,
					    iso->name, iso->v.set.names[k]);
		*set |= UINT64_C(1) << cap;
	}
	return 0;
}

static int map_capabilities(struct map_ctx *c)
{
	const struct manifest_isolator_list *l = c->app_isolators;
	size_t n_retain = count_type(l, MANIFEST_ISOLATOR_CAPABILITIES_RETAIN);
	size_t n_remove = count_type(l, MANIFEST_ISOLATOR_CAPABILITIES_REMOVE);
	uint64_t retain = 0, remove = 0, set;
	int r;

	if (c->opts->disable_capabilities) {
		if (n_retain + n_remove > 0 &&
		    cc_warnings_add(c->warnings,
				    "app %s: capability isolators are ignored "
				    "(--disable-capabilities-restriction)",
				    c->app) < 0)
			return -ENOMEM;
		return 0;
	}
	for (size_t i = 0; l && i < l->n; i++) {
		const struct manifest_isolator *iso = &l->items[i];

		if (iso->type == MANIFEST_ISOLATOR_CAPABILITIES_RETAIN)
			r = cap_set_add(c, iso, &retain);
		else if (iso->type == MANIFEST_ISOLATOR_CAPABILITIES_REMOVE)
			r = cap_set_add(c, iso, &remove);
		else
			r = 0;
		if (r < 0)
			return r;
	}
	if (n_retain > 0) {
		set = retain;
		if (n_remove > 0 &&
		    cc_warnings_add(c->warnings,
				    "app %s: os/linux/capabilities-remove-set is ignored: "
				    "the retain-set defines the bounding set",
				    c->app) < 0)
			return -ENOMEM;
	} else {
		set = cap_default_set() & ~remove;
	}
	/* An empty value is the empty set ("~" alone would be the full set). */
	strbuf_append(c->out, "CapabilityBoundingSet=");
	for (int cap = 0, first = 1; cap < CAP_NAME_COUNT; cap++)
		if (set & (UINT64_C(1) << cap)) {
			strbuf_printf(c->out, "%s%s", first ? "" : " ", cap_to_name(cap));
			first = 0;
		}
	strbuf_append_char(c->out, '\n');
	return 0;
}

static int map_seccomp(struct map_ctx *c)
{
	const struct manifest_isolator *retain, *remove, *nnp;
	bool unfiltered = false;
	int r;

	retain = manifest_isolators_find_type(c->app_isolators, MANIFEST_ISOLATOR_SECCOMP_RETAIN);
	remove = manifest_isolators_find_type(c->app_isolators, MANIFEST_ISOLATOR_SECCOMP_REMOVE);
	if (c->opts->disable_seccomp) {
		if ((retain || remove) &&
		    cc_warnings_add(c->warnings,
				    "app %s: seccomp isolators are ignored (--disable-seccomp)",
				    c->app) < 0)
			return -ENOMEM;
		return 0;
	}
	if (retain && remove)
		return cc_error_set(c->reterr, -EINVAL,
				    "app %s: seccomp retain-set and remove-set conflict", c->app);
	if (retain || remove) {
		r = seccomp_filter_append(c->out, retain ? &retain->v.set : &remove->v.set,
					  !!retain, &unfiltered, c->reterr);
		if (r < 0) {
			char msg[CC_ERROR_MSG_MAX];

			if (!c->reterr)
				return r;
			memcpy(msg, c->reterr->msg, sizeof(msg));
			return cc_error_set(c->reterr, r, "app %s: %s: %s", c->app,
					    (retain ? retain : remove)->name, msg);
		}
	} else {
		seccomp_default_filter(c->out);
	}
	nnp = manifest_isolators_find_type(c->app_isolators, MANIFEST_ISOLATOR_NO_NEW_PRIVILEGES);
	if (!unfiltered && c->opts->uid != 0 && nnp && !nnp->v.no_new_privileges &&
	    cc_warnings_add(c->warnings,
			    "app %s: os/linux/no-new-privileges false is overridden: systemd "
			    "sets no_new_privs for a non-root app with a seccomp filter",
			    c->app) < 0)
		return -ENOMEM;
	return 0;
}

static const char *ignore_reason(enum manifest_isolator_type t)
{
	switch (t) {
	case MANIFEST_ISOLATOR_RESOURCE_BLOCK_BANDWIDTH:
	case MANIFEST_ISOLATOR_RESOURCE_BLOCK_IOPS:
		return "block I/O limits are not supported yet";
	case MANIFEST_ISOLATOR_RESOURCE_NETWORK_BANDWIDTH:
		return "network bandwidth limits are not supported yet";
	case MANIFEST_ISOLATOR_SELINUX_CONTEXT:
		return "the pod VM has no SELinux";
	case MANIFEST_ISOLATOR_SYSCTL:
		return "os/unix/sysctl is a pod isolator";
	case MANIFEST_ISOLATOR_UNKNOWN:
		return "unknown isolator";
	default:
		return NULL;
	}
}

static int report_ignored(struct map_ctx *c)
{
	const struct manifest_isolator_list *l = c->app_isolators;

	for (size_t i = 0; l && i < l->n; i++) {
		const struct manifest_isolator *iso = &l->items[i];
		const char *why;

		if (iso->type == MANIFEST_ISOLATOR_APPARMOR_PROFILE)
			return cc_error_set(c->reterr, -EOPNOTSUPP,
					    "app %s: os/linux/apparmor-profile: the pod VM has "
					    "no AppArmor, and appc forbids running without the "
					    "profile",
					    c->app);
		why = ignore_reason(iso->type);
		if (why && cc_warnings_add(c->warnings, "app %s: isolator %.128s is ignored: %s",
					   c->app, iso->name, why) < 0)
			return -ENOMEM;
	}
	return 0;
}

int isolators_map(const char *app_name, const struct manifest_isolator_list *app_isolators,
		  const struct manifest_isolator_list *pod_isolators,
		  const struct isolator_options *opts, char **ret, struct cc_warnings *warnings,
		  struct cc_error *reterr)
{
	struct strbuf b = {};
	struct map_ctx c = {
		.app = app_name,
		.app_isolators = app_isolators,
		.pod_isolators = pod_isolators,
		.opts = opts,
		.out = &b,
		.warnings = warnings,
		.reterr = reterr,
	};
	int r;

	assert_return(app_name && opts && ret, -EINVAL);
	r = report_ignored(&c);
	if (r >= 0)
		r = map_resources(&c);
	if (r >= 0)
		r = map_scalars(&c);
	if (r >= 0)
		r = map_capabilities(&c);
	if (r >= 0)
		r = map_seccomp(&c);
	if (r < 0) {
		strbuf_done(&b);
		return r;
	}
	return strbuf_steal(&b, ret);
}

int isolators_report_pod(const struct manifest_isolator_list *pod_isolators,
			 struct cc_warnings *warnings, struct cc_error *reterr)
{
	for (size_t i = 0; pod_isolators && i < pod_isolators->n; i++) {
		const struct manifest_isolator *iso = &pod_isolators->items[i];
		const char *why;

		switch (iso->type) {
		case MANIFEST_ISOLATOR_RESOURCE_MEMORY:
		case MANIFEST_ISOLATOR_RESOURCE_CPU:
			continue; /* they size the VM and bound the apps */
		case MANIFEST_ISOLATOR_APPARMOR_PROFILE:
			return cc_error_set(reterr, -EOPNOTSUPP,
					    "pod isolator os/linux/apparmor-profile: the pod VM "
					    "has no AppArmor, and appc forbids running without "
					    "the profile");
		case MANIFEST_ISOLATOR_SELINUX_CONTEXT:
			why = "the pod VM has no SELinux";
			break;
		case MANIFEST_ISOLATOR_SYSCTL:
			why = "sysctls are not applied in the guest yet";
			break;
		case MANIFEST_ISOLATOR_UNKNOWN:
			why = "unknown isolator";
			break;
		default:
			why = "not supported at pod level";
		}
		if (cc_warnings_add(warnings, "pod isolator %.128s is ignored: %s", iso->name,
				    why) < 0)
			return -ENOMEM;
	}
	return 0;
}
