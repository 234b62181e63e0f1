/* SPDX-License-Identifier: Apache-2.0 */
#include <arpa/inet.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "cni-result.h"
#include "json-util.h"

int cni_cidr_parse(const char *s, bool prefix_required, int *ret_family, uint8_t ret_addr[16],
		   unsigned *ret_prefixlen)
{
	char buf[64];
	const char *slash;
	unsigned long pl;
	size_t alen;
	char *end;
	int family;

	if (!s)
		return -EINVAL;
	slash = strchr(s, '/');
	if (!slash && prefix_required)
		return -EINVAL;
	alen = slash ? (size_t) (slash - s) : strlen(s);
	if (alen == 0 || alen >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, alen);
	buf[alen] = '\0';
	memset(ret_addr, 0, 16);
	family = strchr(buf, ':') ? AF_INET6 : AF_INET;
	if (inet_pton(family, buf, ret_addr) != 1)
		return -EINVAL;
	if (!slash) {
		pl = family == AF_INET ? 32 : 128;
	} else {
		if (slash[1] < '0' || slash[1] > '9')
			return -EINVAL;
		errno = 0;
		pl = strtoul(slash + 1, &end, 10);
		if (errno || *end || pl > (family == AF_INET ? 32u : 128u))
			return -EINVAL;
	}
	*ret_family = family;
	*ret_prefixlen = (unsigned) pl;
	return 0;
}

static int addr_parse(const char *s, int family, uint8_t ret[16])
{
	memset(ret, 0, 16);
	if (!s || inet_pton(family, s, ret) != 1)
		return -EINVAL;
	return 0;
}

static int addr_parse_any(const char *s, int *ret_family, uint8_t ret[16])
{
	int family = s && strchr(s, ':') ? AF_INET6 : AF_INET;
	int r = addr_parse(s, family, ret);

	if (r < 0)
		return r;
	*ret_family = family;
	return 0;
}

static int route_parse(json_object *o, struct cni_result *res, struct cc_error *err)
{
	struct cni_route *rt;
	const char *dst, *gw;
	int gw_family;

	if (res->n_routes >= CNI_ROUTES_MAX)
		return cc_error_set(err, -E2BIG, "CNI result: more than %d routes", CNI_ROUTES_MAX);
	if (!json_object_is_type(o, json_type_object))
		return cc_error_set(err, -EBADMSG, "CNI result: a route is not an object");
	rt = &res->routes[res->n_routes];
	dst = ccnet_json_get_string(o, "dst");
	if (cni_cidr_parse(dst, true, &rt->family, rt->dst, &rt->dst_len) < 0)
		return cc_error_set(err, -EBADMSG, "CNI result: bad route dst \"%s\"",
				    dst ? dst : "");
	gw = ccnet_json_get_string(o, "gw");
	if (gw) {
		if (addr_parse_any(gw, &gw_family, rt->gw) < 0 || gw_family != rt->family)
			return cc_error_set(err, -EBADMSG, "CNI result: bad route gw \"%s\"", gw);
		rt->has_gw = true;
	}
	res->n_routes++;
	return 0;
}

static int routes_parse(json_object *arr, struct cni_result *res, struct cc_error *err)
{
	size_t n;
	int r;

	if (!arr)
		return 0;
	if (!json_object_is_type(arr, json_type_array))
		return cc_error_set(err, -EBADMSG, "CNI result: \"routes\" is not an array");
	n = json_object_array_length(arr);
	for (size_t i = 0; i < n; i++) {
		r = route_parse(json_object_array_get_idx(arr, i), res, err);
		if (r < 0)
			return r;
	}
	return 0;
}

static int ip_add(struct cni_result *res, const char *cidr, const char *gw, int iface,
		  struct cc_error *err)
{
	struct cni_ip *ip;
	int gw_family;

	if (res->n_ips >= CNI_IPS_MAX)
		return cc_error_set(err, -E2BIG, "CNI result: more than %d addresses", CNI_IPS_MAX);
	ip = &res->ips[res->n_ips];
	if (cni_cidr_parse(cidr, true, &ip->family, ip->addr, &ip->prefixlen) < 0)
		return cc_error_set(err, -EBADMSG, "CNI result: bad address \"%s\"",
				    cidr ? cidr : "");
	if (gw) {
		if (addr_parse_any(gw, &gw_family, ip->gateway) < 0 || gw_family != ip->family)
			return cc_error_set(err, -EBADMSG, "CNI result: bad gateway \"%s\"", gw);
		ip->has_gateway = true;
	}
	ip->interface = iface;
	res->n_ips++;
	return 0;
}

