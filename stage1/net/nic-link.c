/* SPDX-License-Identifier: Apache-2.0 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_ether.h>
#include <linux/if_tun.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <linux/tc_act/tc_mirred.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "netns.h"
#include "nic-link.h"
#include "nl.h"

static int ingress_qdisc_add(int nl_fd, int idx)
{
	struct tcmsg tc = {
		.tcm_family = AF_UNSPEC,
		.tcm_ifindex = idx,
		.tcm_handle = TC_H_MAKE(TC_H_INGRESS, 0),
		.tcm_parent = TC_H_INGRESS,
	};
	struct nl_msg m;

	nl_msg_init(&m, RTM_NEWQDISC, NLM_F_CREATE | NLM_F_EXCL, &tc, sizeof(tc));
	nl_put_str(&m, TCA_KIND, "ingress");
	return nl_request(nl_fd, &m);
}

int nic_link_redirect(int nl_fd, int from_idx, int to_idx)
{
	struct tcmsg tc = {
		.tcm_family = AF_UNSPEC,
		.tcm_ifindex = from_idx,
		.tcm_parent = TC_H_MAKE(TC_H_INGRESS, 0),
		.tcm_info = TC_H_MAKE(1u << 16, htons(ETH_P_ALL)),
	};
	/* One key, mask 0 at offset 0: matches every frame. */
	uint8_t sel[sizeof(struct tc_u32_sel) + sizeof(struct tc_u32_key)] = {};
	struct tc_u32_sel hdr = {.flags = TC_U32_TERMINAL, .nkeys = 1};
	struct tc_mirred mirred = {
		.action = TC_ACT_STOLEN,
		.eaction = TCA_EGRESS_REDIR,
		.ifindex = (uint32_t) to_idx,
	};
	size_t opts, acts, act, aopts;
	struct nl_msg m;
	int r;

	memcpy(sel, &hdr, sizeof(hdr));
	r = ingress_qdisc_add(nl_fd, from_idx);
	if (r < 0)
		return r;
	nl_msg_init(&m, RTM_NEWTFILTER, NLM_F_CREATE | NLM_F_EXCL, &tc, sizeof(tc));
	nl_put_str(&m, TCA_KIND, "u32");
	opts = nl_nest_begin(&m, TCA_OPTIONS);
	nl_put(&m, TCA_U32_SEL, &sel, sizeof(sel));
	acts = nl_nest_begin(&m, TCA_U32_ACT);
	act = nl_nest_begin(&m, 1);
	nl_put_str(&m, TCA_ACT_KIND, "mirred");
	aopts = nl_nest_begin(&m, TCA_ACT_OPTIONS);
	nl_put(&m, TCA_MIRRED_PARMS, &mirred, sizeof(mirred));
	nl_nest_end(&m, aopts);
	nl_nest_end(&m, act);
	nl_nest_end(&m, acts);
	nl_nest_end(&m, opts);
	return nl_request(nl_fd, &m);
}

static int addr_del(int nl_fd, int idx, const struct cni_ip *ip)
{
	struct ifaddrmsg ifa = {
		.ifa_family = (unsigned char) ip->family,
		.ifa_prefixlen = (unsigned char) ip->prefixlen,
		.ifa_index = (unsigned) idx,
	};
	size_t alen = ip->family == AF_INET ? 4 : 16;
	struct nl_msg m;
	int r;

	nl_msg_init(&m, RTM_DELADDR, 0, &ifa, sizeof(ifa));
	nl_put(&m, IFA_LOCAL, ip->addr, alen);
	nl_put(&m, IFA_ADDRESS, ip->addr, alen);
	r = nl_request(nl_fd, &m);
	/* Not on this link (another interface of the result, or already gone). */
	return r == -EADDRNOTAVAIL || r == -ENODEV ? 0 : r;
}

static int addr_add(int nl_fd, int idx, const struct cni_ip *ip)
{
	struct ifaddrmsg ifa = {
		.ifa_family = (unsigned char) ip->family,
		.ifa_prefixlen = (unsigned char) ip->prefixlen,
		.ifa_flags = IFA_F_NODAD,
		.ifa_index = (unsigned) idx,
	};
	size_t alen = ip->family == AF_INET ? 4 : 16;
	struct nl_msg m;
	int r;

	nl_msg_init(&m, RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL, &ifa, sizeof(ifa));
	nl_put(&m, IFA_LOCAL, ip->addr, alen);
	nl_put(&m, IFA_ADDRESS, ip->addr, alen);
	r = nl_request(nl_fd, &m);
	return r == -EEXIST ? 0 : r;
}

static int ipv6_set_disabled(const char *ifname, bool disabled)
{
	char path[96];
	_cleanup_close_ int fd = -1;

	(void) snprintf(path, sizeof(path), "/proc/sys/net/ipv6/conf/%s/disable_ipv6", ifname);
	fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno; /* no IPv6 in this kernel */
	return loop_write(fd, disabled ? "1\n" : "0\n", 2);
}

static int ifr_set_name(struct ifreq *ifr, const char *name)
{
	if (!name || !*name || strlen(name) >= IFNAMSIZ)
		return -EINVAL;
	memset(ifr, 0, sizeof(*ifr));
	memcpy(ifr->ifr_name, name, strlen(name));
	return 0;
}

