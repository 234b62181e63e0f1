/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * CNI plugin output: the ADD result (spec 0.1.0/0.2.0 "ip4"/"ip6" form and 0.3.0 .. 1.0.0
 * "interfaces"/"ips" form) and the error object. Fixed-size, so a result needs no freeing;
 * anything beyond the limits is refused (-E2BIG), never truncated silently.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cc/error.h"
#include "cc/warnings.h"

#define CNI_IPS_MAX    16
#define CNI_ROUTES_MAX 64
#define CNI_IFACES_MAX 16
#define CNI_DNS_MAX    8
#define CNI_NAME_MAX   256
#define CNI_OUTPUT_MAX (1024u * 1024u)

struct cni_ip {
	int family; /* AF_INET or AF_INET6 */
	uint8_t addr[16];
	unsigned prefixlen;
	bool has_gateway;
	uint8_t gateway[16];
	int interface; /* index into interfaces, -1 if not given */
};

struct cni_route {
	int family;
	uint8_t dst[16];
	unsigned dst_len;
	bool has_gw;
	uint8_t gw[16];
};

struct cni_iface {
	char name[16];
	bool has_mac;
	uint8_t mac[6];
	bool in_sandbox; /* "sandbox" set: the interface is in the pod netns */
};

struct cni_dns {
	char nameservers[CNI_DNS_MAX][46];
	size_t n_nameservers;
	char domain[CNI_NAME_MAX];
	char search[CNI_DNS_MAX][CNI_NAME_MAX];
	size_t n_search;
	char options[CNI_DNS_MAX][64];
	size_t n_options;
};

struct cni_result {
	struct cni_ip ips[CNI_IPS_MAX];
	size_t n_ips;
	struct cni_route routes[CNI_ROUTES_MAX];
	size_t n_routes;
	struct cni_iface ifaces[CNI_IFACES_MAX];
	size_t n_ifaces;
	struct cni_dns dns;
};

/* Parse an ADD result. -EBADMSG with a message for anything malformed. */
int cni_result_parse(const char *json, size_t len, struct cni_result *ret, struct cc_error *reterr);

/*
 * Turn a failed plugin's stdout into one line: "<msg>; <details> (code N)" for a CNI error
 * object, else a short quote of the output. Returns 0, or -EBADMSG if out is no error object
 * (the message then quotes it).
 */
int cni_error_describe(const char *out, size_t len, char *buf, size_t size);

/* "a.b.c.d/nn" or "x::y/nn"; prefix_required=false accepts a bare address (full length). */
int cni_cidr_parse(const char *s, bool prefix_required, int *ret_family, uint8_t ret_addr[16],
		   unsigned *ret_prefixlen);

/* The first address of family (AF_INET or AF_INET6) in the result, or NULL. */
const struct cni_ip *cni_result_first_ip(const struct cni_result *r, int family);
