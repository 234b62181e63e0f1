/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The whole pod network, without a VM, in a private "host" netns (net-env.h): real ptp and
 * bridge plugins add veths to the pod netns, ccnet joins each to a tap with tc mirred, and the
 * test plays the guest on the tap fd: an ARP request and an ICMP echo to the gateway must be
 * answered by the host side (tap → veth → host → veth → tap). Then teardown must leave no
 * netns, veth, tap or iptables rule (listed before and after), twice in a row. Failures
 * (plugin error, missing plugin) must leave nothing either.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "ccnet.h"
#include "cctest.h"
#include "guest-sim.h"
#include "net-state.h"
#include "net-env.h"
#include "pod-resources.h"
#include "portfwd.h"

#define UUID	 "0f5e3a1c-2b4d-4e6f-8a9b-0c1d2e3f4a5b"
#define VNET_HDR 10 /* sizeof(struct virtio_net_hdr): the tap's default */

static const char *const cni_path[] = {NET_ENV_CNI_DIR, NULL};

static int record(void *userdata, const char *kind, const char *name)
{
	return pod_resources_append(*(int *) userdata, pod_resource_kind_from_string(kind), name);
}

struct pod_env {
	char *dir, *conf_dir;
	int pod_fd;
	char *links, *nat, *filter, *nat6, *filter6, *nft;
};

static void write_conf(const char *dir, const char *name, const char *content)
{
	char p[PATH_MAX];

	(void) snprintf(p, sizeof(p), "%s/%s", dir, name);
	ck_assert_int_eq(write_string_file_atomic(p, content, 0644), 0);
}

