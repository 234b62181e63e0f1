/* SPDX-License-Identifier: Apache-2.0 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "portfwd.h"
#include "cc/spawn.h"

#define IPT_TIMEOUT_MS 30000
#define IPT_ARGS_MAX   40
#define IPT_OUT_MAX    (16u * 1024u * 1024u)

const char *portfwd_tool(const char *const *paths, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (access(paths[i], X_OK) == 0)
			return paths[i];
	return NULL;
}

const char *portfwd_iptables(int family)
{
	static const char *const ip4[] = {"/usr/sbin/iptables", "/sbin/iptables",
					  "/usr/bin/iptables", "/bin/iptables"};
	static const char *const ip6[] = {"/usr/sbin/ip6tables", "/sbin/ip6tables",
					  "/usr/bin/ip6tables", "/bin/ip6tables"};

	return family == AF_INET6 ? portfwd_tool(ip6, ARRAY_SIZE(ip6))
				  : portfwd_tool(ip4, ARRAY_SIZE(ip4));
}

static const char *ipt_name(int family)
{
	return family == AF_INET6 ? "ip6tables" : "iptables";
}

/* Run iptables or ip6tables argv[] (argv[0] filled in here); *ret_out optional. */
static int ipt_run(int family, char **argv, char **ret_out, struct cc_error *err)
{
	const char *ipt = portfwd_iptables(family);
	struct spawn_req req = {.argv = argv, .out_max = IPT_OUT_MAX, .timeout_ms = IPT_TIMEOUT_MS};
	int status = 0, r;

	if (!ipt)
		return cc_error_set(err, -ENOENT, "port forwarding needs %s, not found",
				    ipt_name(family));
	req.path = ipt;
	argv[0] = (char *) ipt;
	r = spawn_run(&req, &status, ret_out, NULL);
	if (r < 0)
		return cc_error_set(err, r, "%s: %m", ipt_name(family));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		if (ret_out) {
			free(*ret_out);
			*ret_out = NULL;
		}
		return cc_error_set(err, -EPROTO, "%s %s %s %s failed (status %d)",
				    ipt_name(family), argv[3], argv[4], argv[5] ? argv[5] : "",
				    status);
	}
	return 0;
}

int portfwd_port_family(const struct ccnet_port *p)
{
	if (!p->host_ip[0])
		return AF_UNSPEC;
	return strchr(p->host_ip, ':') ? AF_INET6 : AF_INET;
}

const char *portfwd_port_dst(const struct ccnet_port *p)
{
	static const uint8_t zero[16];
	int family = portfwd_port_family(p);
	uint8_t a[16];

	if (family == AF_UNSPEC)
		return NULL;
	if (inet_pton(family, p->host_ip, a) == 1 &&
	    memcmp(a, zero, family == AF_INET6 ? 16 : 4) == 0)
		return NULL;
	return p->host_ip;
}

bool portfwd_port_wants(const struct ccnet_port *p, int family)
{
	int f = portfwd_port_family(p);

	return f == AF_UNSPEC || f == family;
}

int portfwd_families(const struct ccnet_port *ports, size_t n, const struct portfwd_target *t,
		     struct cc_error *reterr)
{
	int families = 0;

	for (size_t i = 0; i < n; i++) {
		const struct ccnet_port *p = &ports[i];
		int f = portfwd_port_family(p);

		if (f == AF_INET && !t->ip4)
			return cc_error_set(reterr, -EADDRNOTAVAIL,
					    "port %u: host IP %s is IPv4 but the pod has no "
					    "IPv4 address",
					    p->host_port, p->host_ip);
		if (f == AF_INET6 && !t->ip6)
			return cc_error_set(reterr, -EADDRNOTAVAIL,
					    "port %u: host IP %s is IPv6 but the pod has no "
					    "IPv6 address",
					    p->host_port, p->host_ip);
		if (t->ip4 && portfwd_port_wants(p, AF_INET))
			families |= PORTFWD_IP4;
		if (t->ip6 && portfwd_port_wants(p, AF_INET6))
			families |= PORTFWD_IP6;
	}
	if (n > 0 && families == 0)
		return cc_error_set(reterr, -EADDRNOTAVAIL,
				    "ports cannot be forwarded: the pod has no address");
	return families;
}

