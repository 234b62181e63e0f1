/* SPDX-License-Identifier: Apache-2.0 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "guest-config.h"

static const char *ntop(int family, const uint8_t *a, char *buf)
{
	return inet_ntop(family, a, buf, INET6_ADDRSTRLEN) ? buf : "?";
}

/* The gateway of the result's first address of family, or NULL. */
static const uint8_t *family_gateway(const struct cni_result *r, int family)
{
	for (size_t i = 0; i < r->n_ips; i++)
		if (r->ips[i].family == family && r->ips[i].has_gateway)
			return r->ips[i].gateway;
	return NULL;
}

static void route_write(FILE *f, const struct cni_route *rt, const struct cni_result *r)
{
	const uint8_t *gw = rt->has_gw ? rt->gw : family_gateway(r, rt->family);
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];

	fprintf(f, "\n[Route]\nDestination=%s/%u\n", ntop(rt->family, rt->dst, a), rt->dst_len);
	if (gw)
		fprintf(f, "Gateway=%s\nGatewayOnLink=yes\n", ntop(rt->family, gw, b));
	else
		fprintf(f, "Scope=link\n");
}

int ccnet_nic_networkd(const struct ccnet_nic *nic, char **ret)
{
	const struct cni_result *r = &nic->result;
	const uint8_t *m = nic->mac;
	char *buf = NULL, a[INET6_ADDRSTRLEN];
	size_t len = 0;
	FILE *f;

	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	fprintf(f, "# Network %s (%s), from its CNI result; written by the stage1.\n",
		nic->net_name, nic->ifname);
	fprintf(f, "[Match]\nMACAddress=%02x:%02x:%02x:%02x:%02x:%02x\n", m[0], m[1], m[2], m[3],
		m[4], m[5]);
	fprintf(f, "\n[Network]\nDHCP=no\nIPv6AcceptRA=no\nLinkLocalAddressing=ipv6\n");
	for (size_t i = 0; i < r->n_ips; i++) {
		const struct cni_ip *ip = &r->ips[i];

		/* Addresses of the host-side interfaces (bridge results list them) stay there. */
		if (ip->interface >= 0 && (size_t) ip->interface < r->n_ifaces &&
		    !r->ifaces[ip->interface].in_sandbox)
			continue;
		fprintf(f, "Address=%s/%u\n", ntop(ip->family, ip->addr, a), ip->prefixlen);
	}
	for (size_t i = 0; i < r->n_routes; i++)
		route_write(f, &r->routes[i], r);
	if (fclose(f) != 0) {
		free(buf);
		return -ENOMEM;
	}
	*ret = buf;
	return 0;
}

int ccnet_pod_resolv_conf(const struct ccnet_pod *pod, char **ret)
{
	for (size_t i = 0; i < pod->n_nics; i++) {
		const struct cni_dns *d = &pod->nics[i].result.dns;
		char *buf = NULL;
		size_t len = 0;
		FILE *f;

		if (d->n_nameservers == 0)
			continue;
		f = open_memstream(&buf, &len);
		if (!f)
			return -ENOMEM;
		fprintf(f, "# Generated from network %s\n", pod->nics[i].net_name);
		for (size_t j = 0; j < d->n_nameservers; j++)
			fprintf(f, "nameserver %s\n", d->nameservers[j]);
		if (d->domain[0])
			fprintf(f, "domain %s\n", d->domain);
		if (d->n_search) {
			fprintf(f, "search");
			for (size_t j = 0; j < d->n_search; j++)
				fprintf(f, " %s", d->search[j]);
			fprintf(f, "\n");
		}
		if (d->n_options) {
			fprintf(f, "options");
			for (size_t j = 0; j < d->n_options; j++)
				fprintf(f, " %s", d->options[j]);
			fprintf(f, "\n");
		}
		if (fclose(f) != 0) {
			free(buf);
			return -ENOMEM;
		}
		*ret = buf;
		return 0;
	}
	return -ENOENT;
}