static void pod_env_init(struct pod_env *e)
{
	char p[PATH_MAX];

	net_env_enter();
	e->dir = cctest_mkdtemp();
	e->conf_dir = cctest_mkdtemp();
	(void) snprintf(p, sizeof(p), "%s/cc", e->dir);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	e->pod_fd = open(e->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(e->pod_fd, 0);
	write_conf(e->conf_dir, "10-brnet.conf",
		   "{\"cniVersion\":\"0.4.0\",\"name\":\"brnet\",\"type\":\"bridge\","
		   "\"bridge\":\"cc-br-test\",\"isGateway\":true,\"ipMasq\":false,"
		   "\"ipam\":{\"type\":\"host-local\",\"subnet\":\"10.99.1.0/24\","
		   "\"routes\":[{\"dst\":\"10.98.0.0/16\"}]}}");
	write_conf(e->conf_dir, "20-broken.conf",
		   "{\"cniVersion\":\"1.0.0\",\"name\":\"broken\",\"type\":\"bridge\","
		   "\"bridge\":\"cc-br-bad\",\"ipam\":{\"type\":\"host-local\","
		   "\"subnet\":\"bogus\"}}");
	write_conf(e->conf_dir, "40-dual.conf",
		   "{\"cniVersion\":\"0.4.0\",\"name\":\"dual\",\"type\":\"ptp\","
		   "\"ipMasq\":true,\"ipam\":{\"type\":\"host-local\",\"ranges\":["
		   "[{\"subnet\":\"10.99.2.0/24\"}],[{\"subnet\":\"fd00:cc:2::/64\"}]],"
		   "\"routes\":[{\"dst\":\"0.0.0.0/0\"},{\"dst\":\"::/0\"}]}}");
	write_conf(e->conf_dir, "30-noplugin.conf",
		   "{\"cniVersion\":\"1.0.0\",\"name\":\"noplugin\",\"type\":\"no-such-plugin\"}");
	e->links = net_env_links();
	e->nat = net_env_iptables("nat");
	e->filter = net_env_iptables("filter");
	e->nat6 = net_env_ip6tables("nat");
	e->filter6 = net_env_ip6tables("filter");
	e->nft = net_env_nft();
}

/* Nothing of the pod is left: same links (but the persistent bridges), rules, no netns. */
static void assert_clean(struct pod_env *e)
{
	_cleanup_free_ char *links = net_env_links(), *nat = net_env_iptables("nat"),
			    *filter = net_env_iptables("filter"), *nft = net_env_nft(),
			    *nat6 = net_env_ip6tables("nat"),
			    *filter6 = net_env_ip6tables("filter");
	char *p;

	while ((p = strstr(links, "cc-br-test\n")) || (p = strstr(links, "cc-br-bad\n")))
		memmove(p, strchr(p, '\n') + 1, strlen(strchr(p, '\n') + 1) + 1);
	ck_assert_str_eq(links, e->links);
	ck_assert_str_eq(nat, e->nat);
	ck_assert_str_eq(filter, e->filter);
	ck_assert_str_eq(nat6, e->nat6);
	ck_assert_str_eq(filter6, e->filter6);
	/* iptables-nft leaves its (empty) base chains: only our own nft tables must be gone. */
	ck_assert_ptr_null(strstr(nft, "table ip cc_"));
	ck_assert_ptr_null(strstr(nft, "table ip6 cc_"));
	(void) e->nft;
	ck_assert_int_eq(access(CCNET_NETNS_DIR "/cc-" UUID, F_OK), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_int_eq(faccessat(e->pod_fd, CCNET_STATE_DIR "/eth0.json", F_OK, 0), -1);
	ck_assert_int_eq(faccessat(e->pod_fd, CCNET_STATE_DIR "/eth1.json", F_OK, 0), -1);
}

static void pod_env_done(struct pod_env *e)
{
	safe_close(e->pod_fd);
	(void) cctest_rm_rf(e->dir);
	(void) cctest_rm_rf(e->conf_dir);
	free(e->dir);
	free(e->conf_dir);
	free(e->links);
	free(e->nat);
	free(e->filter);
	free(e->nat6);
	free(e->filter6);
	free(e->nft);
}

static void frame_write(int fd, const uint8_t *frame, size_t len)
{
	uint8_t buf[1600] = {};

	memcpy(buf + VNET_HDR, frame, len);
	ck_assert_int_eq(write(fd, buf, VNET_HDR + len), (ssize_t) (VNET_HDR + len));
}

static void arp_build(uint8_t *f, uint16_t op, const uint8_t *dmac, const uint8_t *smac,
		      const uint8_t *sip, const uint8_t *tmac, const uint8_t *tip)
{
	memcpy(f, dmac, 6);
	memcpy(f + 6, smac, 6);
	f[12] = 0x08, f[13] = 0x06;
	f[14] = 0, f[15] = 1, f[16] = 0x08, f[17] = 0, f[18] = 6, f[19] = 4;
	f[20] = 0, f[21] = (uint8_t) op;
	memcpy(f + 22, smac, 6);
	memcpy(f + 28, sip, 4);
	memcpy(f + 32, tmac, 6);
	memcpy(f + 38, tip, 4);
}

static uint16_t csum(const uint8_t *p, size_t len)
{
	uint32_t s = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		s += (uint32_t) (p[i] << 8 | p[i + 1]);
	if (len & 1)
		s += (uint32_t) (p[len - 1] << 8);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t) ~s;
}

static size_t icmp_build(uint8_t *f, const uint8_t *dmac, const uint8_t *smac, const uint8_t *sip,
			 const uint8_t *dip)
{
	uint8_t *ip = f + 14, *icmp = f + 34;
	uint16_t c;

	memcpy(f, dmac, 6);
	memcpy(f + 6, smac, 6);
	f[12] = 0x08, f[13] = 0x00;
	memset(ip, 0, 20);
	ip[0] = 0x45, ip[3] = 20 + 8 + 16, ip[8] = 64, ip[9] = 1;
	memcpy(ip + 12, sip, 4);
	memcpy(ip + 16, dip, 4);
	c = csum(ip, 20);
	ip[10] = (uint8_t) (c >> 8), ip[11] = (uint8_t) c;
	memset(icmp, 0, 8 + 16);
	icmp[0] = 8, icmp[4] = 0x12, icmp[5] = 0x34, icmp[7] = 1;
	memcpy(icmp + 8, "cc-net-test-ping", 16);
	c = csum(icmp, 24);
	icmp[2] = (uint8_t) (c >> 8), icmp[3] = (uint8_t) c;
	return 14 + 20 + 24;
}

enum want {
	WANT_ARP_REPLY,
	WANT_ECHO_REPLY
};

/* Read frames from the tap until the wanted answer (answering ARP for the guest meanwhile). */
static int wait_answer(int fd, enum want w, const uint8_t *mac, const uint8_t *ip,
		       const uint8_t *gw, uint8_t *ret_gw_mac)
{
	static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

	for (int tries = 0; tries < 200; tries++) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		uint8_t buf[2048], *f = buf + VNET_HDR;
		ssize_t n;

		if (poll(&p, 1, 3000) <= 0)
			return -ETIMEDOUT;
		n = read(fd, buf, sizeof(buf));
		if (n < VNET_HDR + 42)
			continue;
		if (f[12] == 0x08 && f[13] == 0x06 && f[21] == 2 && memcmp(f + 28, gw, 4) == 0 &&
		    memcmp(f + 32, mac, 6) == 0 && memcmp(f + 38, ip, 4) == 0) {
			memcpy(ret_gw_mac, f + 22, 6);
			if (w == WANT_ARP_REPLY)
				return 0;
		}
		if (f[12] == 0x08 && f[13] == 0x06 && f[21] == 1 && memcmp(f + 38, ip, 4) == 0) {
			uint8_t reply[42];

			(void) bcast;
			arp_build(reply, 2, f + 22, mac, ip, f + 22, f + 28);
			frame_write(fd, reply, sizeof(reply));
		}
		if (w == WANT_ECHO_REPLY && f[12] == 0x08 && f[13] == 0x00 && f[23] == 1 &&
		    memcmp(f + 26, gw, 4) == 0 && memcmp(f + 30, ip, 4) == 0 && f[34] == 0 &&
		    f[38] == 0x12 && f[39] == 0x34)
			return 0;
	}
	return -ENOMSG;
}

