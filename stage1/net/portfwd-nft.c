/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Port forwarding with nftables, for hosts without iptables: one table per pod,
 * `ip cc_<uuid with _>`, holding the same four rules per port as the iptables backend
 * (portfwd.h), loaded atomically with `nft -f -` and removed as a whole.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "portfwd.h"
#include "spawn.h"

#define NFT_TIMEOUT_MS 30000

const char *portfwd_nft(void)
{
	static const char *const paths[] = {"/usr/sbin/nft", "/sbin/nft", "/usr/bin/nft",
					    "/bin/nft"};

	for (size_t i = 0; i < ARRAY_SIZE(paths); i++)
		if (access(paths[i], X_OK) == 0)
			return paths[i];
	return NULL;
}

static void table_name(const char *uuid, char *buf, size_t size)
{
	(void) snprintf(buf, size, "cc_%s", uuid);
	for (char *p = buf; *p; p++)
		if (*p == '-')
			*p = '_';
}

static int nft_load(const char *script, struct stage1_error *err)
{
	const char *nft = portfwd_nft();
	char *argv[] = {(char *) nft, "-f", "-", NULL};
	struct spawn_req req = {.path = nft,
				.argv = argv,
				.in = script,
				.in_len = strlen(script),
				.out_max = 64 * 1024,
				.timeout_ms = NFT_TIMEOUT_MS};
	int status = 0, r;

	if (!nft)
		return stage1_error_set(err, -ENOENT, "port forwarding needs iptables or nft");
	r = spawn_run(&req, &status, NULL, NULL);
	if (r < 0)
		return stage1_error_set(err, r, "nft: %m");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return stage1_error_set(err, -EPROTO, "nft -f failed (status %d)", status);
	return 0;
}

static void port_rules(FILE *f, const char *chain, const struct ccnet_port *p, const char *ip)
{
	if (strcmp(chain, "dnat") == 0) {
		if (p->host_ip[0])
			fprintf(f, "\t\tip daddr %s ", p->host_ip);
		else
			fprintf(f, "\t\tfib daddr type local ");
		fprintf(f, "%s dport %u dnat to %s:%u\n", p->proto, p->host_port, ip, p->pod_port);
	} else if (strcmp(chain, "masq") == 0) {
		fprintf(f, "\t\tip saddr 127.0.0.0/8 ip daddr %s %s dport %u masquerade\n", ip,
			p->proto, p->pod_port);
	} else {
		fprintf(f, "\t\tip daddr %s %s dport %u accept\n", ip, p->proto, p->pod_port);
	}
}

int portfwd_nft_add(const char *uuid, const struct ccnet_port *ports, size_t n, const char *pod_ip,
		    struct stage1_error *reterr)
{
	static const struct {
		const char *name, *hook, *prio, *kind;
	} chains[] = {
		{"prerouting", "type nat hook prerouting priority -100", "", "dnat"},
		{"output", "type nat hook output priority -100", "", "dnat"},
		{"postrouting", "type nat hook postrouting priority 100", "", "masq"},
		{"forward", "type filter hook forward priority -1", "", "accept"},
	};
	_cleanup_free_ char *script = NULL;
	char table[64];
	size_t len = 0;
	FILE *f;

	table_name(uuid, table, sizeof(table));
	f = open_memstream(&script, &len);
	if (!f)
		return -ENOMEM;
	fprintf(f, "table ip %s {\n", table);
	for (size_t c = 0; c < ARRAY_SIZE(chains); c++) {
		fprintf(f, "\tchain %s {\n\t\t%s; policy accept;\n", chains[c].name,
			chains[c].hook);
		for (size_t i = 0; i < n; i++)
			port_rules(f, chains[c].kind, &ports[i], pod_ip);
		fprintf(f, "\t}\n");
	}
	fprintf(f, "}\n");
	if (fclose(f) != 0)
		return -ENOMEM;
	return nft_load(script, reterr);
}

int portfwd_nft_remove(const char *uuid, struct stage1_error *reterr)
{
	char table[64], script[160];

	if (!portfwd_nft())
		return 0;
	table_name(uuid, table, sizeof(table));
	/* Declaring it first makes the delete succeed when it is already gone. */
	(void) snprintf(script, sizeof(script), "table ip %s {}\ndelete table ip %s\n", table,
			table);
	return nft_load(script, reterr);
}
