/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The pod layer: everything the guest needs from the pod manifest and rkt's flags, written
 * into a directory (run uses <pod>/cc/layer, exported read-only to the guest as the 9p tag
 * cc-layer and laid over the guest's root). Layout (docs/stage1.md "Pod layer"):
 *
 *   etc/systemd/system/<app>.service    one per app
 *   etc/systemd/system/cc-pod.target    Wants= every app, cc-app-started and cc-agent
 *   etc/systemd/system/cc-app-started.service   the app-started marker, after every app
 *   etc/systemd/system/cc-app-exit@.service   records app <app>'s end (unit.h)
 *   etc/systemd/system/default.target   symlink -> cc-pod.target
 *   etc/cc/apps                         app names, one per line, manifest order
 *   etc/cc/passwd, etc/cc/group         appended to the guest's /etc/passwd and /etc/group by
 *                                       cc-init (systemd refuses unknown numeric ids):
 *                                       one line per distinct app uid / gid (supplementary
 *                                       gids included): the image's name, home and shell
 *                                       for the id when it has sane ones, else rkt-uid-<N>,
 *                                       rkt-gid-<N>, "/" and /bin/sh
 *   etc/cc/env/<app>                    EnvironmentFile (env.h), mode 0600
 *   etc/cc/enter/<app>                  key=value lines for cc-agent (below)
 *   etc/hostname, etc/hosts             hosts.h
 *   etc/resolv.conf                     hosts.h (absent when there is none); for
 *                                       --dns-conf-mode resolv=default, the networks' DNS
 *                                       (net_resolv_conf) when they returned any
 *   etc/systemd/network/<name>          pod networks only: net_files (systemd-networkd
 *                                       units, static addresses), plus
 *   etc/systemd/system/cc-pod.target.wants/systemd-networkd.service  (symlink) and
 *   etc/systemd/system/systemd-networkd.service.d/cc-pod.conf: ReadOnlyPaths=/sys, so that
 *                                       networkd does not wait for a udev the guest lacks
 *
 * etc/cc/enter/<app> ("key=value\n" lines, values end at the newline and never contain one):
 *   app=<name>
 *   root=/opt/stage2/<name>/rootfs
 *   uid=<decimal>
 *   gid=<decimal>
 *   groups=<decimal>[,<decimal>...]   (empty value when there are none)
 *   cwd=<absolute path>
 *   env=/etc/cc/env/<name>
 *
 * Each file is written atomically (temporary file + renameat) beneath layer_fd, never
 * following a symlink; nothing is written outside it. On failure, files already written stay
 * (the caller removes the directory).
 */

#include "manifest/image-manifest.h"
#include "manifest/pod-manifest.h"
#include "cc/error.h"
#include "cc/warnings.h"
#include "stage1/flags.h"

/* One file of the pod's network configuration for the guest (stage1/net renders them). */
struct podlayer_net_file {
	const char *name;    /* a plain file name under etc/systemd/network */
	const char *content; /* the file's text */
};

struct podlayer_params {
	const struct pod_manifest *pod;
	/* images[i]: app i's image manifest or NULL, used only when the pod app has no app
	 * object (rkt always writes it); images may be NULL. */
	const struct image_manifest *const *images;
	const struct run_flags *flags;
	/* The pod's stage1/rootfs: apps at opt/stage2/<app>/rootfs, rkt's etc/rkt-hosts and
	 * etc/rkt-resolv.conf. */
	int stage1_rootfs_fd;
	/* The host's /etc, for --dns-conf-mode=...=host. */
	int host_etc_fd;
	/* Host address the guest reaches the metadata service on, or NULL (no network: then
	 * --mds-token only produces a warning and no AC_METADATA_URL). */
	const char *metadata_host;
	/* Pod networks (none for --net=none): systemd-networkd units, and resolv.conf built
	 * from the networks' DNS answers (NULL: they had none). */
	const struct podlayer_net_file *net_files;
	size_t n_net_files;
	const char *net_resolv_conf;
};

int podlayer_write(int layer_fd, const struct podlayer_params *p, struct cc_warnings *warnings,
		   struct cc_error *reterr);
