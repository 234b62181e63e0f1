/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Inside the pod netns: hand a CNI veth over to the guest. Creates tap <tap> (IFF_TAP |
 * IFF_NO_PI | IFF_VNET_HDR, the veth's MTU, up), redirects every frame between veth and tap
 * both ways (ingress qdisc + u32 match-all filter + mirred egress redirect, over rtnetlink),
 * and takes the addresses of res off the veth (IPv6 disabled on it), so the guest alone owns
 * them. The tap is not persistent: it goes away with the last fd (cc-vmm's) or the netns.
 */

#include <stdint.h>

#include "cni-result.h"

int nic_link_join(int netns_fd, const char *veth, const char *tap, const struct cni_result *res,
		  uint8_t ret_mac[6], int *ret_tap_fd);

/* Install "ingress qdisc + u32 mirred redirect from_idx → to_idx" on netlink socket nl_fd. */
int nic_link_redirect(int nl_fd, int from_idx, int to_idx);

/*
 * Before CNI DEL: give the veth its addresses back (IPv6 re-enabled), since plugins find what
 * to clean up (masquerade rules) from them. 0 if the netns or the veth is gone already.
 */
int nic_link_restore(const char *netns_path, const char *veth, const struct cni_result *res);
