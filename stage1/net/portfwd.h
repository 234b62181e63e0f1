/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Port forwarding with iptables or nftables (nat DNAT in PREROUTING for other hosts and OUTPUT for
 * the host itself, MASQUERADE of 127.0.0.0/8 sources towards the pod so that localhost works, a
 * filter FORWARD accept). Every rule carries the comment "cc-pod:<uuid>", which is how
 * portfwd_remove() finds them again (gc, after a crash too).
 */

#include <stddef.h>

#include "ccnet.h"

#define PORTFWD_TAG_FMT "cc-pod:%s"

enum portfwd_backend {
	PORTFWD_AUTO,	  /* iptables if installed, else nft */
	PORTFWD_IPTABLES, /* rules tagged "cc-pod:<uuid>" in the standard tables */
	PORTFWD_NFT,	  /* a table "ip cc_<uuid>" of our own */
};

/*
 * Forward ports to pod_ip (IPv4 text). host_if: the host side of the pod's link, which gets
 * route_localnet=1 (so DNAT of 127.0.0.1 can leave through it), or NULL.
 */
int portfwd_add(enum portfwd_backend b, const char *uuid, const struct ccnet_port *ports, size_t n,
		const char *pod_ip, const char *host_if, struct stage1_error *reterr);
/* Delete every rule of uuid (both backends, where installed). Idempotent. */
int portfwd_remove(const char *uuid, struct stage1_error *reterr);
/* The nft binary, or NULL. */
const char *portfwd_nft(void);
/* portfwd-nft.c: the nft backend (no route_localnet, no validation: portfwd_add does it). */
int portfwd_nft_add(const char *uuid, const struct ccnet_port *ports, size_t n, const char *pod_ip,
		    struct stage1_error *reterr);
int portfwd_nft_remove(const char *uuid, struct stage1_error *reterr);
/* The iptables binary, or NULL if none is installed. */
const char *portfwd_iptables(void);
/* Validate a port list (protocols, ports, no duplicate host port per protocol). */
int portfwd_validate(const struct ccnet_port *ports, size_t n, struct stage1_error *reterr);
