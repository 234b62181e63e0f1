/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * cc-stage0: a small stand-in for rkt 1.30's stage0, for tests and the demo. It lays out a pod
 * directory exactly as rkt does (docs/stage1.md, "cc-stage0") and runs the stage1 entrypoints
 * with rkt's argv, cwd and environment. A test harness, not a second rkt.
 */

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/types.h>

#include "cc/rm-rf.h"

#define streq(a, b) (strcmp((a), (b)) == 0)

#define STAGE0_EXIT_ERROR 254 /* rkt's exit status for its own errors */
#define STAGE0_UUID_LEN	  36
#define STAGE0_AC_VERSION "1.30.0+cc-stage0"

/* Global flags, given before the subcommand (as rkt's). */
struct stage0_ctx {
	const char *dir;	  /* data dir, default /var/lib/cc-stage0 */
	const char *local_config; /* passed on as --local-config, default /etc/rkt */
	bool debug;
	bool insecure_caps, insecure_paths, insecure_seccomp;
};

struct strv {
	const char **v;
	size_t n;
};
int strv_push(struct strv *s, const char *str);
void strv_done(struct strv *s);

/* One image on the run command line and the per-app flags that follow it. */
struct stage0_app {
	const char *aci;
	const char *name;
	const char *exec;
	struct strv args;
	const char *user, *group;
	struct strv set_env;
	struct strv user_annotations; /* NAME=VALUE: the app's userAnnotations, as rkt */
};

struct run_opts {
	const char *stage1; /* the stage1 ACI */
	const char *net;    /* NULL: "default" */
	bool interactive;
	bool no_overlay;
	const char *hostname;
	const char *ipc;
	const char *pod_manifest; /* written verbatim to `pod` (a test hook) */
	const char *mds_token;	  /* passed on as --mds-token (rkt: after --mds-register) */
	const char *uuid_file;
	struct strv dns, dns_search, dns_opt, hosts_entries, volumes, ports;
	const char *dns_domain;
	struct stage0_app *apps;
	size_t n_apps;
};

/* run-args.c */
int run_opts_parse(struct run_opts *o, int argc, char **argv);
/* --flag=value or --flag value (then *i moves past the value); NULL if argv[*i] is not flag. */
const char *stage0_flag_value(int argc, char **argv, int *i, const char *flag);
void run_opts_done(struct run_opts *o);

/* spawn.c: fork+exec argv (PATH lookup), wait; returns the exit status (>= 0) or -errno. */
int spawn_wait(const char *const *argv, const char *cwd, int stdout_fd);
/* Spawn, and capture up to max bytes of its stdout in *ret (NUL-terminated); its stderr is
 * discarded. */
int spawn_capture(const char *const *argv, size_t max, char **ret);

/* store.c: the tree store, <dir>/cas/tree/<id>/{manifest,rootfs}. */
struct store_image {
	char *id;	/* sha512-<hex>: the image ID (hash of the uncompressed tar) */
	char *tree_id;	/* deps-sha512-<hex> */
	char *tree;	/* <dir>/cas/tree/<tree_id> */
	char *manifest; /* the manifest's bytes */
	size_t manifest_len;
};
int store_import(const struct stage0_ctx *ctx, const char *aci, struct store_image *ret);
void store_image_done(struct store_image *img);

/* podgen.c: the pod manifest rkt would write for these apps and volumes. */
int podgen_build(const struct run_opts *o, const struct store_image *images, char **names,
		 char **ret_json);
/* The default app name of an image: the last path element of its name. */
int podgen_app_name(const char *manifest_json, size_t len, char **ret);

/* fsutil.c */
int mkdir_p(const char *path, mode_t mode);
int write_file(const char *path, const char *s, mode_t mode);
int umount_under(const char *path);
int mount_overlay(const char *target, const char *lower, const char *upper, const char *work);
int copy_tree(const char *from, const char *to);

/* pods.c: finding pods and reading their state. */
enum pod_state {
	POD_RUNNING,
	POD_EXITED,
	POD_GARBAGE,
};
/* Path of the pod dir of uuid (in pods/run or pods/exited-garbage), its state. */
int pod_find(const struct stage0_ctx *ctx, const char *uuid, char **ret_path,
	     enum pod_state *ret_state);
/* 1 if some process holds the pod's lock, 0 if not. */
int pod_is_locked(const char *path);
/* The pod's pid file (run's), first line, read beneath the pod dir: a regular file of at most
 * 64 bytes, through no link (cc/beneath.h); -ENOENT when missing. */
int pod_pid_read(const char *pod, char **ret);
/* The stage1 annotation coreos.com/rkt/stage1/<what> of the pod's stage1/manifest; -ENODATA
 * when the manifest has none. */
int pod_stage1_annotation(const char *pod, const char *what, char **ret);
int pod_interface_version(const char *pod, int *ret);
/* Mount the stage1 overlay again when it is missing (after a reboot of the host). */
int pod_stage1_remount(const struct stage0_ctx *ctx, const char *pod);

/* The subcommands. Each returns the process exit status. */
int cmd_run(const struct stage0_ctx *ctx, int argc, char **argv);
int cmd_status(const struct stage0_ctx *ctx, int argc, char **argv);
int cmd_stop(const struct stage0_ctx *ctx, int argc, char **argv);
int cmd_enter(const struct stage0_ctx *ctx, int argc, char **argv);
int cmd_gc(const struct stage0_ctx *ctx, int argc, char **argv);
