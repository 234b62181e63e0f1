/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * What teardown needs, saved in the pod dir before each network is created:
 * cc/net/<ifname>.conf (the exact config bytes) and cc/net/<ifname>.json
 * ({"netName","pluginPath","ifName","args","netns"}). A network is "torn down" once its
 * DEL succeeded and both files are gone. net-info.json (rkt's format) is written at the end.
 */

#include <stdbool.h>
#include <stddef.h>

#include "ccnet.h"

struct net_state {
	char net_name[CNI_NAME_MAX];
	char plugin[4096];
	char ifname[16];
	char args[1024];
	char netns[128];
	char *conf; /* malloc'd */
	size_t conf_len;
};

/* Write both files for one net, durably, before its ADD. */
int net_state_save(int pod_fd, const struct net_state *s);
/* The ifnames with saved state, in reverse order (teardown order); *ret malloc'd. */
int net_state_list(int pod_fd, char (**ret)[16], size_t *ret_n);
int net_state_load(int pod_fd, const char *ifname, struct net_state *ret);
int net_state_remove(int pod_fd, const char *ifname);
/*
 * The ADD result, cc/net/<ifname>.result: teardown puts its addresses back on the veth before
 * DEL, because ptp and bridge find the masquerade rules to delete from the veth's addresses.
 */
int net_state_save_result(int pod_fd, const char *ifname, const char *out, size_t len);
/* -ENOENT if there is none (ADD failed or never ran). */
int net_state_load_result(int pod_fd, const char *ifname, char **ret, size_t *ret_len);

/*
 * cc/net/ports: port rules of these address families (PORTFWD_IP4|PORTFWD_IP6) may exist. Set
 * before adding them; families 0 clears it once they are removed.
 */
int net_ports_mark(int pod_fd, int families);
/* The marked families (0 if none), or a negative errno. */
int net_ports_marked(int pod_fd);

/* Write <pod>/net-info.json for pod (atomically). */
int net_info_write(int pod_fd, const struct ccnet_selection *sel, const struct ccnet_pod *pod);
/* Write dir_fd/name atomically (tmp file + fsync + rename). */
int net_file_write(int dir_fd, const char *name, const char *data, size_t len);