/* Play the guest on nic's tap: ARP for the gateway, then ping it. */
static void guest_ping_gateway(const struct ccnet_nic *nic)
{
	static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	const struct cni_ip *ip4 = cni_result_first_ip(&nic->result, AF_INET);
	uint8_t frame[128], gw_mac[6], zero[6] = {};
	size_t len;

	ck_assert_ptr_nonnull(ip4);
	ck_assert(ip4->has_gateway);
	arp_build(frame, 1, bcast, nic->mac, ip4->addr, zero, ip4->gateway);
	frame_write(nic->tap_fd, frame, 42);
	ck_assert_int_eq(
		wait_answer(nic->tap_fd, WANT_ARP_REPLY, nic->mac, ip4->addr, ip4->gateway, gw_mac),
		0);
	len = icmp_build(frame, gw_mac, nic->mac, ip4->addr, ip4->gateway);
	frame_write(nic->tap_fd, frame, len);
	ck_assert_int_eq(wait_answer(nic->tap_fd, WANT_ECHO_REPLY, nic->mac, ip4->addr,
				     ip4->gateway, gw_mac),
			 0);
}

static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static void assert_net_info(int pod_fd)
{
	_cleanup_free_ char *buf = NULL;
	_cleanup_close_ int fd = openat(pod_fd, CCNET_NET_INFO, O_RDONLY | O_CLOEXEC);
	json_object *arr, *e0, *e1, *v;
	size_t len;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(read_full_fd(fd, 1 << 20, &buf, &len), 0);
	arr = json_tokener_parse(buf);
	ck_assert_ptr_nonnull(arr);
	ck_assert_uint_eq(json_object_array_length(arr), 2);
	e0 = json_object_array_get_idx(arr, 0);
	e1 = json_object_array_get_idx(arr, 1);
	ck_assert(json_object_object_get_ex(e0, "netName", &v));
	ck_assert_str_eq(json_object_get_string(v), "brnet");
	ck_assert(json_object_object_get_ex(e0, "ifName", &v));
	ck_assert_str_eq(json_object_get_string(v), "eth0");
	ck_assert(json_object_object_get_ex(e0, "ip", &v));
	ck_assert_str_eq(json_object_get_string(v), "10.99.1.2");
	ck_assert(json_object_object_get_ex(e0, "mask", &v));
	ck_assert_str_eq(json_object_get_string(v), "255.255.255.0");
	ck_assert(json_object_object_get_ex(e0, "pluginPath", &v));
	ck_assert_str_eq(json_object_get_string(v), NET_ENV_CNI_DIR "/bridge");
	ck_assert(json_object_object_get_ex(e0, "netConf", &v));
	ck_assert_ptr_nonnull(strstr(json_object_get_string(v), "/cc/net/eth0.conf"));
	ck_assert(json_object_object_get_ex(e1, "netName", &v));
	ck_assert_str_eq(json_object_get_string(v), "default");
	ck_assert(json_object_object_get_ex(e1, "ip", &v));
	ck_assert_ptr_nonnull(strstr(json_object_get_string(v), "172.16.28."));
	ck_assert(json_object_object_get_ex(e1, "args", &v));
	ck_assert_str_eq(json_object_get_string(v), "IgnoreUnknown=1");
	json_object_put(arr);
}

START_TEST(test_roundtrip)
{
	struct ccnet_port ports[] = {{.proto = "tcp", .pod_port = 80, .host_port = 18080}};
	_cleanup_free_ char *links = NULL, *nat = NULL, *filter = NULL, *res = NULL;
	struct ccnet_selection sel = {};
	struct cc_error err = {};
	struct ccnet_pod pod;
	struct pod_env e;
	size_t len;

	pod_env_init(&e);
	ASSERT_OK(ccnet_select("brnet,default:IgnoreUnknown=1",
			       (const char *const[]){e.conf_dir, NULL}, &sel, &err));
	ck_assert_uint_eq(sel.n, 2);
	{
		struct ccnet_setup_params p = {
			.pod_fd = e.pod_fd,
			.uuid = UUID,
			.cni_path = cni_path,
			.sel = &sel,
			.ports = ports,
			.n_ports = 1,
			.record = record,
			.record_userdata = &e.pod_fd,
		};
		int r = ccnet_pod_setup(&p, &pod, &err);

		ck_assert_msg(r == 0, "setup: %s", err.msg);
	}
	fprintf(stderr, "pod network set up in %u ms\n", pod.setup_ms);
	ck_assert_uint_eq(pod.n_nics, 2);
	ck_assert_str_eq(pod.netns, "cc-" UUID);
	ck_assert_str_eq(pod.nics[0].ifname, "eth0");
	ck_assert_str_eq(pod.nics[1].ifname, "eth1");

	/* Recorded for gc before it was created. */
	{
		int fd = openat(e.pod_fd, "cc/resources", O_RDONLY | O_CLOEXEC);

		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(read_full_fd(fd, 4096, &res, &len), 0);
		close(fd);
		ck_assert_str_eq(res, "netns cc-" UUID "\n");
	}
	links = net_env_links_in(CCNET_NETNS_DIR "/cc-" UUID);
	ck_assert_str_eq(links, "eth0\neth1\nlo\ntap0\ntap1\n");
	nat = net_env_iptables("nat");
	filter = net_env_iptables("filter");
	/* 2 DNAT (PREROUTING, OUTPUT), 1 MASQUERADE, 1 FORWARD accept, all tagged. */
	ck_assert_int_eq(count(nat, "cc-pod:" UUID), 3);
	ck_assert_int_eq(count(nat, "-j DNAT --to-destination 172.16.28."), 2);
	ck_assert_int_eq(count(nat, "-j MASQUERADE"), count(e.nat, "-j MASQUERADE") + 2);
	ck_assert_int_eq(count(filter, "cc-pod:" UUID), 1);
	ck_assert_ptr_nonnull(strstr(filter, "-A FORWARD -d 172.16.28."));
	assert_net_info(e.pod_fd);

	for (size_t i = 0; i < pod.n_nics; i++) {
		ck_assert_int_ge(pod.nics[i].tap_fd, 0);
		ck_assert(pod.nics[i].mac[0] || pod.nics[i].mac[1] || pod.nics[i].mac[5]);
		guest_ping_gateway(&pod.nics[i]);
	}
	/* The bridge net's extra route and the default net's default route reach the guest. */
	ck_assert_uint_ge(pod.nics[0].result.n_routes, 1);
	ck_assert_uint_eq(pod.nics[0].result.routes[0].dst_len, 16);
	{
		char arg[64];

		ASSERT_OK(ccnet_nic_vmm_arg(&pod.nics[0], 5, arg, sizeof(arg)));
		ck_assert_int_eq(strncmp(arg, "fd=5,mac=", 9), 0);
		ck_assert_uint_eq(strlen(arg), 9 + 17);
	}

	ccnet_pod_done(&pod);
	ck_assert_msg(ccnet_pod_teardown(e.pod_fd, UUID, cni_path, 0, &err) == 0, "teardown: %s",
		      err.msg);
	assert_clean(&e);
	/* gc again (idempotent), and gc of a pod that never had networks. */
	ASSERT_OK(ccnet_pod_teardown(e.pod_fd, UUID, cni_path, 0, &err));
	assert_clean(&e);
	ccnet_selection_done(&sel);
	pod_env_done(&e);
}
END_TEST

