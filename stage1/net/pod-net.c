/* SPDX-License-Identifier: Apache-2.0 */
/* ccnet_pod_setup() / ccnet_pod_teardown(): the steps of ccnet.h in order. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/time-util.h"
#include "cc/log.h"
#include "ccnet.h"
#include "cni-exec.h"
#include "net-state.h"
#include "netns.h"
#include "nic-link.h"
#include "portfwd.h"
#include "stage1/uuid.h"

static int teardown(int pod_fd, const char *uuid, const char *const *cni_path, int timeout_ms,
		    bool force, struct cc_error *reterr);

static void netns_name(const char *uuid, char *buf, size_t size)
{
	(void) snprintf(buf, size, "cc-%s", uuid);
}

void ccnet_pod_done(struct ccnet_pod *pod)
{
	for (size_t i = 0; i < pod->n_nics; i++)
		pod->nics[i].tap_fd = safe_close(pod->nics[i].tap_fd);
}

int ccnet_nic_vmm_arg(const struct ccnet_nic *nic, int fd, char *buf, size_t size)
{
	const uint8_t *m = nic->mac;
	int n = snprintf(buf, size, "fd=%d,mac=%02x:%02x:%02x:%02x:%02x:%02x", fd, m[0], m[1], m[2],
			 m[3], m[4], m[5]);

	return n < 0 || (size_t) n >= size ? -ENOBUFS : 0;
}

/* CNI ADD of net i into the netns, then the tap. */
static int nic_add(const struct ccnet_setup_params *p, size_t i, int ns_fd, const char *ns_path,
		   const char *cni_path, struct ccnet_nic *nic, struct cc_error *err)
{
	const struct ccnet_conf *c = &p->sel->nets[i];
	_cleanup_free_ char *plugin = NULL, *out = NULL;
	struct net_state st = {};
	char tap[16];
	size_t len = 0;
	int r;

	(void) snprintf(nic->ifname, sizeof(nic->ifname), "eth%zu", i);
	(void) snprintf(tap, sizeof(tap), "tap%zu", i);
	(void) snprintf(nic->net_name, sizeof(nic->net_name), "%s", c->name);
	r = cni_plugin_find(c->type, p->cni_path, &plugin);
	if (r < 0)
		return cc_error_set(err, r, "network %s: CNI plugin \"%s\" not found in %s",
				    c->name, c->type, cni_path);
	if (strlen(plugin) >= sizeof(nic->plugin) || strlen(c->args) >= sizeof(st.args))
		return cc_error_set(err, -ENAMETOOLONG, "network %s: path or args too long",
				    c->name);
	strcpy(nic->plugin, plugin);
	(void) snprintf(st.net_name, sizeof(st.net_name), "%s", c->name);
	strcpy(st.plugin, plugin);
	strcpy(st.ifname, nic->ifname);
	strcpy(st.args, c->args);
	(void) snprintf(st.netns, sizeof(st.netns), "%s", ns_path);
	st.conf = c->conf;
	st.conf_len = strlen(c->conf);
	r = net_state_save(p->pod_fd, &st);
	if (r < 0)
		return cc_error_set(err, r, "network %s: cannot save its state: %m", c->name);
	r = cni_call_run(&(struct cni_call){.command = "ADD",
					    .plugin = plugin,
					    .container_id = p->uuid,
					    .netns = ns_path,
					    .ifname = nic->ifname,
					    .args = c->args,
					    .path = cni_path,
					    .conf = c->conf,
					    .conf_len = st.conf_len,
					    .timeout_ms = p->timeout_ms ?: CCNET_TIMEOUT_MS},
			 &out, &len, err);
	if (r < 0)
		return r;
	r = net_state_save_result(p->pod_fd, nic->ifname, out, len);
	if (r < 0)
		return cc_error_set(err, r, "network %s: cannot save its result: %m", c->name);
	r = cni_result_parse(out, len, &nic->result, err);
	if (r < 0)
		return r;
	if (nic->result.n_ips == 0)
		return cc_error_set(err, -EADDRNOTAVAIL,
				    "network %s: the CNI plugin gave no IP address", c->name);
	r = nic_link_join(ns_fd, nic->ifname, tap, &nic->result, nic->mac, &nic->tap_fd);
	if (r < 0)
		return cc_error_set(err, r, "network %s: cannot join %s to a tap: %m", c->name,
				    nic->ifname);
	return 0;
}

/* The net that gets forwarded ports: the first with ipMasq and an address, else the first. */
static const struct ccnet_nic *forward_nic(const struct ccnet_setup_params *p,
					   const struct ccnet_pod *pod)
{
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < pod->n_nics; i++) {
			const struct cni_result *r = &pod->nics[i].result;

			if ((pass || p->sel->nets[i].ip_masq) &&
			    (cni_result_first_ip(r, AF_INET) || cni_result_first_ip(r, AF_INET6)))
				return &pod->nics[i];
		}
	return NULL;
}

