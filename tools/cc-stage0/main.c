/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cc-stage0 [GLOBAL FLAGS] run|status|enter|stop|gc ...: see usage() and docs/stage1.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc/cleanup.h"
#include "cc/log.h"
#include "cc/macro.h"
#include "stage0.h"

static const char usage_text[] =
	"Usage: cc-stage0 [--dir=DIR] [--debug] [--local-config=DIR]\n"
	"                 [--insecure-options=capabilities,paths,seccomp,all-run] COMMAND ...\n"
	"\n"
	"  run [--stage1=ACI] [--net=NETS] [--interactive] [--hostname=NAME] [--no-overlay]\n"
	"      [--dns=IP|host|none]... [--dns-search=D]... [--dns-opt=O]... [--dns-domain=D]\n"
	"      [--hosts-entry=IP=NAME|host]... [--volume=NAME,kind=host|empty,...]...\n"
	"      [--port=NAME:[HOSTIP:]HOSTPORT]... [--mds-token=HEX]\n"
	"      [--ipc=MODE] [--pod-manifest=FILE] [--uuid-file-save=FILE]\n"
	"      IMAGE.aci [--name=N] [--exec=PATH] [--user=U] [--group=G] [--set-env=K=V]...\n"
	"                [--user-annotation=K=V]...\n"
	"                [-- ARGS... ---] [IMAGE.aci ...]\n"
	"  status UUID       print the pod's state, as `rkt status`\n"
	"  enter [--app=NAME] UUID [CMD ARGS...]\n"
	"  stop [--force] UUID\n"
	"  gc [UUID...]      collect exited pods (no grace period)\n"
	"\n"
	"A stand-in for rkt 1.30's stage0, for tests and the demo: it lays out the pod directory\n"
	"under DIR/pods (default /var/lib/cc-stage0) as rkt does and runs the stage1's\n"
	"entrypoints with rkt's arguments. Exit status: the entrypoint's, or 254 on its own "
	"errors.\n";

static int insecure_parse(struct stage0_ctx *ctx, const char *list)
{
	_cleanup_free_ char *copy = strdup(list);
	char *save = NULL;

	if (!copy)
		return -ENOMEM;
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (streq(w, "capabilities"))
			ctx->insecure_caps = true;
		else if (streq(w, "paths"))
			ctx->insecure_paths = true;
		else if (streq(w, "seccomp"))
			ctx->insecure_seccomp = true;
		else if (streq(w, "all-run") || streq(w, "all"))
			ctx->insecure_caps = ctx->insecure_paths = ctx->insecure_seccomp = true;
		else if (!streq(w, "image") && !streq(w, "tls") && !streq(w, "ondisk") &&
			 !streq(w, "http") && !streq(w, "pubkey"))
			return -EINVAL;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct stage0_ctx ctx = {
		.dir = "/var/lib/cc-stage0",
		.local_config = "/etc/rkt",
	};
	static const struct {
		const char *name;
		int (*fn)(const struct stage0_ctx *ctx, int argc, char **argv);
	} cmds[] = {
		{"run", cmd_run},   {"status", cmd_status}, {"enter", cmd_enter},
		{"stop", cmd_stop}, {"gc", cmd_gc},
	};
	const char *v;
	int i;

	log_set_prefix("cc-stage0");
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (streq(argv[i], "-h") || streq(argv[i], "--help")) {
			fputs(usage_text, stdout);
			return 0;
		} else if (streq(argv[i], "--debug")) {
			ctx.debug = true;
			log_set_max_level(LOG_INFO);
		} else if ((v = stage0_flag_value(argc, argv, &i, "--dir"))) {
			ctx.dir = v;
		} else if ((v = stage0_flag_value(argc, argv, &i, "--local-config"))) {
			ctx.local_config = v;
		} else if ((v = stage0_flag_value(argc, argv, &i, "--insecure-options"))) {
			if (insecure_parse(&ctx, v) < 0) {
				log_error("--insecure-options=%s: unknown option", v);
				return 2;
			}
		} else {
			log_error("unknown flag %s (see --help)", argv[i]);
			return 2;
		}
	}
	if (i >= argc) {
		fputs(usage_text, stderr);
		return 2;
	}
	if (ctx.dir[0] != '/') {
		log_error("--dir=%s: must be an absolute path", ctx.dir);
		return 2;
	}
	for (size_t c = 0; c < ARRAY_SIZE(cmds); c++)
		if (streq(argv[i], cmds[c].name))
			return cmds[c].fn(&ctx, argc - i, argv + i);
	log_error("unknown command '%s' (see --help)", argv[i]);
	return 2;
}