/* 0.1.0 / 0.2.0: "ip4": {"ip", "gateway", "routes"}, same for "ip6". */
static int legacy_ip_parse(json_object *o, const char *key, struct cni_result *res,
			   struct cc_error *err)
{
	json_object *ipc;
	int r;

	if (!json_object_object_get_ex(o, key, &ipc) || json_object_is_type(ipc, json_type_null))
		return 0;
	if (!json_object_is_type(ipc, json_type_object))
		return cc_error_set(err, -EBADMSG, "CNI result: \"%s\" is not an object", key);
	r = ip_add(res, ccnet_json_get_string(ipc, "ip"), ccnet_json_get_string(ipc, "gateway"), -1,
		   err);
	if (r < 0)
		return r;
	return routes_parse(ccnet_json_get(ipc, "routes"), res, err);
}

static int mac_parse(const char *s, uint8_t mac[6])
{
	unsigned v[6];
	char tail;

	if (!s || strlen(s) != 17 ||
	    sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
		   &tail) != 6)
		return -EINVAL;
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t) v[i];
	return 0;
}

static int ifaces_parse(json_object *arr, struct cni_result *res, struct cc_error *err)
{
	size_t n;

	if (!arr)
		return 0;
	if (!json_object_is_type(arr, json_type_array))
		return cc_error_set(err, -EBADMSG, "CNI result: \"interfaces\" is not an array");
	n = json_object_array_length(arr);
	if (n > CNI_IFACES_MAX)
		return cc_error_set(err, -E2BIG, "CNI result: more than %d interfaces",
				    CNI_IFACES_MAX);
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(arr, i);
		struct cni_iface *f = &res->ifaces[i];
		const char *name, *mac, *sandbox;

		if (!json_object_is_type(o, json_type_object))
			return cc_error_set(err, -EBADMSG,
					    "CNI result: an interface is not an object");
		name = ccnet_json_get_string(o, "name");
		if (!name || !*name || strlen(name) >= sizeof(f->name))
			return cc_error_set(err, -EBADMSG, "CNI result: bad interface name");
		strcpy(f->name, name);
		mac = ccnet_json_get_string(o, "mac");
		if (mac && *mac) {
			if (mac_parse(mac, f->mac) < 0)
				return cc_error_set(err, -EBADMSG, "CNI result: bad MAC \"%s\"",
						    mac);
			f->has_mac = true;
		}
		sandbox = ccnet_json_get_string(o, "sandbox");
		f->in_sandbox = sandbox && *sandbox;
	}
	res->n_ifaces = n;
	return 0;
}

static int ips_parse(json_object *arr, struct cni_result *res, struct cc_error *err)
{
	size_t n;
	int r;

	if (!arr)
		return 0;
	if (!json_object_is_type(arr, json_type_array))
		return cc_error_set(err, -EBADMSG, "CNI result: \"ips\" is not an array");
	n = json_object_array_length(arr);
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(arr, i), *idx;
		int iface = -1;

		if (!json_object_is_type(o, json_type_object))
			return cc_error_set(err, -EBADMSG, "CNI result: an ip is not an object");
		if (json_object_object_get_ex(o, "interface", &idx)) {
			int64_t v = json_object_get_int64(idx);

			if (!json_object_is_type(idx, json_type_int) || v < 0 ||
			    (size_t) v >= res->n_ifaces)
				return cc_error_set(err, -EBADMSG,
						    "CNI result: bad interface index");
			iface = (int) v;
		}
		r = ip_add(res, ccnet_json_get_string(o, "address"),
			   ccnet_json_get_string(o, "gateway"), iface, err);
		if (r < 0)
			return r;
	}
	return 0;
}

static int strings_parse(json_object *arr, const char *what, char *dst, size_t each, size_t max,
			 size_t *ret_n, struct cc_error *err)
{
	size_t n;

	*ret_n = 0;
	if (!arr)
		return 0;
	if (!json_object_is_type(arr, json_type_array))
		return cc_error_set(err, -EBADMSG, "CNI result: dns %s is not an array", what);
	n = json_object_array_length(arr);
	if (n > max)
		return cc_error_set(err, -E2BIG, "CNI result: more than %zu dns %s", max, what);
	for (size_t i = 0; i < n; i++) {
		json_object *s = json_object_array_get_idx(arr, i);
		const char *v = json_object_get_string(s);

		if (!json_object_is_type(s, json_type_string) || !*v || strlen(v) >= each ||
		    strpbrk(v, " \t\r\n"))
			return cc_error_set(err, -EBADMSG, "CNI result: bad dns %s entry", what);
		strcpy(dst + i * each, v);
	}
	*ret_n = n;
	return 0;
}