static int ports_add(const struct ccnet_setup_params *p, const struct ccnet_pod *pod,
		     struct cc_error *err)
{
	const struct ccnet_nic *nic;
	const struct cni_ip *ip;
	struct portfwd_target t = {};
	char ip4[INET_ADDRSTRLEN], ip6[INET6_ADDRSTRLEN];
	int families, r;

	if (p->n_ports == 0)
		return 0;
	nic = forward_nic(p, pod);
	if (!nic)
		return cc_error_set(err, -EADDRNOTAVAIL,
				    "ports cannot be forwarded: no network has an address");
	ip = cni_result_first_ip(&nic->result, AF_INET);
	if (ip)
		t.ip4 = inet_ntop(AF_INET, ip->addr, ip4, sizeof(ip4));
	ip = cni_result_first_ip(&nic->result, AF_INET6);
	if (ip)
		t.ip6 = inet_ntop(AF_INET6, ip->addr, ip6, sizeof(ip6));
	for (size_t i = 0; i < nic->result.n_ifaces; i++)
		if (!nic->result.ifaces[i].in_sandbox) {
			t.host_if = nic->result.ifaces[i].name;
			break;
		}
	families = portfwd_families(p->ports, p->n_ports, &t, err);
	if (families < 0)
		return families;
	/* Teardown looks for tagged rules of these families only if this marker exists. */
	r = net_ports_mark(p->pod_fd, families);
	if (r < 0)
		return cc_error_set(err, r, "cannot save the port state: %m");
	return portfwd_add((enum portfwd_backend) p->firewall, p->uuid, p->ports, p->n_ports, &t,
			   err);
}

static int setup(const struct ccnet_setup_params *p, struct ccnet_pod *pod, struct cc_error *err)
{
	_cleanup_free_ char *cni_path = NULL;
	_cleanup_close_ int ns_fd = -1;
	char ns_path[128];
	int r;

	cni_path = cni_path_join(p->cni_path);
	if (!cni_path)
		return -ENOMEM;
	netns_name(p->uuid, pod->netns, sizeof(pod->netns));
	r = p->record(p->record_userdata, "netns", pod->netns);
	if (r < 0)
		return cc_error_set(err, r, "cannot record netns %s in cc/resources: %m",
				    pod->netns);
	r = netns_create(pod->netns, &ns_fd);
	if (r < 0)
		return cc_error_set(err, r, "cannot create the network namespace %s: %m",
				    pod->netns);
	(void) snprintf(ns_path, sizeof(ns_path), CCNET_NETNS_DIR "/%s", pod->netns);
	for (size_t i = 0; i < p->sel->n; i++) {
		pod->nics[i].tap_fd = -1;
		pod->n_nics = i + 1;
		r = nic_add(p, i, ns_fd, ns_path, cni_path, &pod->nics[i], err);
		if (r < 0)
			return r;
	}
	r = ports_add(p, pod, err);
	if (r < 0)
		return r;
	r = net_info_write(p->pod_fd, p->sel, pod);
	if (r < 0)
		return cc_error_set(err, r, "cannot write " CCNET_NET_INFO ": %m");
	return 0;
}

int ccnet_pod_setup(const struct ccnet_setup_params *p, struct ccnet_pod *ret,
		    struct cc_error *reterr)
{
	int64_t t0 = now_monotonic_ms();
	struct cc_error ignored;
	int r;

	assert_return(p && p->sel && ret && p->record, -EINVAL);
	memset(ret, 0, sizeof(*ret));
	if (p->sel->n == 0)
		return 0;
	if (!p->uuid || !stage1_uuid_is_valid(p->uuid))
		return cc_error_set(reterr, -EINVAL, "invalid pod UUID");
	if (p->firewall < PORTFWD_AUTO || p->firewall > PORTFWD_NFT)
		return cc_error_set(reterr, -EINVAL, "unknown firewall backend %d", p->firewall);
	if (p->sel->n > CCNET_NETS_MAX)
		return cc_error_set(reterr, -E2BIG, "more than %d networks", CCNET_NETS_MAX);
	r = portfwd_validate(p->ports, p->n_ports, reterr);
	if (r < 0)
		return r;
	r = setup(p, ret, reterr);
	if (r < 0) {
		ccnet_pod_done(ret);
		(void) teardown(p->pod_fd, p->uuid, p->cni_path, p->timeout_ms, true, &ignored);
		ret->n_nics = 0;
		return r;
	}
	ret->setup_ms = (unsigned) (now_monotonic_ms() - t0);
	log_debug("pod network set up in %u ms (%zu nics)", ret->setup_ms, ret->n_nics);
	return 0;
}