static int tap_create(int ctl, const char *tap, int mtu, int *ret_fd, int *ret_idx)
{
	/* On a read-only clone of /dev/net's mount: the VMM holds this fd, and its capabilities
	 * (in its user namespace, where its jail may map host root) must not chmod the host's
	 * /dev/net/tun through it. */
	_cleanup_close_ int fd = open_on_read_only_mount("/dev/net/tun", O_RDWR | O_NOCTTY);
	struct ifreq ifr;
	int r;

	if (fd < 0)
		return fd;
	r = ifr_set_name(&ifr, tap);
	if (r < 0)
		return r;
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
	if (ioctl(fd, TUNSETIFF, &ifr) < 0)
		return -errno;
	(void) ifr_set_name(&ifr, tap);
	ifr.ifr_mtu = mtu;
	if (ioctl(ctl, SIOCSIFMTU, &ifr) < 0)
		return -errno;
	if (ioctl(ctl, SIOCGIFFLAGS, &ifr) < 0)
		return -errno;
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(ctl, SIOCSIFFLAGS, &ifr) < 0)
		return -errno;
	*ret_idx = (int) if_nametoindex(tap);
	if (*ret_idx == 0)
		return -errno;
	*ret_fd = TAKE_FD(fd);
	return 0;
}

/* Everything of nic_link_join() that runs inside the netns. */
static int join_in_netns(const char *veth, const char *tap, const struct cni_result *res,
			 uint8_t ret_mac[6], int *ret_tap_fd)
{
	_cleanup_close_ int ctl = -1, nl = -1, tap_fd = -1;
	int veth_idx, tap_idx = 0, r;
	struct ifreq ifr;

	ctl = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (ctl < 0)
		return -errno;
	r = nl_open(&nl);
	if (r < 0)
		return r;
	r = ifr_set_name(&ifr, veth);
	if (r < 0)
		return r;
	if (ioctl(ctl, SIOCGIFHWADDR, &ifr) < 0)
		return -errno;
	memcpy(ret_mac, ifr.ifr_hwaddr.sa_data, 6);
	if (ioctl(ctl, SIOCGIFMTU, &ifr) < 0)
		return -errno;
	veth_idx = (int) if_nametoindex(veth);
	if (veth_idx == 0)
		return -errno;
	r = tap_create(ctl, tap, ifr.ifr_mtu, &tap_fd, &tap_idx);
	if (r < 0)
		return r;
	for (size_t i = 0; i < res->n_ips; i++) {
		r = addr_del(nl, veth_idx, &res->ips[i]);
		if (r < 0)
			return r;
	}
	r = ipv6_set_disabled(veth, true);
	if (r < 0)
		return r;
	r = nic_link_redirect(nl, veth_idx, tap_idx);
	if (r < 0)
		return r;
	r = nic_link_redirect(nl, tap_idx, veth_idx);
	if (r < 0)
		return r;
	*ret_tap_fd = TAKE_FD(tap_fd);
	return 0;
}

int nic_link_join(int netns_fd, const char *veth, const char *tap, const struct cni_result *res,
		  uint8_t ret_mac[6], int *ret_tap_fd)
{
	int saved = -1, r, r2;

	r = netns_enter(netns_fd, &saved);
	if (r < 0)
		return r;
	r = join_in_netns(veth, tap, res, ret_mac, ret_tap_fd);
	r2 = netns_leave(saved);
	if (r >= 0 && r2 < 0) {
		*ret_tap_fd = safe_close(*ret_tap_fd);
		r = r2;
	}
	return r;
}

static int restore_in_netns(const char *veth, const struct cni_result *res)
{
	_cleanup_close_ int nl = -1;
	int idx, r;

	idx = (int) if_nametoindex(veth);
	if (idx == 0)
		return errno == ENODEV || errno == ENXIO ? 0 : -errno;
	r = ipv6_set_disabled(veth, false);
	if (r < 0)
		return r;
	r = nl_open(&nl);
	if (r < 0)
		return r;
	for (size_t i = 0; i < res->n_ips; i++) {
		const struct cni_ip *ip = &res->ips[i];

		/* Only the veth's own addresses (the result may list the host side's too). */
		if (ip->interface >= 0 && ((size_t) ip->interface >= res->n_ifaces ||
					   strcmp(res->ifaces[ip->interface].name, veth) != 0))
			continue;
		r = addr_add(nl, idx, ip);
		if (r < 0)
			return r;
	}
	return 0;
}

int nic_link_restore(const char *netns_path, const char *veth, const struct cni_result *res)
{
	_cleanup_close_ int ns_fd = open(netns_path, O_RDONLY | O_CLOEXEC);
	int saved = -1, r, r2;

	if (ns_fd < 0)
		return errno == ENOENT ? 0 : -errno;
	r = netns_enter(ns_fd, &saved);
	if (r < 0)
		return r == -EINVAL ? 0 : r; /* not a netns any more (unmounted file) */
	r = restore_in_netns(veth, res);
	r2 = netns_leave(saved);
	return r < 0 ? r : r2;
}
