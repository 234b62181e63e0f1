/* SPDX-License-Identifier: Apache-2.0 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "cc/cleanup.h"
#include "guest-config.h"
#include "pod-resources.h"
#include "run-net.h"

#define RUN_NET_DEFAULT_CONFIG "/etc/rkt"

char **run_net_strv_free(char **v)
{
	for (char **p = v; p && *p; p++)
		free(*p);
	free(v);
	return NULL;
}

static void strv_freep(char ***p)
{
	*p = run_net_strv_free(*p);
}

int run_net_cni_path(const char *local_config, char ***ret)
{
	static const char *const fixed[] = {"/usr/lib/rkt/plugins/net", "/usr/lib/cni",
					    "/opt/cni/bin"};
	_cleanup_(strv_freep) char **v = calloc(ARRAY_SIZE(fixed) + 2, sizeof(char *));

	if (!v)
		return -ENOMEM;
	if (asprintf(&v[0], "%s/net.d", local_config ? local_config : RUN_NET_DEFAULT_CONFIG) < 0) {
		v[0] = NULL;
		return -ENOMEM;
	}
	for (size_t i = 0; i < ARRAY_SIZE(fixed); i++)
		if (!(v[i + 1] = strdup(fixed[i])))
			return -ENOMEM;
	*ret = TAKE_PTR(v);
	return 0;
}

/* Add the forwards of one pod port: count consecutive ports from port. */
static int port_add(struct run_net *n, const struct pod_exposed_port *pp,
		    const struct manifest_port *mp, struct cc_error *err)
{
	uint32_t count = mp->count ? mp->count : 1;

	if (!mp->protocol || (strcmp(mp->protocol, "tcp") != 0 && strcmp(mp->protocol, "udp") != 0))
		return cc_error_set(err, EINVAL, "port %s: protocol %s is not tcp or udp", pp->name,
				    mp->protocol ? mp->protocol : "(none)");
	if (pp->host_port == 0 || (uint32_t) pp->host_port + count - 1 > 65535)
		return cc_error_set(err, EINVAL, "port %s: host port %u (%u ports) is out of range",
				    pp->name, pp->host_port, count);
	if (pp->host_ip && strlen(pp->host_ip) >= sizeof(n->ports[0].host_ip))
		return cc_error_set(err, EINVAL, "port %s: invalid host IP", pp->name);
	for (uint32_t k = 0; k < count; k++) {
		struct ccnet_port *p;

		if (n->n_ports >= CCNET_PORTS_MAX)
			return cc_error_set(err, E2BIG, "more than %d forwarded ports",
					    CCNET_PORTS_MAX);
		p = &n->ports[n->n_ports++];
		*p = (struct ccnet_port){
			.pod_port = (uint16_t) (mp->port + k),
			.host_port = (uint16_t) (pp->host_port + k),
		};
		strcpy(p->proto, mp->protocol);
		if (pp->host_ip)
			strcpy(p->host_ip, pp->host_ip);
	}
	return 0;
}

/* The app port called name, in any app of the pod (rkt: names are unique in the pod). */
static const struct manifest_port *app_port_find(const struct pod_info *info, const char *name)
{
	for (size_t a = 0; a < info->pod->n_apps; a++) {
		const struct manifest_app *app =
			pod_app_effective_app(&info->pod->apps[a], info->images[a]);

		for (size_t i = 0; app && i < app->n_ports; i++)
			if (app->ports[i].name && strcmp(app->ports[i].name, name) == 0)
				return &app->ports[i];
	}
	return NULL;
}

static int ports_resolve(struct run_net *n, const struct pod_info *info, struct cc_error *err)
{
	for (size_t i = 0; i < info->pod->n_ports; i++) {
		const struct pod_exposed_port *pp = &info->pod->ports[i];
		const struct manifest_port *mp = pp->pod_port;
		int r;

		if (!mp)
			mp = app_port_find(info, pp->name);
		if (!mp)
			return cc_error_set(err, ENOENT, "port %s: no app of the pod has this port",
					    pp->name);
		r = port_add(n, pp, mp, err);
		if (r < 0)
			return r;
	}
	return 0;
}

int run_net_select(struct run_net *n, const struct run_flags *f, const struct pod_info *info,
		   struct cc_error *reterr_error)
{
	const char *lc = f->local_config ? f->local_config : RUN_NET_DEFAULT_CONFIG;
	_cleanup_free_ char *local = NULL;
	const char *dirs[3] = {};
	int r;

