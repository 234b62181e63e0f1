/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Command lines of the entrypoints, exactly as rkt 1.30 builds them (stage1-contract.md b.2,
 * b.4). Value flags use the "--flag=value" form (gc's --local-config also takes a separate
 * argument, as rkt sends it); the pod UUID is the last positional argument and must be a
 * valid UUID. Unknown flags, repeated flags, missing or extra positionals and malformed
 * values fail with -EINVAL and a one-line message in *reterr (the entrypoint prints it as
 * "<entrypoint>: <msg>" and exits 2, a usage error).
 *
 * String members point into argv (no copies, nothing to free): they live as long as argv.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cc/error.h"
#include "cc/warnings.h"
#include "stage1/uuid.h"

enum dns_resolv_mode {
	DNS_RESOLV_DEFAULT, /* stage1 decides: no resolv.conf for --net=none */
	DNS_RESOLV_HOST,    /* the host's /etc/resolv.conf */
	DNS_RESOLV_STAGE0,  /* stage1/rootfs/etc/rkt-resolv.conf, written by rkt */
	DNS_RESOLV_NONE,    /* leave resolv.conf alone: the pod layer writes none */
	_DNS_RESOLV_MAX,
	_DNS_RESOLV_INVALID = -22,
};

enum dns_hosts_mode {
	DNS_HOSTS_DEFAULT, /* localhost + the pod hostname */
	DNS_HOSTS_HOST,	   /* the host's /etc/hosts */
	DNS_HOSTS_STAGE0,  /* stage1/rootfs/etc/rkt-hosts, written by rkt */
	_DNS_HOSTS_MAX,
	_DNS_HOSTS_INVALID = -22,
};

enum ipc_mode {
	IPC_MODE_UNSET, /* no --ipc flag */
	IPC_MODE_AUTO,
	IPC_MODE_PRIVATE,
	IPC_MODE_PARENT,
	_IPC_MODE_MAX,
	_IPC_MODE_INVALID = -22,
};

const char *dns_resolv_mode_to_string(enum dns_resolv_mode m);
const char *dns_hosts_mode_to_string(enum dns_hosts_mode m);
const char *ipc_mode_to_string(enum ipc_mode m);

struct run_flags {
	bool debug;		     /* --debug */
	const char *net;	     /* --net=<list> as given; "default" when absent */
	bool interactive;	     /* --interactive */
	bool private_users;	     /* --private-users=<base>:<count> */
	uint32_t private_users_base; /* ... both > 0 when private_users */
	uint32_t private_users_count;
	const char *mds_token;	  /* --mds-token=<token> ([0-9A-Za-z], 1..256), or NULL */
	const char *local_config; /* --local-config=<dir> (absolute), or NULL */
	const char
		*hostname; /* --hostname=<name> (checked by stage1_hostname_is_valid()), or NULL */
	enum dns_resolv_mode dns_resolv; /* --dns-conf-mode=resolv=<m>,hosts=<m> */
	enum dns_hosts_mode dns_hosts;
	bool disable_capabilities; /* --disable-capabilities-restriction */
	bool disable_paths;	   /* --disable-paths */
	bool disable_seccomp;	   /* --disable-seccomp */
	bool mutable_pod;	   /* --mutable */
	enum ipc_mode ipc;	   /* --ipc=auto|private|parent */
	char uuid[STAGE1_UUID_STRING_MAX];
};

/* argv[0] is the program and is skipped. */
int run_flags_parse(int argc, char *const *argv, struct run_flags *ret, struct cc_error *reterr);

/*
 * What this stage1 cannot do, as one line each (the entrypoint exits 1): --private-users,
 * --ipc=parent, --mutable. Returns -EOPNOTSUPP. --net values are checked by ccnet_select()
 * (stage1/net), which refuses `host`.
 */
int run_flags_check_supported(const struct run_flags *f, struct cc_error *reterr);

/* True if --net=none: the pod gets no network (loopback only). */
bool run_flags_net_is_none(const struct run_flags *f);

struct stop_flags {
	bool force; /* --force */
	char uuid[STAGE1_UUID_STRING_MAX];
};

int stop_flags_parse(int argc, char *const *argv, struct stop_flags *ret, struct cc_error *reterr);

struct enter_flags {
	pid_t pid;	      /* --pid=N (> 0) */
	const char *app_name; /* --appname=X (an AC Name) */
	char *const *cmd;     /* what follows "--": at least one argument */
	size_t n_cmd;
};

/* "--pid=N --appname=X -- CMD [ARGS...]"; the two flags in any order, "--" required. */
int enter_flags_parse(int argc, char *const *argv, struct enter_flags *ret,
		      struct cc_error *reterr);

struct gc_flags {
	bool debug;		  /* --debug */
	const char *local_config; /* --local-config DIR (or --local-config=DIR), or NULL */
	char uuid[STAGE1_UUID_STRING_MAX];
};

int gc_flags_parse(int argc, char *const *argv, struct gc_flags *ret, struct cc_error *reterr);

/* An AC Name (app, volume names): [a-z0-9-], starting and ending with [a-z0-9], <= 512. */
bool stage1_ac_name_is_valid(const char *s);
/*
 * A hostname the pod can carry: 1..64 characters [A-Za-z0-9.-], labels of 1..63 characters
 * that do not start or end with '-'.
 */
bool stage1_hostname_is_valid(const char *s);
