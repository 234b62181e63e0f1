/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Running one CNI plugin (CNI spec, "Protocol parameters" / "Execution"): the parameters in
 * the environment, the network config on stdin, the result (or error object) on stdout. The
 * plugin gets only fds 0-2 (stderr is ours); everything else, RKT_LOCK_FD included, is
 * closed in the child. A plugin that runs longer than the timeout is killed.
 */

#include <stddef.h>

#include "cc/error.h"
#include "cc/warnings.h"

struct cni_call {
	const char *command;	  /* "ADD", "DEL", "CHECK", "VERSION" */
	const char *plugin;	  /* absolute path of the plugin */
	const char *container_id; /* CNI_CONTAINERID */
	const char *netns;	  /* CNI_NETNS (path) */
	const char *ifname;	  /* CNI_IFNAME */
	const char *args;	  /* CNI_ARGS, may be "" */
	const char *path;	  /* CNI_PATH, ':'-separated */
	const char *conf;	  /* stdin */
	size_t conf_len;
	int timeout_ms;
};

/*
 * Run the plugin; on exit 0 *ret_out is its stdout (NUL-terminated, at most CNI_OUTPUT_MAX).
 * A non-zero exit gives -EPROTO with "<plugin> <command>: <msg from the error object>" in
 * *reterr; a timeout -ETIMEDOUT; an exec failure its errno.
 */
int cni_call_run(const struct cni_call *c, char **ret_out, size_t *ret_len,
		 struct cc_error *reterr);

/* Find plugin type in the NULL-terminated dirs (regular executable file); *ret is malloc'd. */
int cni_plugin_find(const char *type, const char *const *dirs, char **ret);
/* Join dirs with ':' for CNI_PATH; malloc'd. */
char *cni_path_join(const char *const *dirs);
