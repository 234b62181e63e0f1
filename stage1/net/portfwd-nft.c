/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Port forwarding with nftables, for hosts without iptables: one table per pod and family,
 * `ip cc_<uuid with _>` and `ip6 cc_<uuid with _>`, holding the same rules per port as the
 * iptables backend (portfwd.h), loaded atomically with one `nft -f -` and removed as a whole.
 */
#include <errno.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "portfwd.h"
#include "cc/spawn.h"

#define NFT_TIMEOUT_MS 30000

const char *portfwd_nft(void)
{
	static const char *const paths[] = {"/usr/sbin/nft", "/sbin/nft", "/usr/bin/nft",
					    "/bin/nft"};

	return portfwd_tool(paths, ARRAY_SIZE(paths));
}

static void table_name(const char *uuid, char *buf, size_t size)
{
	(void) snprintf(buf, size, "cc_%s", uuid);
	for (char *p = buf; *p; p++)
		if (*p == '-')
			*p = '_';
}

static int nft_load(const char *script, struct cc_error *err)
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
		return cc_error_set(err, -ENOENT, "port forwarding needs iptables or nft");
	r = spawn_run(&req, &status, NULL, NULL);
	if (r < 0)
		return cc_error_set(err, r, "nft: %m");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return cc_error_set(err, -EPROTO, "nft -f failed (status %d)", status);
	return 0;
}

/* The family's nft words (table family and address match keyword are the same word). */
struct nft_family {
	int family, bit;
	const char *name;
};

static const struct nft_family nft_families[] = {
	{AF_INET, PORTFWD_IP4, "ip"},
	{AF_INET6, PORTFWD_IP6, "ip6"},
};

static void port_rules(FILE *f, const struct nft_family *fam, const char *kind,
		       const struct ccnet_port *p, const char *ip)
{
	char dest[64];

	if (strcmp(kind, "dnat") == 0) {
		const char *dst = portfwd_port_dst(p);

		if (dst)
			fprintf(f, "\t\t%s daddr %s ", fam->name, dst);
		else
			fprintf(f, "\t\tfib daddr type local ");
		(void) snprintf(dest, sizeof(dest), fam->family == AF_INET6 ? "[%s]:%u" : "%s:%u",
				ip, p->pod_port);
		fprintf(f, "%s dport %u dnat to %s\n", p->proto, p->host_port, dest);
	} else if (strcmp(kind, "masq") == 0) {
		/* IPv4 only: ::1 is never routed off the host (portfwd.h). */
		if (fam->family == AF_INET)
			fprintf(f, "\t\tip saddr 127.0.0.0/8 ip daddr %s %s dport %u masquerade\n",
				ip, p->proto, p->pod_port);
	} else {
		fprintf(f, "\t\t%s daddr %s %s dport %u accept\n", fam->name, ip, p->proto,
			p->pod_port);
	}
}

static void table_write(FILE *f, const struct nft_family *fam, const char *table,
			const struct ccnet_port *ports, size_t n, const char *ip)
{
	static const struct {
		const char *name, *hook, *kind;
	} chains[] = {
		{"prerouting", "type nat hook prerouting priority -100", "dnat"},
		{"output", "type nat hook output priority -100", "dnat"},
		{"postrouting", "type nat hook postrouting priority 100", "masq"},
		{"forward", "type filter hook forward priority -1", "accept"},
	};

	fprintf(f, "table %s %s {\n", fam->name, table);
	for (size_t c = 0; c < ARRAY_SIZE(chains); c++) {
		fprintf(f, "\tchain %s {\n\t\t%s; policy accept;\n", chains[c].name,
			chains[c].hook);
		for (size_t i = 0; i < n; i++)
			if (portfwd_port_wants(&ports[i], fam->family))
				port_rules(f, fam, chains[c].kind, &ports[i], ip);
		fprintf(f, "\t}\n");
	}
	fprintf(f, "}\n");
}

int portfwd_nft_add(const char *uuid, const struct ccnet_port *ports, size_t n,
		    const struct portfwd_target *t, int families, struct cc_error *reterr)
{
	_cleanup_free_ char *script = NULL;
	char table[64];
	size_t len = 0;
	FILE *f;

	table_name(uuid, table, sizeof(table));
	f = open_memstream(&script, &len);
	if (!f)
		return -ENOMEM;
	if (families & PORTFWD_IP4)
		table_write(f, &nft_families[0], table, ports, n, t->ip4);
	if (families & PORTFWD_IP6)
		table_write(f, &nft_families[1], table, ports, n, t->ip6);
	if (fclose(f) != 0)
		return -ENOMEM;
	return nft_load(script, reterr);
}

int portfwd_nft_remove(const char *uuid, int families, struct cc_error *reterr)
{
	char table[64], script[320];
	size_t len = 0;

	if (!portfwd_nft())
		return 0;
	table_name(uuid, table, sizeof(table));
	/* Declaring each first makes the delete succeed when it is already gone. */
	for (size_t i = 0; i < ARRAY_SIZE(nft_families); i++) {
		const char *fam = nft_families[i].name;

		if (!(families & nft_families[i].bit))
			continue;
		len += (size_t) snprintf(script + len, sizeof(script) - len,
					 "table %s %s {}\ndelete table %s %s\n", fam, table, fam,
					 table);
	}
	return len ? nft_load(script, reterr) : 0;
}
