/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * A private "host" for the networking tests: the calling process moves into new network and
 * mount namespaces with its own /run/netns and /var/lib/cni (tmpfs), and loopback up. Every
 * interface, netns, IPAM lease and iptables rule a test makes lives there and dies with it.
 * Exits 77 (skipped) without root, namespaces, /dev/net/tun, iptables or the CNI plugins.
 */

#include <stddef.h>

#define NET_ENV_CNI_DIR "/usr/lib/cni"

void net_env_require(void);
void net_env_enter(void);

/* Sorted, '\n'-joined interface names of the current netns (malloc'd). */
char *net_env_links(void);
/* `iptables -w -t <table> -S` of the current netns (malloc'd). */
char *net_env_iptables(const char *table);
/* The same with ip6tables, or "" without ip6tables (malloc'd). */
char *net_env_ip6tables(const char *table);
/* `nft list ruleset` of the current netns, or "" without nft (malloc'd). */
char *net_env_nft(void);
/* The links of netns file path (entered and left again). */
char *net_env_links_in(const char *netns_path);
