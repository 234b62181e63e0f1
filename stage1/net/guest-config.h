/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The guest side of a pod network, as files for the pod layer (static config, no DHCP):
 * a systemd-networkd unit per NIC, matched by the MAC the guest NIC gets (the veth's), and
 * resolv.conf from the first network whose plugin returned DNS servers (rkt's rule).
 */

#include "ccnet.h"

/* etc/systemd/network/10-<ifname>.network for nic; *ret malloc'd. */
int ccnet_nic_networkd(const struct ccnet_nic *nic, char **ret);
/* resolv.conf text from the first NIC with nameservers; -ENOENT if none has any. */
int ccnet_pod_resolv_conf(const struct ccnet_pod *pod, char **ret);
