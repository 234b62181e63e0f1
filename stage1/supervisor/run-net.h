/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * run's side of pod networking (docs/networking.md, docs/stage1.md "Networking"): choose the
 * networks from --net and --local-config, resolve the pod's forwarded ports, set the networks
 * up with ccnet (before run's private mount namespace), and turn the result into what the VMM
 * (tap fds, `--net fd=N,mac=..`) and the pod layer (networkd units, resolv.conf, the metadata
 * service address) need. gc uses run_net_teardown() with the same plugin path.
 */

#include <stdbool.h>

#include "ccnet.h"
#include "pod-load.h"
#include "cc/error.h"
#include "stage1/flags.h"
#include "stage1/podlayer.h"

#define RUN_NET_METADATA_PORT 18112

struct run_net {
	struct ccnet_selection sel;
	struct ccnet_port ports[CCNET_PORTS_MAX];
	size_t n_ports;
	struct ccnet_pod pod;
	bool active; /* set up: an error from now on must tear down */
	/* For the VMM: one "fd=N,mac=.." per NIC, NULL-terminated, and the fds it inherits. */
	char *vmm_nets[CCNET_NETS_MAX + 1];
	int tap_fds[CCNET_NETS_MAX];
	/* For the pod layer. */
	char file_names[CCNET_NETS_MAX][32];
	char *file_texts[CCNET_NETS_MAX];
	struct podlayer_net_file files[CCNET_NETS_MAX];
	char *resolv_conf;	/* NULL: the networks returned no DNS */
	char metadata_host[46]; /* "" when no network has a gateway */
	char **cni_path;	/* the plugin search path */
};

/*
 * The CNI plugin search path for run and gc (NULL-terminated, free with run_net_strv_free()):
 * <local-config>/net.d, /usr/lib/rkt/plugins/net, /usr/lib/cni, /opt/cni/bin.
 */
int run_net_cni_path(const char *local_config, char ***ret);
char **run_net_strv_free(char **v);

/*
 * Everything that can be refused before anything exists: the --net selection (`host`, unknown
 * or broken networks), and the pod's `ports` resolved against its apps' ports.
 */
int run_net_select(struct run_net *n, const struct run_flags *f, const struct pod_info *info,
		   struct cc_error *reterr_error);

/*
 * Create the pod's networks (nothing for --net=none). Records them in cc/resources first (the
 * pod dir's cc/ must exist). On error nothing is left.
 */
int run_net_setup(struct run_net *n, int pod_fd, const char *uuid, struct cc_error *reterr_error);

/* Undo run_net_setup() (run's error paths). Returns the first error, tries every step. */
int run_net_teardown(struct run_net *n, int pod_fd, const char *uuid,
		     struct cc_error *reterr_error);

/* gc: tear down pod uuid's networks from the pod dir alone. */
int run_net_teardown_pod(int pod_fd, const char *uuid, const char *local_config,
			 struct cc_error *reterr_error);

void run_net_done(struct run_net *n);
