/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * ccnet: pod networking for the stage1 (docs/networking.md). A pod gets one network namespace
 * (/run/netns/cc-<uuid>); every selected CNI network adds a veth in it (ethN); a tap (tapN) in
 * the same netns is joined to the veth by tc mirred redirects both ways, and its fd is handed
 * to cc-vmm (`--net fd=N,mac=<veth MAC>`). The guest takes the veth's addresses, routes and
 * MAC; the veth keeps none. Everything a teardown needs is saved in the pod dir under cc/net/
 * before it is created, so ccnet_pod_teardown() works after a crash too (gc).
 *
 * Errors: negative errno, with one line in *reterr (struct cc_error) for the user.
 * The library logs at debug level only.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cni-result.h"
#include "cc/error.h"
#include "cc/warnings.h"

#define CCNET_NETNS_DIR	   "/run/netns"
#define CCNET_STATE_DIR	   "cc/net"
#define CCNET_NET_INFO	   "net-info.json"
#define CCNET_NETS_MAX	   8
#define CCNET_PORTS_MAX	   64
#define CCNET_TIMEOUT_MS   30000
#define CCNET_DEFAULT_NAME "default"
#define CCNET_RESTRICTED   "default-restricted"

/* One network chosen by --net (net-select.c). */
struct ccnet_conf {
	char *name;   /* the config's "name" */
	char *type;   /* the config's "type": the plugin's file name */
	char *args;   /* CNI_ARGS from --net=name:ARGS ("" if none) */
	char *conf;   /* the config bytes, as sent to the plugin on stdin */
	char *source; /* the file it came from, or "built-in" */
	bool ip_masq; /* "ipMasq": true (ports are forwarded to the first such net) */
};

struct ccnet_selection {
	struct ccnet_conf nets[CCNET_NETS_MAX];
	size_t n; /* 0 for --net=none */
};

/*
 * Parse rkt's --net value (`default`, `default-restricted`, `none`, `all`, `name[:CNI_ARGS]`,
 * comma separated) and load the configs with rkt's rules: `*.conf` files of each directory in
 * conf_dirs (NULL-terminated; typically <local-config>/net.d then /etc/rkt/net.d), in sorted
 * file-name order, first definition of a name wins; a file that is not a JSON object with
 * string "name" and "type" is an error; unless a loaded net is called default or
 * default-restricted, the built-in `default` is added when asked for (or `all`), else the
 * built-in `default-restricted` (as rkt does: the pod keeps a route to the host). `host` is
 * refused. Unknown names fail with the list of them.
 */
int ccnet_select(const char *net_value, const char *const *conf_dirs, struct ccnet_selection *ret,
		 struct cc_error *reterr);
void ccnet_selection_done(struct ccnet_selection *s);

/* A forwarded port (pod `ports` / rkt --port), already resolved by the caller. */
struct ccnet_port {
	char proto[4];	    /* "tcp" or "udp" */
	uint16_t pod_port;  /* the app's port in the guest */
	uint16_t host_port; /* the port on the host */
	char host_ip[46];   /* "" = every local address */
};

/*
 * Records a host resource before it is created, e.g. run's wrapper around
 * pod_resources_append() (stage1/supervisor/pod-resources.h). kind is "netns".
 */
typedef int (*ccnet_record_fn)(void *userdata, const char *kind, const char *name);

struct ccnet_setup_params {
	int pod_fd;		     /* the pod dir */
	const char *uuid;	     /* pod UUID: CNI_CONTAINERID, netns name, rule tag */
	const char *const *cni_path; /* plugin dirs, NULL-terminated (CNI_PATH, search order) */
	const struct ccnet_selection *sel;
	const struct ccnet_port *ports;
	size_t n_ports;
	ccnet_record_fn record;
	void *record_userdata;
	int timeout_ms; /* per plugin call; 0 = CCNET_TIMEOUT_MS */
	int firewall;	/* ports: 0 = iptables if installed else nft, 1 = iptables, 2 = nft */
};

/* What the guest gets for one network: hand tap_fd to cc-vmm, the rest to the pod layer. */
struct ccnet_nic {
	char net_name[64];
	char ifname[16];	  /* eth0, eth1, ...: the guest's name for it too */
	char plugin[256];	  /* the CNI plugin that made it */
	int tap_fd;		  /* owned by the ccnet_pod; -1 once taken */
	uint8_t mac[6];		  /* the veth's MAC: the guest NIC's MAC */
	struct cni_result result; /* addresses, gateways, routes, DNS (from the plugin) */
};

struct ccnet_pod {
	char netns[64]; /* name under /run/netns, "" for --net=none */
	struct ccnet_nic nics[CCNET_NETS_MAX];
	size_t n_nics;
	unsigned setup_ms; /* CNI + tap + rules, wall clock */
};

/*
 * Create the pod's netns, run CNI ADD for each selected net, create and join the taps, forward
 * ports, write net-info.json. On error everything created is torn down again (nothing
 * half-created is left) and *reterr says what failed. For an empty selection (--net=none) it
 * creates nothing and returns 0 with no NICs. Call it before run's unshare(CLONE_NEWNS): the
 * netns bind mount must live in the host's mount namespace for gc.
 */
int ccnet_pod_setup(const struct ccnet_setup_params *p, struct ccnet_pod *ret,
		    struct cc_error *reterr);
/* Close the tap fds still owned by pod (after cc-vmm got them). */
void ccnet_pod_done(struct ccnet_pod *pod);

/*
 * Undo everything ccnet_pod_setup() did for pod uuid, from the state under cc/net/ (CNI DEL
 * per net, port rules by their comment, the netns). Idempotent; works after a crash. Returns
 * the first error but always tries every step.
 */
int ccnet_pod_teardown(int pod_fd, const char *uuid, const char *const *cni_path, int timeout_ms,
		       struct cc_error *reterr);

/* `--net fd=N,mac=..` for cc-vmm, for nic. */
int ccnet_nic_vmm_arg(const struct ccnet_nic *nic, int fd, char *buf, size_t size);