static void setup_fails(const char *net, const char *want)
{
	struct ccnet_selection sel = {};
	struct cc_error err = {};
	struct ccnet_pod pod;
	struct pod_env e;
	int r;

	pod_env_init(&e);
	ASSERT_OK(ccnet_select(net, (const char *const[]){e.conf_dir, NULL}, &sel, &err));
	{
		struct ccnet_setup_params p = {
			.pod_fd = e.pod_fd,
			.uuid = UUID,
			.cni_path = cni_path,
			.sel = &sel,
			.record = record,
			.record_userdata = &e.pod_fd,
		};

		r = ccnet_pod_setup(&p, &pod, &err);
	}
	fprintf(stderr, "--net=%s: %s\n", net, err.msg);
	ck_assert_int_lt(r, 0);
	ck_assert_msg(strstr(err.msg, want), "got: %s", err.msg);
	ck_assert_uint_eq(pod.n_nics, 0);
	assert_clean(&e);
	ck_assert_int_eq(faccessat(e.pod_fd, CCNET_NET_INFO, F_OK, 0), -1);
	ccnet_selection_done(&sel);
	pod_env_done(&e);
}

START_TEST(test_plugin_error)
{
	/* The first net (default) is set up for real, then undone when the second fails. */
	setup_fails("default,broken", "CNI plugin bridge ADD failed");
}
END_TEST

START_TEST(test_missing_plugin)
{
	setup_fails("default,noplugin", "CNI plugin \"no-such-plugin\" not found");
}
END_TEST

START_TEST(test_bad_ports)
{
	struct ccnet_port ports[] = {{.proto = "tcp", .pod_port = 80, .host_port = 80},
				     {.proto = "tcp", .pod_port = 81, .host_port = 80}};
	struct ccnet_selection sel = {};
	struct cc_error err = {};
	struct ccnet_pod pod;
	struct pod_env e;

	pod_env_init(&e);
	ASSERT_OK(ccnet_select("default", NULL, &sel, &err));
	{
		struct ccnet_setup_params p = {
			.pod_fd = e.pod_fd,
			.uuid = UUID,
			.cni_path = cni_path,
			.sel = &sel,
			.ports = ports,
			.n_ports = 2,
			.record = record,
			.record_userdata = &e.pod_fd,
		};

		ASSERT_ERRNO(ccnet_pod_setup(&p, &pod, &err), EINVAL);
		ck_assert_ptr_nonnull(strstr(err.msg, "forwarded twice"));
		/* Refused before anything was created or even recorded. */
		ck_assert_int_eq(faccessat(e.pod_fd, "cc/resources", F_OK, 0), -1);
		p.uuid = "not-a-uuid";
		p.n_ports = 0;
		ASSERT_ERRNO(ccnet_pod_setup(&p, &pod, &err), EINVAL);
	}
	{
		/* An IPv6 host IP for a pod with IPv4 only: refused once the address is known,
		 * and the network made so far is undone. */
		struct ccnet_port v6[] = {
			{.proto = "tcp", .pod_port = 80, .host_port = 80, .host_ip = "fd00::1"}};
		struct ccnet_setup_params p = {
			.pod_fd = e.pod_fd,
			.uuid = UUID,
			.cni_path = cni_path,
			.sel = &sel,
			.ports = v6,
			.n_ports = 1,
			.record = record,
			.record_userdata = &e.pod_fd,
		};

		ASSERT_ERRNO(ccnet_pod_setup(&p, &pod, &err), EADDRNOTAVAIL);
		ck_assert_msg(strstr(err.msg, "port 80: host IP fd00::1 is IPv6 but the pod has no "
					      "IPv6 address"),
			      "%s", err.msg);
		ck_assert_uint_eq(pod.n_nics, 0);
		(void) snprintf(v6[0].host_ip, sizeof(v6[0].host_ip), "fd00::zz");
		ASSERT_ERRNO(ccnet_pod_setup(&p, &pod, &err), EINVAL);
		ck_assert_msg(strstr(err.msg, "bad host IP \"fd00::zz\""), "%s", err.msg);
	}
	assert_clean(&e);
	ccnet_selection_done(&sel);
	pod_env_done(&e);
}
END_TEST