	if (asprintf(&local, "%s/net.d", lc) < 0)
		return cc_error_set(reterr_error, -ENOMEM, "out of memory");
	dirs[0] = local;
	if (strcmp(local, RUN_NET_DEFAULT_CONFIG "/net.d") != 0)
		dirs[1] = RUN_NET_DEFAULT_CONFIG "/net.d";
	r = ccnet_select(f->net, dirs, &n->sel, reterr_error);
	if (r < 0)
		return r;
	r = run_net_cni_path(f->local_config, &n->cni_path);
	if (r < 0)
		return cc_error_set(reterr_error, r, "out of memory");
	if (n->sel.n == 0)
		return 0; /* --net=none: run warns about ports */
	return ports_resolve(n, info, reterr_error);
}

/* The host side of the first network with an IPv4 gateway: where the metadata service is. */
static void metadata_host_find(struct run_net *n)
{
	for (size_t i = 0; i < n->pod.n_nics; i++) {
		const struct cni_result *res = &n->pod.nics[i].result;

		for (size_t k = 0; k < res->n_ips; k++)
			if (res->ips[k].family == AF_INET && res->ips[k].has_gateway &&
			    inet_ntop(AF_INET, res->ips[k].gateway, n->metadata_host,
				      sizeof(n->metadata_host)))
				return;
	}
	n->metadata_host[0] = '\0';
}

/* What the VMM and the pod layer get from the set-up networks. */
static int outputs_build(struct run_net *n)
{
	int r;

	for (size_t i = 0; i < n->pod.n_nics; i++) {
		const struct ccnet_nic *nic = &n->pod.nics[i];
		char arg[64];

		n->tap_fds[i] = nic->tap_fd;
		r = ccnet_nic_vmm_arg(nic, nic->tap_fd, arg, sizeof(arg));
		if (r < 0)
			return r;
		n->vmm_nets[i] = strdup(arg);
		if (!n->vmm_nets[i])
			return -ENOMEM;
		r = ccnet_nic_networkd(nic, &n->file_texts[i]);
		if (r < 0)
			return r;
		(void) snprintf(n->file_names[i], sizeof(n->file_names[i]), "10-%s.network",
				nic->ifname);
		n->files[i] = (struct podlayer_net_file){n->file_names[i], n->file_texts[i]};
	}
	r = ccnet_pod_resolv_conf(&n->pod, &n->resolv_conf);
	if (r < 0 && r != -ENOENT)
		return r;
	metadata_host_find(n);
	return 0;
}

int run_net_setup(struct run_net *n, int pod_fd, const char *uuid, struct cc_error *reterr_error)
{
	struct cc_error ignored;
	int r, fd = pod_fd;

	if (n->sel.n == 0)
		return 0;

	struct ccnet_setup_params p = {
		.pod_fd = pod_fd,
		.uuid = uuid,
		.cni_path = (const char *const *) n->cni_path,
		.sel = &n->sel,
		.ports = n->ports,
		.n_ports = n->n_ports,
		.record = pod_resources_record,
		.record_userdata = &fd,
	};

	r = ccnet_pod_setup(&p, &n->pod, reterr_error);
	if (r < 0)
		return r;
	n->active = true;
	r = outputs_build(n);
	if (r < 0) {
		(void) run_net_teardown(n, pod_fd, uuid, &ignored);
		return cc_error_set(reterr_error, r, "cannot configure the pod's network: %m");
	}
	return 0;
}

int run_net_teardown(struct run_net *n, int pod_fd, const char *uuid, struct cc_error *reterr_error)
{
	int r;

	if (!n->active)
		return 0;
	ccnet_pod_done(&n->pod);
	r = ccnet_pod_teardown(pod_fd, uuid, (const char *const *) n->cni_path, 0, reterr_error);
	n->active = false;
	if (r < 0)
		return r;
	return 0;
}

int run_net_teardown_pod(int pod_fd, const char *uuid, const char *local_config,
			 struct cc_error *reterr_error)
{
	_cleanup_(strv_freep) char **path = NULL;
	int r;

	r = run_net_cni_path(local_config, &path);
	if (r < 0)
		return cc_error_set(reterr_error, r, "out of memory");
	r = ccnet_pod_teardown(pod_fd, uuid, (const char *const *) path, 0, reterr_error);
	if (r < 0)
		return r;
	return 0;
}

void run_net_done(struct run_net *n)
{
	ccnet_pod_done(&n->pod);
	ccnet_selection_done(&n->sel);
	for (size_t i = 0; i < CCNET_NETS_MAX; i++) {
		free(n->vmm_nets[i]);
		free(n->file_texts[i]);
	}
	free(n->resolv_conf);
	n->cni_path = run_net_strv_free(n->cni_path);
	*n = (struct run_net){};
}