/* Put the saved result's addresses back on the veth (if both are still there). */
static int veth_restore(int pod_fd, const struct net_state *st)
{
	_cleanup_free_ char *out = NULL;
	struct cni_result *res;
	size_t len;
	int r;

	r = net_state_load_result(pod_fd, st->ifname, &out, &len);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	res = malloc(sizeof(*res));
	if (!res)
		return -ENOMEM;
	r = cni_result_parse(out, len, res, NULL);
	if (r >= 0)
		r = nic_link_restore(st->netns, st->ifname, res);
	else
		r = 0; /* an unusable result: DEL does what it can without it */
	free(res);
	return r;
}

/*
 * CNI DEL of one saved net; its state goes once DEL succeeded, so that a later gc retries a
 * failed one. With force (setup's own error path: the ADD may have failed for the same reason
 * as this DEL) the state goes anyway.
 */
static int nic_del(int pod_fd, const char *uuid, const char *ifname, const char *cni_path,
		   int timeout_ms, bool force, struct cc_error *err)
{
	struct net_state st;
	int r;

	r = net_state_load(pod_fd, ifname, &st);
	if (r == -ENOENT)
		return 0;
	if (r < 0) {
		free(st.conf);
		return cc_error_set(err, r, CCNET_STATE_DIR "/%s: unreadable state: %m", ifname);
	}
	r = veth_restore(pod_fd, &st);
	if (r < 0) {
		free(st.conf);
		return cc_error_set(err, r, "network %s: cannot restore %s for DEL: %m",
				    st.net_name, ifname);
	}
	r = cni_call_run(&(struct cni_call){.command = "DEL",
					    .plugin = st.plugin,
					    .container_id = uuid,
					    .netns = st.netns,
					    .ifname = st.ifname,
					    .args = st.args,
					    .path = cni_path,
					    .conf = st.conf,
					    .conf_len = st.conf_len,
					    .timeout_ms = timeout_ms ?: CCNET_TIMEOUT_MS},
			 NULL, NULL, err);
	free(st.conf);
	if (r < 0 && !force)
		return r;
	if (r < 0)
		(void) net_state_remove(pod_fd, ifname);
	if (r < 0)
		return r;
	r = net_state_remove(pod_fd, ifname);
	if (r < 0)
		return cc_error_set(err, r, CCNET_STATE_DIR "/%s: cannot remove: %m", ifname);
	return 0;
}

static int teardown(int pod_fd, const char *uuid, const char *const *cni_path, int timeout_ms,
		    bool force, struct cc_error *reterr)
{
	_cleanup_free_ char *path = NULL;
	_cleanup_free_ char(*ifs)[16] = NULL;
	bool del_failed = false;
	char ns[64];
	size_t n = 0;
	int ret = 0, r;

	if (!uuid || !stage1_uuid_is_valid(uuid))
		return cc_error_set(reterr, -EINVAL, "invalid pod UUID");
	path = cni_path_join(cni_path);
	if (!path)
		return -ENOMEM;
	r = net_ports_marked(pod_fd);
	if (r > 0) {
		r = portfwd_remove(uuid, r, reterr);
		if (r >= 0)
			r = net_ports_mark(pod_fd, 0);
	}
	if (r < 0)
		ret = r;
	r = net_state_list(pod_fd, &ifs, &n);
	if (r < 0 && ret == 0)
		ret = cc_error_set(reterr, r, "cannot list " CCNET_STATE_DIR ": %m");
	for (size_t i = 0; i < n; i++) {
		struct cc_error e = {};

		r = nic_del(pod_fd, uuid, ifs[i], path, timeout_ms, force, &e);
		if (r < 0)
			del_failed = true;
		if (r < 0 && ret == 0) {
			ret = r;
			if (reterr)
				*reterr = e;
		}
	}
	/*
	 * A failed DEL (not forced) keeps the netns: plugins find what to delete from the veth in
	 * it, so a retry can still succeed. gc removes it anyway with the recorded resources.
	 */
	if (del_failed && !force)
		return ret;
	netns_name(uuid, ns, sizeof(ns));
	r = netns_remove(ns);
	if (r < 0 && ret == 0)
		ret = cc_error_set(reterr, r, "cannot remove netns %s: %m", ns);
	return ret;
}

int ccnet_pod_teardown(int pod_fd, const char *uuid, const char *const *cni_path, int timeout_ms,
		       struct cc_error *reterr)
{
	return teardown(pod_fd, uuid, cni_path, timeout_ms, false, reterr);
}