int portfwd_validate(const struct ccnet_port *ports, size_t n, struct cc_error *reterr)
{
	if (n > CCNET_PORTS_MAX)
		return cc_error_set(reterr, -E2BIG, "more than %d forwarded ports",
				    CCNET_PORTS_MAX);
	for (size_t i = 0; i < n; i++) {
		const struct ccnet_port *p = &ports[i];
		struct in6_addr a;

		if (strcmp(p->proto, "tcp") != 0 && strcmp(p->proto, "udp") != 0)
			return cc_error_set(reterr, -EINVAL,
					    "port %u: protocol \"%.4s\" is not "
					    "tcp or udp",
					    p->host_port, p->proto);
		if (p->pod_port == 0 || p->host_port == 0)
			return cc_error_set(reterr, -EINVAL, "port 0 cannot be forwarded");
		if (p->host_ip[0] && inet_pton(portfwd_port_family(p), p->host_ip, &a) != 1)
			return cc_error_set(reterr, -EINVAL, "port %u: bad host IP \"%.46s\"",
					    p->host_port, p->host_ip);
		for (size_t j = 0; j < i; j++)
			if (ports[j].host_port == p->host_port &&
			    strcmp(ports[j].proto, p->proto) == 0)
				return cc_error_set(reterr, -EINVAL,
						    "host port %s/%u is forwarded twice", p->proto,
						    p->host_port);
	}
	return 0;
}

static int route_localnet(const char *ifname)
{
	_cleanup_close_ int fd = -1;
	char path[96];

	(void) snprintf(path, sizeof(path), "/proc/sys/net/ipv4/conf/%s/route_localnet", ifname);
	fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	return loop_write(fd, "1\n", 2);
}

/*
 * The rules of one port towards pod_ip of family: DNAT in PREROUTING and OUTPUT, for IPv4 the
 * MASQUERADE of 127.0.0.0/8, and the FORWARD accept.
 */
static int port_rules(int family, const char *tag, const struct ccnet_port *p, const char *pod_ip,
		      struct cc_error *err)
{
	const char *dst = portfwd_port_dst(p);
	char hp[8], pp[8], dest[64];
	const char *dst_if = dst ? "-d" : "-m";
	const char *dst_val = dst ? dst : "addrtype";
	const char *dst_x = dst ? NULL : "--dst-type";
	const char *dst_y = dst ? NULL : "LOCAL";
	int r;

	(void) snprintf(hp, sizeof(hp), "%u", p->host_port);
	(void) snprintf(pp, sizeof(pp), "%u", p->pod_port);
	(void) snprintf(dest, sizeof(dest), family == AF_INET6 ? "[%s]:%u" : "%s:%u", pod_ip,
			p->pod_port);
	for (int chain = 0; chain < 2; chain++) {
		char *argv[IPT_ARGS_MAX] = {NULL,
					    "-w",
					    "-t",
					    "nat",
					    "-A",
					    chain ? "OUTPUT" : "PREROUTING",
					    "-p",
					    (char *) p->proto,
					    "--dport",
					    hp,
					    (char *) dst_if,
					    (char *) dst_val};
		size_t k = 12;

		if (dst_x) {
			argv[k++] = (char *) dst_x;
			argv[k++] = (char *) dst_y;
		}
		argv[k++] = "-m";
		argv[k++] = "comment";
		argv[k++] = "--comment";
		argv[k++] = (char *) tag;
		argv[k++] = "-j";
		argv[k++] = "DNAT";
		argv[k++] = "--to-destination";
		argv[k++] = dest;
		r = ipt_run(family, argv, NULL, err);
		if (r < 0)
			return r;
	}
	if (family == AF_INET) {
		char *argv[] = {NULL,	     "-w",
				"-t",	     "nat",
				"-A",	     "POSTROUTING",
				"-s",	     "127.0.0.0/8",
				"-d",	     (char *) pod_ip,
				"-p",	     (char *) p->proto,
				"--dport",   pp,
				"-m",	     "comment",
				"--comment", (char *) tag,
				"-j",	     "MASQUERADE",
				NULL};

		r = ipt_run(family, argv, NULL, err);
		if (r < 0)
			return r;
	}
	{
		char *argv[] = {NULL,	     "-w",
				"-t",	     "filter",
				"-I",	     "FORWARD",
				"-d",	     (char *) pod_ip,
				"-p",	     (char *) p->proto,
				"--dport",   pp,
				"-m",	     "comment",
				"--comment", (char *) tag,
				"-j",	     "ACCEPT",
				NULL};

		return ipt_run(family, argv, NULL, err);
	}
}