static int dns_parse(json_object *o, struct cni_dns *dns, struct cc_error *err)
{
	uint8_t tmp[16];
	const char *domain;
	int family, r;

	if (!o)
		return 0;
	if (!json_object_is_type(o, json_type_object))
		return cc_error_set(err, -EBADMSG, "CNI result: \"dns\" is not an object");
	r = strings_parse(ccnet_json_get(o, "nameservers"), "nameservers", &dns->nameservers[0][0],
			  sizeof(dns->nameservers[0]), CNI_DNS_MAX, &dns->n_nameservers, err);
	if (r < 0)
		return r;
	for (size_t i = 0; i < dns->n_nameservers; i++)
		if (addr_parse_any(dns->nameservers[i], &family, tmp) < 0)
			return cc_error_set(err, -EBADMSG, "CNI result: bad nameserver \"%s\"",
					    dns->nameservers[i]);
	r = strings_parse(ccnet_json_get(o, "search"), "search", &dns->search[0][0],
			  sizeof(dns->search[0]), CNI_DNS_MAX, &dns->n_search, err);
	if (r < 0)
		return r;
	r = strings_parse(ccnet_json_get(o, "options"), "options", &dns->options[0][0],
			  sizeof(dns->options[0]), CNI_DNS_MAX, &dns->n_options, err);
	if (r < 0)
		return r;
	domain = ccnet_json_get_string(o, "domain");
	if (domain) {
		if (strlen(domain) >= sizeof(dns->domain) || strpbrk(domain, " \t\r\n"))
			return cc_error_set(err, -EBADMSG, "CNI result: bad dns domain");
		strcpy(dns->domain, domain);
	}
	return 0;
}

int cni_result_parse(const char *json, size_t len, struct cni_result *ret, struct cc_error *reterr)
{
	json_object *root = NULL;
	int r;

	memset(ret, 0, sizeof(*ret));
	r = ccnet_json_parse_object(json, len, &root);
	if (r < 0)
		return cc_error_set(reterr, -EBADMSG, "CNI result: not a JSON object");
	if (ccnet_json_get(root, "ip4") || ccnet_json_get(root, "ip6")) {
		r = legacy_ip_parse(root, "ip4", ret, reterr);
		if (r >= 0)
			r = legacy_ip_parse(root, "ip6", ret, reterr);
	} else {
		r = ifaces_parse(ccnet_json_get(root, "interfaces"), ret, reterr);
		if (r >= 0)
			r = ips_parse(ccnet_json_get(root, "ips"), ret, reterr);
		if (r >= 0)
			r = routes_parse(ccnet_json_get(root, "routes"), ret, reterr);
	}
	if (r >= 0)
		r = dns_parse(ccnet_json_get(root, "dns"), &ret->dns, reterr);
	json_object_put(root);
	return r < 0 ? r : 0;
}

int cni_error_describe(const char *out, size_t len, char *buf, size_t size)
{
	json_object *root = NULL, *code;
	const char *msg, *details;
	int r;

	r = ccnet_json_parse_object(out, len, &root);
	msg = r >= 0 ? ccnet_json_get_string(root, "msg") : NULL;
	if (!msg) {
		size_t n = MIN(len, (size_t) 200);

		while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == ' '))
			n--;
		if (n == 0)
			(void) snprintf(buf, size, "no error message");
		else
			(void) snprintf(buf, size, "unexpected output \"%.*s\"", (int) n, out);
		json_object_put(root);
		return -EBADMSG;
	}
	details = ccnet_json_get_string(root, "details");
	code = ccnet_json_get(root, "code");
	(void) snprintf(buf, size, "%s%s%s (code %d)", msg, details && *details ? "; " : "",
			details ? details : "", code ? json_object_get_int(code) : 0);
	json_object_put(root);
	return 0;
}

const struct cni_ip *cni_result_first_ip(const struct cni_result *r, int family)
{
	for (size_t i = 0; i < r->n_ips; i++)
		if (r->ips[i].family == family)
			return &r->ips[i];
	return NULL;
}