/* run dies by SIGKILL right after the setup: gc (teardown + the recorded resources) cleans. */
START_TEST(test_crash_then_gc)
{
	struct ccnet_port ports[] = {
		{.proto = "udp", .pod_port = 53, .host_port = 10053, .host_ip = "127.0.0.1"}};
	_cleanup_free_ struct pod_resource *res = NULL;
	struct ccnet_selection sel = {};
	struct cc_error err = {};
	struct pod_env e;
	size_t n = 0;
	pid_t pid;
	int st;

	pod_env_init(&e);
	ASSERT_OK(
		ccnet_select("default,brnet", (const char *const[]){e.conf_dir, NULL}, &sel, &err));
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct ccnet_setup_params p = {
			.pod_fd = e.pod_fd,
			.uuid = UUID,
			.cni_path = cni_path,
			.sel = &sel,
			.ports = ports,
			.n_ports = 1,
			.record = record,
			.record_userdata = &e.pod_fd,
		};
		struct ccnet_pod pod;

		if (ccnet_pod_setup(&p, &pod, &err) < 0)
			_exit(1);
		(void) raise(SIGKILL);
		_exit(2);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	ck_assert_int_eq(access(CCNET_NETNS_DIR "/cc-" UUID, F_OK), 0);
	{
		_cleanup_free_ char *nat = net_env_iptables("nat");

		ck_assert_ptr_nonnull(strstr(nat, "cc-pod:" UUID));
		ck_assert_ptr_nonnull(strstr(nat, "-d 127.0.0.1/32 -p udp"));
	}
	/* What gc does: the networking teardown, then every recorded resource. */
	ck_assert_msg(ccnet_pod_teardown(e.pod_fd, UUID, cni_path, 0, &err) == 0, "gc: %s",
		      err.msg);
	ASSERT_OK(pod_resources_load(e.pod_fd, &res, &n, NULL));
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(res[0].kind, POD_RESOURCE_NETNS);
	ASSERT_OK(pod_resource_remove(&res[0]));
	assert_clean(&e);
	ccnet_selection_done(&sel);
	pod_env_done(&e);
}
END_TEST

/* Set up the pod's networks (sel) with ports through the firewall backend; must succeed. */
static void pod_setup_ok(struct pod_env *e, struct ccnet_selection *sel,
			 const struct ccnet_port *ports, size_t n_ports, int firewall,
			 struct ccnet_pod *pod)
{
	struct cc_error err = {};
	struct ccnet_setup_params p = {
		.pod_fd = e->pod_fd,
		.uuid = UUID,
		.cni_path = cni_path,
		.sel = sel,
		.ports = ports,
		.n_ports = n_ports,
		.record = record,
		.record_userdata = &e->pod_fd,
		.firewall = firewall,
	};

	ck_assert_msg(ccnet_pod_setup(&p, pod, &err) == 0, "setup: %s", err.msg);
}

/*
 * A netns "cc-test-remote" standing in for another host, joined to this one by a veth
 * (cc-rmt0 here, eth0 there) with host_cidr here and remote_cidr there; ip_flags are appended
 * to both `ip addr add` (" nodad" for IPv6). Returns an fd of the netns.
 */
