/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The pod's /etc/hostname, /etc/hosts and /etc/resolv.conf (guest root; apps get hosts and
 * resolv.conf bound over theirs as decided in podlayer.h):
 *   hostname: --hostname, else "rkt-<uuid>";
 *   hosts:    default: "127.0.0.1 localhost localhost.localdomain <hostname>" and "::1 localhost";
 *             stage0: stage1/rootfs/etc/rkt-hosts (written by rkt) + "127.0.0.1 <hostname>";
 *             host: the host's /etc/hosts, unchanged;
 *   resolv:   stage0: stage1/rootfs/etc/rkt-resolv.conf; host: the host's /etc/resolv.conf;
 *             none and default: no file (default means none while --net=none is the only net).
 * Source files are read with a STAGE1_DNS_FILE_MAX cap; a missing one is an error naming it.
 */

#include "cc/error.h"
#include "cc/warnings.h"
#include "stage1/flags.h"

#define STAGE1_DNS_FILE_MAX    (1024u * 1024u)
#define STAGE1_HOSTNAME_MAX    64
#define STAGE1_RKT_HOSTS       "etc/rkt-hosts"
#define STAGE1_RKT_RESOLV_CONF "etc/rkt-resolv.conf"

struct dns_files {
	char *hostname;	   /* content of /etc/hostname ("<name>\n") */
	char *hosts;	   /* content of /etc/hosts */
	char *resolv_conf; /* content of /etc/resolv.conf, NULL: write none */
};

/* "rkt-<uuid>" into ret (STAGE1_HOSTNAME_MAX + 1 bytes). */
int hostname_default(const char *uuid, char *ret, size_t size);

/*
 * stage1_rootfs_fd: the pod's stage1/rootfs (for etc/rkt-hosts, etc/rkt-resolv.conf);
 * host_etc_fd: the host's /etc (for "host" modes). hostname: the pod hostname (valid).
 */
int dns_files_build(enum dns_hosts_mode hosts_mode, enum dns_resolv_mode resolv_mode,
		    const char *hostname, int stage1_rootfs_fd, int host_etc_fd,
		    struct dns_files *ret, struct cc_error *reterr);
void dns_files_done(struct dns_files *f);
