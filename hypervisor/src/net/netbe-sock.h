/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Socket backend: one packet (vnet header + frame) per message on a SOCK_SEQPACKET or
 * SOCK_DGRAM socket, e.g. one end of a socketpair. Unit tests and fuzzers use it in place of
 * a tap; it can also join two VMMs back to back. It claims the receive offloads it is given
 * at creation and records what the device enables.
 */

#include "net/net-backend.h"

/* The backend owns fd, even on error; fd is made non-blocking. */
int netbe_sock_new(int fd, unsigned offloads, struct net_backend **ret);
/* The offloads the device last enabled. */
unsigned netbe_sock_enabled_offloads(struct net_backend *be);