int portfwd_add(enum portfwd_backend b, const char *uuid, const struct ccnet_port *ports, size_t n,
		const struct portfwd_target *t, struct cc_error *reterr)
{
	char tag[64];
	int families, r;

	if (n == 0)
		return 0;
	r = portfwd_validate(ports, n, reterr);
	if (r < 0)
		return r;
	families = portfwd_families(ports, n, t, reterr);
	if (families < 0)
		return families;
	(void) snprintf(tag, sizeof(tag), PORTFWD_TAG_FMT, uuid);
	if (t->host_if && (families & PORTFWD_IP4)) {
		r = route_localnet(t->host_if);
		if (r < 0)
			return cc_error_set(reterr, r, "route_localnet on %s: %m", t->host_if);
	}
	if (b == PORTFWD_AUTO)
		b = portfwd_iptables(AF_INET) || !portfwd_nft() ? PORTFWD_IPTABLES : PORTFWD_NFT;
	if (b == PORTFWD_NFT)
		return portfwd_nft_add(uuid, ports, n, t, families, reterr);
	for (size_t i = 0; i < n; i++) {
		if ((families & PORTFWD_IP4) && portfwd_port_wants(&ports[i], AF_INET)) {
			r = port_rules(AF_INET, tag, &ports[i], t->ip4, reterr);
			if (r < 0)
				return r;
		}
		if ((families & PORTFWD_IP6) && portfwd_port_wants(&ports[i], AF_INET6)) {
			r = port_rules(AF_INET6, tag, &ports[i], t->ip6, reterr);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/*
 * Split an `iptables -S` line on spaces into argv[1..]. Our rules have no spaces in any word;
 * iptables-nft quotes comments ("cc-pod:<uuid>"), which are unquoted here.
 */
static int line_split(char *line, char **argv, size_t max)
{
	size_t k = 1;
	char *save = NULL;

	for (char *t = strtok_r(line, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		size_t l = strlen(t);

		if (l >= 2 && t[0] == '"' && t[l - 1] == '"') {
			t[l - 1] = '\0';
			t++;
		}
		if (k + 1 >= max || strchr(t, '"'))
			return -E2BIG;
		argv[k++] = t;
	}
	argv[k] = NULL;
	return (int) k;
}

static int table_clean(int family, const char *table, const char *tag, struct cc_error *err)
{
	char *list[] = {NULL, "-w", "-t", (char *) table, "-S", NULL};
	_cleanup_free_ char *out = NULL;
	char want[80], want_q[80], *save = NULL;
	int ret = 0, r;

	(void) snprintf(want, sizeof(want), "--comment %s ", tag);
	(void) snprintf(want_q, sizeof(want_q), "--comment \"%s\" ", tag);
	r = ipt_run(family, list, &out, err);
	if (r < 0)
		return r;
	for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *argv[IPT_ARGS_MAX + 4] = {NULL, "-w", "-t", (char *) table};

		if (strncmp(l, "-A ", 3) != 0 || (!strstr(l, want) && !strstr(l, want_q)))
			continue;
		l[1] = 'D';
		r = line_split(l, argv + 3, IPT_ARGS_MAX);
		if (r >= 0)
			r = ipt_run(family, argv, NULL, err);
		if (r < 0 && ret == 0)
			ret = r;
	}
	return ret;
}

int portfwd_remove(const char *uuid, int families, struct cc_error *reterr)
{
	static const struct {
		int bit, family;
	} fams[] = {{PORTFWD_IP4, AF_INET}, {PORTFWD_IP6, AF_INET6}};
	char tag[64];
	int ret = 0, r;

	(void) snprintf(tag, sizeof(tag), PORTFWD_TAG_FMT, uuid);
	for (size_t i = 0; i < ARRAY_SIZE(fams); i++) {
		if (!(families & fams[i].bit) || !portfwd_iptables(fams[i].family))
			continue;
		r = table_clean(fams[i].family, "nat", tag, reterr);
		if (r < 0 && ret == 0)
			ret = r;
		r = table_clean(fams[i].family, "filter", tag, reterr);
		if (r < 0 && ret == 0)
			ret = r;
	}
	r = portfwd_nft_remove(uuid, families, reterr);
	return ret < 0 ? ret : r;
}
