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
#include "spawn.h"

#define IPT_TIMEOUT_MS 30000
#define IPT_ARGS_MAX   40
#define IPT_OUT_MAX    (16u * 1024u * 1024u)

const char *portfwd_iptables(void)
{
	static const char *const paths[] = {"/usr/sbin/iptables", "/sbin/iptables",
					    "/usr/bin/iptables", "/bin/iptables"};

	for (size_t i = 0; i < ARRAY_SIZE(paths); i++)
		if (access(paths[i], X_OK) == 0)
			return paths[i];
	return NULL;
}

/* Run iptables argv[] (argv[0] filled in here); *ret_out optional. */
static int ipt_run(char **argv, char **ret_out, struct stage1_error *err)
{
	const char *ipt = portfwd_iptables();
	struct spawn_req req = {.argv = argv, .out_max = IPT_OUT_MAX, .timeout_ms = IPT_TIMEOUT_MS};
	int status = 0, r;

	if (!ipt)
		return stage1_error_set(err, -ENOENT, "port forwarding needs iptables, not found");
	req.path = ipt;
	argv[0] = (char *) ipt;
	r = spawn_run(&req, &status, ret_out, NULL);
	if (r < 0)
		return stage1_error_set(err, r, "iptables: %m");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		if (ret_out) {
			free(*ret_out);
			*ret_out = NULL;
		}
		return stage1_error_set(err, -EPROTO, "iptables %s %s %s failed (status %d)",
					argv[3], argv[4], argv[5] ? argv[5] : "", status);
	}
	return 0;
}

int portfwd_validate(const struct ccnet_port *ports, size_t n, struct stage1_error *reterr)
{
	if (n > CCNET_PORTS_MAX)
		return stage1_error_set(reterr, -E2BIG, "more than %d forwarded ports",
					CCNET_PORTS_MAX);
	for (size_t i = 0; i < n; i++) {
		const struct ccnet_port *p = &ports[i];
		struct in_addr a;

		if (strcmp(p->proto, "tcp") != 0 && strcmp(p->proto, "udp") != 0)
			return stage1_error_set(reterr, -EINVAL,
						"port %u: protocol \"%.4s\" is not "
						"tcp or udp",
						p->host_port, p->proto);
		if (p->pod_port == 0 || p->host_port == 0)
			return stage1_error_set(reterr, -EINVAL, "port 0 cannot be forwarded");
		if (p->host_ip[0] && inet_pton(AF_INET, p->host_ip, &a) != 1)
			return stage1_error_set(reterr, -EINVAL, "port %u: bad host IP \"%.46s\"",
						p->host_port, p->host_ip);
		for (size_t j = 0; j < i; j++)
			if (ports[j].host_port == p->host_port &&
			    strcmp(ports[j].proto, p->proto) == 0)
				return stage1_error_set(reterr, -EINVAL,
							"host port %s/%u is forwarded twice",
							p->proto, p->host_port);
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

/* The four rules of one port, each as "-t table -A|-I chain ..." after argv[0]. */
static int port_rules(const char *tag, const struct ccnet_port *p, const char *pod_ip,
		      struct stage1_error *err)
{
	char hp[8], pp[8], dest[64];
	const char *dst_if = p->host_ip[0] ? "-d" : "-m";
	const char *dst_val = p->host_ip[0] ? p->host_ip : "addrtype";
	const char *dst_x = p->host_ip[0] ? NULL : "--dst-type";
	const char *dst_y = p->host_ip[0] ? NULL : "LOCAL";
	int r;

	(void) snprintf(hp, sizeof(hp), "%u", p->host_port);
	(void) snprintf(pp, sizeof(pp), "%u", p->pod_port);
	(void) snprintf(dest, sizeof(dest), "%s:%u", pod_ip, p->pod_port);
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
		r = ipt_run(argv, NULL, err);
		if (r < 0)
			return r;
	}
	{
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

		r = ipt_run(argv, NULL, err);
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

		return ipt_run(argv, NULL, err);
	}
}

int portfwd_add(enum portfwd_backend b, const char *uuid, const struct ccnet_port *ports, size_t n,
		const char *pod_ip, const char *host_if, struct stage1_error *reterr)
{
	char tag[64];
	int r;

	if (n == 0)
		return 0;
	r = portfwd_validate(ports, n, reterr);
	if (r < 0)
		return r;
	(void) snprintf(tag, sizeof(tag), PORTFWD_TAG_FMT, uuid);
	if (host_if) {
		r = route_localnet(host_if);
		if (r < 0)
			return stage1_error_set(reterr, r, "route_localnet on %s: %m", host_if);
	}
	if (b == PORTFWD_AUTO)
		b = portfwd_iptables() || !portfwd_nft() ? PORTFWD_IPTABLES : PORTFWD_NFT;
	if (b == PORTFWD_NFT)
		return portfwd_nft_add(uuid, ports, n, pod_ip, reterr);
	for (size_t i = 0; i < n; i++) {
		r = port_rules(tag, &ports[i], pod_ip, reterr);
		if (r < 0)
			return r;
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

static int table_clean(const char *table, const char *tag, struct stage1_error *err)
{
	char *list[] = {NULL, "-w", "-t", (char *) table, "-S", NULL};
	_cleanup_free_ char *out = NULL;
	char want[80], want_q[80], *save = NULL;
	int ret = 0, r;

	(void) snprintf(want, sizeof(want), "--comment %s ", tag);
	(void) snprintf(want_q, sizeof(want_q), "--comment \"%s\" ", tag);
	r = ipt_run(list, &out, err);
	if (r < 0)
		return r;
	for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *argv[IPT_ARGS_MAX + 4] = {NULL, "-w", "-t", (char *) table};

		if (strncmp(l, "-A ", 3) != 0 || (!strstr(l, want) && !strstr(l, want_q)))
			continue;
		l[1] = 'D';
		r = line_split(l, argv + 3, IPT_ARGS_MAX);
		if (r >= 0)
			r = ipt_run(argv, NULL, err);
		if (r < 0 && ret == 0)
			ret = r;
	}
	return ret;
}

int portfwd_remove(const char *uuid, struct stage1_error *reterr)
{
	char tag[64];
	int r = 0, r2 = 0, r3;

	if (portfwd_iptables()) {
		(void) snprintf(tag, sizeof(tag), PORTFWD_TAG_FMT, uuid);
		r = table_clean("nat", tag, reterr);
		r2 = table_clean("filter", tag, reterr);
	}
	r3 = portfwd_nft_remove(uuid, reterr);
	return r < 0 ? r : r2 < 0 ? r2 : r3;
}
