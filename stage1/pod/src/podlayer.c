/* SPDX-License-Identifier: Apache-2.0 */
/* The pod layer as a whole (layout in podlayer.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stage1/atomic-write.h"
#include "cc/cleanup.h"
#include "podlayer-internal.h"
#include "stage1/env.h"
#include "stage1/isolators.h"
#include "stage1/unit.h"
#include "strbuf.h"

static int check_pod(const struct podlayer_params *p, struct cc_error *reterr)
{
	const struct pod_manifest *pod = p->pod;

	if (pod->n_apps == 0)
		return cc_error_set(reterr, -EINVAL, "the pod has no apps");
	if (p->flags->interactive && pod->n_apps != 1)
		return cc_error_set(reterr, -EINVAL,
				    "--interactive needs a pod with exactly one app (it has %zu)",
				    pod->n_apps);
	for (size_t i = 0; i < pod->n_apps; i++) {
		if (!stage1_ac_name_is_valid(pod->apps[i].name))
			return cc_error_set(reterr, -EINVAL, "app %zu: invalid name", i);
		for (size_t k = 0; k < i; k++)
			if (strcmp(pod->apps[i].name, pod->apps[k].name) == 0)
				return cc_error_set(reterr, -EINVAL, "app %s: listed twice",
						    pod->apps[i].name);
	}
	return 0;
}

static int metadata_url(const struct podlayer_params *p, char **ret, struct cc_warnings *warnings)
{
	*ret = NULL;
	if (!p->flags->mds_token)
		return 0;
	if (!p->metadata_host)
		return cc_warnings_add(warnings, "--mds-token: the pod has no network to reach the "
						 "metadata service: AC_METADATA_URL is not set");
	return metadata_url_format(p->metadata_host, p->flags->mds_token, ret);
}

static int write_pod_files(int layer_fd, int units_fd, const struct podlayer_params *p,
			   const struct dns_files *dns, struct guest_users *users,
			   struct cc_error *reterr)
{
	_cleanup_free_ char *target = NULL, *apps = NULL, *passwd = NULL, *group = NULL,
			    *exit_unit = NULL, *started_unit = NULL;
	_cleanup_free_ char **names = NULL;
	_cleanup_close_ int etc_fd = -1, cc_fd = -1;
	struct strbuf b = {};
	int r;

	names = calloc(p->pod->n_apps, sizeof(char *));
	if (!names)
		return -ENOMEM;
	for (size_t i = 0; i < p->pod->n_apps; i++) {
		names[i] = p->pod->apps[i].name;
		strbuf_printf(&b, "%s\n", names[i]);
	}
	r = strbuf_steal(&b, &apps);
	if (r < 0)
		return r;
	r = unit_pod_target_format(names, p->pod->n_apps, &target);
	if (r >= 0)
		r = unit_app_exit_template_format(&exit_unit);
	if (r >= 0)
		r = unit_app_started_format(names, p->pod->n_apps, &started_unit);
	if (r >= 0)
		r = strbuf_steal(&users->passwd, &passwd);
	if (r >= 0)
		r = strbuf_steal(&users->group, &group);
	if (r < 0)
		return r;

	r = layer_write_file(units_fd, UNIT_POD_TARGET, target, 0644);
	if (r >= 0)
		r = layer_symlink(units_fd, "default.target", UNIT_POD_TARGET);
	if (r >= 0)
		r = layer_mkdir_p(layer_fd, "etc/cc", 0755, &cc_fd);
	if (r >= 0)
		r = layer_write_file(cc_fd, "apps", apps, 0644);
	if (r >= 0)
		r = layer_write_file(cc_fd, "passwd", passwd, 0644);
	if (r >= 0)
		r = layer_write_file(cc_fd, "group", group, 0644);
	if (r >= 0)
		r = layer_write_file(units_fd, UNIT_APP_EXIT_TEMPLATE, exit_unit, 0644);
	if (r >= 0)
		r = layer_write_file(units_fd, UNIT_APP_STARTED_SERVICE, started_unit, 0644);
	if (r >= 0)
		r = layer_mkdir_p(layer_fd, "etc", 0755, &etc_fd);
	if (r >= 0)
		r = layer_write_file(etc_fd, "hostname", dns->hostname, 0644);
	if (r >= 0)
		r = layer_write_file(etc_fd, "hosts", dns->hosts, 0644);
	if (r >= 0 && dns->resolv_conf)
		r = layer_write_file(etc_fd, "resolv.conf", dns->resolv_conf, 0644);
	if (r < 0)
		return cc_error_set(reterr, r, "cannot write the pod layer: %s", strerror(-r));
	return 0;
}

int podlayer_write(int layer_fd, const struct podlayer_params *p, struct cc_warnings *warnings,
		   struct cc_error *reterr)
{
	_cleanup_close_ int units_fd = -1, env_fd = -1, enter_fd = -1;
	_cleanup_free_ char *url = NULL;
	struct guest_users users = {};
	struct dns_files dns = {};
	char hostname[STAGE1_HOSTNAME_MAX + 1];
	int r;

	assert_return(layer_fd >= 0 && p && p->pod && p->flags && p->stage1_rootfs_fd >= 0,
		      -EINVAL);
	r = check_pod(p, reterr);
	if (r < 0)
		return r;
	r = isolators_report_pod(&p->pod->isolators, warnings, reterr);
	if (r < 0)
		return r;
	if (p->flags->hostname)
		r = strlen(p->flags->hostname) < sizeof(hostname)
			    ? (strcpy(hostname, p->flags->hostname), 0)
			    : -ENAMETOOLONG;
	else
		r = hostname_default(p->flags->uuid, hostname, sizeof(hostname));
	if (r < 0)
		return cc_error_set(reterr, r, "invalid hostname or pod UUID");
	r = dns_files_build(p->flags->dns_hosts, p->flags->dns_resolv, hostname,
			    p->stage1_rootfs_fd, p->host_etc_fd, &dns, reterr);
	if (r < 0)
		return r;
	if (r >= 0 && p->flags->dns_resolv == DNS_RESOLV_DEFAULT && p->net_resolv_conf) {
		free(dns.resolv_conf);
		dns.resolv_conf = strdup(p->net_resolv_conf);
		if (!dns.resolv_conf)
			r = -ENOMEM;
	}
	if (r >= 0)
		r = metadata_url(p, &url, warnings);
	if (r >= 0)
		r = layer_mkdir_p(layer_fd, "etc/systemd/system", 0755, &units_fd);
	if (r >= 0)
		r = layer_mkdir_p(layer_fd, "etc/cc/env", 0700, &env_fd);
	if (r >= 0)
		r = layer_mkdir_p(layer_fd, "etc/cc/enter", 0755, &enter_fd);
	if (r < 0) {
		dns_files_done(&dns);
		return cc_error_set(reterr, r, "cannot create the pod layer directories: %s",
				    strerror(-r));
	}

	struct podlayer_ctx c = {
		.p = p,
		.dns = &dns,
		.metadata_url = url,
		.units_fd = units_fd,
		.env_fd = env_fd,
		.enter_fd = enter_fd,
		.users = &users,
		.warnings = warnings,
		.reterr = reterr,
	};
	for (size_t i = 0; i < p->pod->n_apps && r >= 0; i++)
		r = podlayer_app_write(&c, i);
	if (r >= 0)
		r = write_pod_files(layer_fd, units_fd, p, &dns, &users, reterr);
	if (r >= 0)
		r = podlayer_net_write(layer_fd, units_fd, p, reterr);
	guest_users_done(&users);
	dns_files_done(&dns);
	return r;
}
