/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Tap backend: a Linux tap in IFF_TAP | IFF_NO_PI | IFF_VNET_HDR mode with a 12-byte vnet
 * header (TUNSETVNETHDRSZ), non-blocking. The receive offloads the kernel accepts
 * (TUNSETOFFLOAD with TUN_F_CSUM, TSO4, TSO6) are probed at open and switched off until the
 * guest negotiates them. Transmit offloads need nothing from the tap: it accepts partial
 * checksums and GSO packets described by the vnet header.
 */

#include "net/net-backend.h"

/* Attach to (or create) tap name through /dev/net/tun. Needs CAP_NET_ADMIN unless the tap
 * is persistent and owned by the caller. */
int netbe_tap_open(const char *name, struct net_backend **ret);
/* Use a tap fd opened by someone else (e.g. the launcher); the backend owns it, even on error.
 * The tap must have been attached with IFF_TAP | IFF_NO_PI | IFF_VNET_HDR (-EINVAL if not). */
int netbe_tap_open_fd(int fd, struct net_backend **ret);
