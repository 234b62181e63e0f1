/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * A stand-in guest for the networking tests: a netns "guest" with a tap (gtap) configured as
 * the guest would be (the NIC's MAC, the CNI address, a default route via the gateway), and a
 * thread that copies frames between the pod's tap fd and gtap (the poor man's virtio-net).
 * The kernel's own stack in the guest netns then answers TCP, ARP and ICMP like a real guest.
 * Uses iproute2 (`ip`) to configure it: tests only.
 */

#include "ccnet.h"

struct guest_sim;

int guest_sim_start(const struct ccnet_nic *nic, const char *name, struct guest_sim **ret);
void guest_sim_stop(struct guest_sim *g);
/* An fd of the guest's netns (for sockets "in the guest"). */
int guest_sim_netns_fd(const struct guest_sim *g);

/* Run `ip <args>` (format), asserting success. */
void sim_ip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A TCP socket listening on port in netns ns_fd (-1: the current one). */
int sim_listen(int ns_fd, uint16_t port);
/* Accept one connection on lfd within 5 s, echo one message back; *ret_peer its address. */
int sim_echo_serve_one(int lfd, char *ret_peer, size_t size);
/*
 * A client in netns client_ns (-1: current) connects to ip:port and sends a message that the
 * server side (lfd, served here) echoes; 0 if it came back. *ret_peer: the client address the
 * server saw.
 */
int sim_echo(int client_ns, const char *ip, uint16_t port, int lfd, char *ret_peer, size_t size);
