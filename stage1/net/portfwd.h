/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Port forwarding with iptables/ip6tables or nftables: nat DNAT in PREROUTING for other hosts
 * and OUTPUT for the host itself, a filter FORWARD accept, and for IPv4 a MASQUERADE of
 * 127.0.0.0/8 sources towards the pod so that 127.0.0.1 works. IPv6 has no such trick (the
 * kernel never routes ::1 off the host), so ::1 is not forwarded; the host's own IPv6 addresses
 * are. Every iptables rule carries the comment "cc-pod:<uuid>", which is how portfwd_remove()
 * finds them again (gc, after a crash too).
 */

#include <stddef.h>

#include "ccnet.h"

#define PORTFWD_TAG_FMT "cc-pod:%s"

enum portfwd_backend {
	PORTFWD_AUTO,	  /* iptables if installed, else nft */
	PORTFWD_IPTABLES, /* rules tagged "cc-pod:<uuid>" in the standard tables */
	PORTFWD_NFT,	  /* tables "ip cc_<uuid>" and "ip6 cc_<uuid>" of our own */
};

/* The address families that have rules, as recorded for gc (net_ports_mark). */
enum {
	PORTFWD_IP4 = 1 << 0,
	PORTFWD_IP6 = 1 << 1,
};

struct portfwd_target {
	const char *ip4;     /* the pod's IPv4 address (text), or NULL */
	const char *ip6;     /* the pod's IPv6 address (text), or NULL */
	const char *host_if; /* the host side of the pod's link (gets route_localnet=1), or NULL */
};

/*
 * The families that ports need on target t: a port with a host IP goes to the pod address of
 * its family, a port without one to every address the pod has. -EADDRNOTAVAIL (with reterr) if
 * a port's family has no pod address.
 */
int portfwd_families(const struct ccnet_port *ports, size_t n, const struct portfwd_target *t,
		     struct cc_error *reterr);
/* Forward ports to target t. */
int portfwd_add(enum portfwd_backend b, const char *uuid, const struct ccnet_port *ports, size_t n,
		const struct portfwd_target *t, struct cc_error *reterr);
/* Delete every rule of uuid of the PORTFWD_IP* families (both backends, where installed). */
int portfwd_remove(const char *uuid, int families, struct cc_error *reterr);
/* The nft binary, or NULL. */
const char *portfwd_nft(void);
/*
 * portfwd-nft.c: the nft backend (no route_localnet, no validation: portfwd_add does it and
 * passes the families portfwd_families() found).
 */
int portfwd_nft_add(const char *uuid, const struct ccnet_port *ports, size_t n,
		    const struct portfwd_target *t, int families, struct cc_error *reterr);
int portfwd_nft_remove(const char *uuid, int families, struct cc_error *reterr);
/* The iptables (family AF_INET) or ip6tables (AF_INET6) binary, or NULL if not installed. */
const char *portfwd_iptables(int family);
/* Validate a port list (protocols, ports, no duplicate host port per protocol). */
int portfwd_validate(const struct ccnet_port *ports, size_t n, struct cc_error *reterr);
/* The family of a port's host IP (AF_INET or AF_INET6), or AF_UNSPEC when it has none. */
int portfwd_port_family(const struct ccnet_port *p);
/* Whether port p has rules towards the pod's address of family (its host IP allows it). */
bool portfwd_port_wants(const struct ccnet_port *p, int family);
/*
 * The destination address a port's rules match: its host IP, or NULL for every local address
 * (no host IP, or the unspecified 0.0.0.0 or ::, which still select their family).
 */
const char *portfwd_port_dst(const struct ccnet_port *p);
/* The first executable of paths[n], or NULL. */
const char *portfwd_tool(const char *const *paths, size_t n);