static int remote_up(const char *host_cidr, const char *remote_cidr, const char *ip_flags)
{
	int fd;

	sim_ip("netns add cc-test-remote");
	sim_ip("link add cc-rmt0 type veth peer name eth0 netns cc-test-remote");
	sim_ip("addr add %s dev cc-rmt0%s", host_cidr, ip_flags);
	sim_ip("link set cc-rmt0 up");
	sim_ip("-n cc-test-remote link set lo up");
	sim_ip("-n cc-test-remote addr add %s dev eth0%s", remote_cidr, ip_flags);
	sim_ip("-n cc-test-remote link set eth0 up");
	fd = open(CCNET_NETNS_DIR "/cc-test-remote", O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	return fd;
}

/* The end of a traffic test: guest and remote gone, teardown, then nothing of the pod left. */
static void traffic_done(struct pod_env *e, struct guest_sim *g, struct ccnet_pod *pod,
			 struct ccnet_selection *sel)
{
	struct cc_error err = {};

	guest_sim_stop(g);
	sim_ip("link del cc-rmt0");
	sim_ip("netns del cc-test-remote");
	ccnet_pod_done(pod);
	ck_assert_msg(ccnet_pod_teardown(e->pod_fd, UUID, cni_path, 0, &err) == 0, "teardown: %s",
		      err.msg);
	assert_clean(e);
	ccnet_selection_done(sel);
	pod_env_done(e);
}

/*
 * The data path with a kernel as the guest (guest-sim.h): a forwarded port reached from the
 * host itself (127.0.0.1 and a local address) and from a "remote" host (another netns routed
 * through this one), and the guest reaching the remote through the default network's
 * masquerade.
 */
START_TEST(test_guest_traffic)
{
	const int firewall = _i; /* 1: iptables, 2: nft */
	struct ccnet_port ports[] = {{.proto = "tcp", .pod_port = 80, .host_port = 18080}};
	struct ccnet_selection sel = {};
	struct cc_error err = {};
	struct guest_sim *g = NULL;
	_cleanup_close_ int remote = -1, glisten = -1, rlisten = -1;
	char peer[INET_ADDRSTRLEN], gw[INET_ADDRSTRLEN], pod_ip[INET_ADDRSTRLEN];
	struct ccnet_pod pod;
	struct pod_env e;

	if (system("ip -V >/dev/null 2>&1") != 0)
		cctest_skip("no iproute2: guest traffic not exercised");
	pod_env_init(&e);
	ASSERT_OK(ccnet_select("default", NULL, &sel, &err));
	pod_setup_ok(&e, &sel, ports, 1, firewall, &pod);
	(void) inet_ntop(AF_INET, cni_result_first_ip(&pod.nics[0].result, AF_INET)->gateway, gw,
			 sizeof(gw));
	(void) inet_ntop(AF_INET, cni_result_first_ip(&pod.nics[0].result, AF_INET)->addr, pod_ip,
			 sizeof(pod_ip));
	{
		_cleanup_free_ char *nft = net_env_nft(), *nat = net_env_iptables("nat");
		char table[64] = "table ip cc_" UUID;

		for (char *c = table + 12; *c; c++)
			*c = *c == '-' ? '_' : *c;
		/* The rules are where the backend puts them, and only there. */
		ck_assert_msg(!!strstr(nft, table) == (firewall == 2), "%s", nft);
		ck_assert_int_eq(!!strstr(nat, "cc-pod:" UUID), firewall == 1);
	}
	ASSERT_OK(guest_sim_start(&pod.nics[0], "cc-test-guest", &g));
	remote = remote_up("10.200.0.1/24", "10.200.0.2/24", "");

	glisten = sim_listen(guest_sim_netns_fd(g), 80);
	/* The guest answers on its own address directly (no forwarding involved). */
	ck_assert_int_eq(sim_echo(-1, pod_ip, 80, glisten, peer, sizeof(peer)), 0);
	/* hostPort from the host itself: OUTPUT DNAT; 127.0.0.1 also needs route_localnet and
	 * the masquerade, so the guest sees the host side's address, not 127.0.0.1. */
	ck_assert_int_eq(sim_echo(-1, "127.0.0.1", 18080, glisten, peer, sizeof(peer)), 0);
	ck_assert_str_eq(peer, gw);
	ck_assert_int_eq(sim_echo(-1, gw, 18080, glisten, peer, sizeof(peer)), 0);
	/* hostPort from another host: PREROUTING DNAT, FORWARD; the client address is kept. */
	ck_assert_int_eq(sim_echo(remote, "10.200.0.1", 18080, glisten, peer, sizeof(peer)), 0);
	ck_assert_str_eq(peer, "10.200.0.2");
	/* The guest reaches the "outside" masqueraded behind the host's address. */
	rlisten = sim_listen(remote, 9000);
	ck_assert_int_eq(
		sim_echo(guest_sim_netns_fd(g), "10.200.0.2", 9000, rlisten, peer, sizeof(peer)),
		0);
	ck_assert_str_eq(peer, "10.200.0.1");

	traffic_done(&e, g, &pod, &sel);
	/* The port is gone with the rules. */
	ck_assert_int_ne(sim_echo(-1, "127.0.0.1", 18080, glisten, peer, sizeof(peer)), 0);
}
END_TEST

/*
 * A dual-stack network (ptp, IPv4 and IPv6 ranges): the guest has both addresses, and forwarded
 * ports reach it over IPv6 from the host itself (a local address: OUTPUT) and from a remote
 * host (PREROUTING, FORWARD), with the client's address kept. A port bound to an IPv6 host IP
 * gets IPv6 rules only. gc removes the rules of both families.
 */
START_TEST(test_guest_traffic6)
{
	const int firewall = _i; /* 1: iptables, 2: nft */
	struct ccnet_port ports[] = {
		{.proto = "tcp", .pod_port = 80, .host_port = 18080},
		{.proto = "tcp", .pod_port = 80, .host_port = 18081, .host_ip = "fd00:200::1"}};
	struct ccnet_selection sel = {};
	struct cc_error err = {};
	struct guest_sim *g = NULL;
	_cleanup_close_ int remote = -1, glisten = -1, rlisten = -1;
	char peer[INET6_ADDRSTRLEN], gw6[INET6_ADDRSTRLEN], pod6[INET6_ADDRSTRLEN];
	char pod4[INET_ADDRSTRLEN];
	const struct cni_ip *ip6;
	struct ccnet_pod pod;
	struct pod_env e;

	if (system("ip -V >/dev/null 2>&1") != 0 || !portfwd_iptables(AF_INET6))
		cctest_skip("no iproute2 or ip6tables: IPv6 traffic not exercised");
	pod_env_init(&e);
	ASSERT_OK(ccnet_select("dual", (const char *const[]){e.conf_dir, NULL}, &sel, &err));
	pod_setup_ok(&e, &sel, ports, 2, firewall, &pod);
	ip6 = cni_result_first_ip(&pod.nics[0].result, AF_INET6);
	ck_assert_ptr_nonnull(ip6);
	(void) inet_ntop(AF_INET6, ip6->addr, pod6, sizeof(pod6));
	(void) inet_ntop(AF_INET6, ip6->gateway, gw6, sizeof(gw6));
	(void) inet_ntop(AF_INET, cni_result_first_ip(&pod.nics[0].result, AF_INET)->addr, pod4,
			 sizeof(pod4));
	ck_assert_int_eq(strncmp(pod6, "fd00:cc:2::", 11), 0);
	{
		_cleanup_free_ char *nft = net_env_nft(), *nat = net_env_iptables("nat"),
				    *nat6 = net_env_ip6tables("nat"),
				    *filter6 = net_env_ip6tables("filter"), *want = NULL;

		if (firewall == 1) {
			/* 18080 in both families, 18081 in IPv6 only; no ::1 masquerade. */
			ck_assert_int_eq(count(nat, "cc-pod:" UUID), 3);
			ck_assert_ptr_null(strstr(nat, "18081"));
			ck_assert_int_eq(count(nat6, "cc-pod:" UUID), 4);
			ck_assert_int_gt(asprintf(&want, "-j DNAT --to-destination [%s]:80", pod6),
					 0);
			ck_assert_int_eq(count(nat6, want), 4);
			ck_assert_int_eq(count(filter6, "cc-pod:" UUID), 2);
		} else {
			ck_assert_ptr_nonnull(strstr(nft, "table ip6 cc_"));
			ck_assert_int_gt(asprintf(&want, "dnat to [%s]:80", pod6), 0);
			ck_assert_int_eq(count(nft, want), 4);
			ck_assert_ptr_null(strstr(nat6, "cc-pod:" UUID));
		}
	}
	ASSERT_OK(guest_sim_start(&pod.nics[0], "cc-test-guest", &g));
	remote = remote_up("fd00:200::1/64", "fd00:200::2/64", " nodad");
	sim_ip("-n cc-test-remote route add default via fd00:200::1");

	glisten = sim_listen(guest_sim_netns_fd(g), 80);
	/* The guest has both addresses. */
	ck_assert_int_eq(sim_echo(-1, pod6, 80, glisten, peer, sizeof(peer)), 0);
	ck_assert_int_eq(sim_echo(-1, pod4, 80, glisten, peer, sizeof(peer)), 0);
	/* hostPort from the host itself, on a local IPv6 address: OUTPUT DNAT. */
	ck_assert_int_eq(sim_echo(-1, "fd00:200::1", 18080, glisten, peer, sizeof(peer)), 0);
	ck_assert_int_eq(sim_echo(-1, gw6, 18080, glisten, peer, sizeof(peer)), 0);
	/* From another host: PREROUTING DNAT and FORWARD, the client address kept. */
	ck_assert_int_eq(sim_echo(remote, "fd00:200::1", 18080, glisten, peer, sizeof(peer)), 0);
	ck_assert_str_eq(peer, "fd00:200::2");
	ck_assert_int_eq(sim_echo(remote, "fd00:200::1", 18081, glisten, peer, sizeof(peer)), 0);
	ck_assert_str_eq(peer, "fd00:200::2");
	/* 18081 is bound to that address only. */
	ck_assert_int_ne(sim_echo(-1, gw6, 18081, glisten, peer, sizeof(peer)), 0);
	/* The guest reaches the remote over IPv6. */
	rlisten = sim_listen(remote, 9000);
	ck_assert_int_eq(
		sim_echo(guest_sim_netns_fd(g), "fd00:200::2", 9000, rlisten, peer, sizeof(peer)),
		0);

	traffic_done(&e, g, &pod, &sel);
}
END_TEST

/* default-restricted: the host side is reachable (e.g. the metadata service), nothing else. */
START_TEST(test_restricted_traffic)
{
	struct ccnet_selection sel = {};
	struct cc_error err = {};
	struct guest_sim *g = NULL;
	_cleanup_close_ int remote = -1, hlisten = -1, rlisten = -1;
	char peer[INET_ADDRSTRLEN], gw[INET_ADDRSTRLEN];
	struct ccnet_pod pod;
	struct pod_env e;

	if (system("ip -V >/dev/null 2>&1") != 0)
		cctest_skip("no iproute2: guest traffic not exercised");
	pod_env_init(&e);
	ASSERT_OK(ccnet_select("default-restricted", NULL, &sel, &err));
	{
		struct ccnet_setup_params p = {
			.pod_fd = e.pod_fd,
			.uuid = UUID,
			.cni_path = cni_path,
			.sel = &sel,
			.record = record,
			.record_userdata = &e.pod_fd,
		};

		ck_assert_msg(ccnet_pod_setup(&p, &pod, &err) == 0, "setup: %s", err.msg);
	}
	ck_assert_uint_eq(pod.nics[0].result.n_routes, 0);
	(void) inet_ntop(AF_INET, cni_result_first_ip(&pod.nics[0].result, AF_INET)->gateway, gw,
			 sizeof(gw));
	ck_assert_int_eq(strncmp(gw, "172.17.", 7), 0);
	ASSERT_OK(guest_sim_start(&pod.nics[0], "cc-test-guest", &g));
	remote = remote_up("10.200.0.1/24", "10.200.0.2/24", "");

	hlisten = sim_listen(-1, 18112);
	ck_assert_int_eq(sim_echo(guest_sim_netns_fd(g), gw, 18112, hlisten, peer, sizeof(peer)),
			 0);
	rlisten = sim_listen(remote, 9000);
	ck_assert_int_ne(
		sim_echo(guest_sim_netns_fd(g), "10.200.0.2", 9000, rlisten, peer, sizeof(peer)),
		0);

	traffic_done(&e, g, &pod, &sel);
}
END_TEST

/* A DEL that fails keeps its state, reports the plugin's error, and the next gc retries it. */
START_TEST(test_del_failure_retried)
{
	struct ccnet_selection sel = {};
	struct cc_error err = {};
	_cleanup_free_ char *json = NULL, *bad = NULL;
	struct ccnet_pod pod;
	struct pod_env e;
	char fake[PATH_MAX];
	size_t len;
	FILE *f;

	pod_env_init(&e);
	ASSERT_OK(ccnet_select("default", NULL, &sel, &err));
	{
		struct ccnet_setup_params p = {
			.pod_fd = e.pod_fd,
			.uuid = UUID,
			.cni_path = cni_path,
			.sel = &sel,
			.record = record,
			.record_userdata = &e.pod_fd,
		};

		ck_assert_msg(ccnet_pod_setup(&p, &pod, &err) == 0, "setup: %s", err.msg);
	}
	ccnet_pod_done(&pod);
	(void) snprintf(fake, sizeof(fake), "%s/failing-ptp", e.conf_dir);
	f = fopen(fake, "we");
	ck_assert_ptr_nonnull(f);
	fputs("#!/bin/sh\necho '{\"code\":5,\"msg\":\"cannot delete\"}'; exit 1\n", f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(chmod(fake, 0755), 0);
	{
		int fd = openat(e.pod_fd, CCNET_STATE_DIR "/eth0.json", O_RDONLY | O_CLOEXEC);
		char *p;

		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(read_full_fd(fd, 1 << 16, &json, &len), 0);
		close(fd);
		p = strstr(json, NET_ENV_CNI_DIR "/ptp");
		ck_assert_ptr_nonnull(p);
		ck_assert_int_ge(asprintf(&bad, "%.*s%s%s", (int) (p - json), json, fake,
					  strstr(p, "ptp") + 3),
				 0);
		ASSERT_OK(net_file_write(e.pod_fd, CCNET_STATE_DIR "/eth0.json", bad, strlen(bad)));
	}
	ASSERT_ERRNO(ccnet_pod_teardown(e.pod_fd, UUID, cni_path, 0, &err), EPROTO);
	ck_assert_ptr_nonnull(strstr(err.msg, "cannot delete (code 5)"));
	/* The failed net's state and the netns (with its veth) stay for the next gc. */
	ck_assert_int_eq(access(CCNET_NETNS_DIR "/cc-" UUID, F_OK), 0);
	ck_assert_int_eq(faccessat(e.pod_fd, CCNET_STATE_DIR "/eth0.json", F_OK, 0), 0);
	ASSERT_OK(net_file_write(e.pod_fd, CCNET_STATE_DIR "/eth0.json", json, len));
	ck_assert_msg(ccnet_pod_teardown(e.pod_fd, UUID, cni_path, 0, &err) == 0, "gc: %s",
		      err.msg);
	assert_clean(&e);
	ccnet_selection_done(&sel);
	pod_env_done(&e);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("net-pod");
	TCase *tc = tcase_create("pod");

	net_env_require();
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_roundtrip);
	tcase_add_test(tc, test_plugin_error);
	tcase_add_test(tc, test_missing_plugin);
	tcase_add_test(tc, test_bad_ports);
	tcase_add_test(tc, test_crash_then_gc);
	tcase_add_loop_test(tc, test_guest_traffic, 1, 3);
	tcase_add_loop_test(tc, test_guest_traffic6, 1, 3);
	tcase_add_test(tc, test_restricted_traffic);
	tcase_add_test(tc, test_del_failure_retried);
	suite_add_tcase(s, tc);
	return cctest_run_suite(s);
}
