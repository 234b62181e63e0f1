/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Root assembly for the guest init stage (design.md §1.4):
 *
 *	base   the read-only base image (the root the kernel mounted: DAX pmem or virtio-blk)
 *	pod    the pod layer shared from the host over 9p (optional)
 *	upper  a tmpfs, where every write of the pod lands
 *
 * joined by overlayfs, pod above base. Everything is built under a scratch directory of
 * the base root (a tmpfs mounted there), then the new root replaces the old one.
 */

/* Mount options of the 9p pod layer: virtio transport, 9P2000.L, large messages; the
 * layer is read-only, so the client may cache freely and checks permissions itself. */
#define ROOT_POD_9P_OPTIONS "trans=virtio,version=9p2000.L,msize=262144,cache=loose,access=client"

/* Mount options of the cc.mount shares (read-write, shared live with the host and other
 * VMs' views: cache=mmap keeps no page cache beyond what mmap needs; 512 KiB is the VMM's
 * msize cap, see docs/9p.md). */
#define ROOT_MOUNT_9P_OPTIONS "trans=virtio,version=9p2000.L,msize=524288,cache=mmap,access=client"

struct cmdline_mount;

struct root_layout {
	/* Directory in which the scratch tmpfs is mounted, e.g. "/run". */
	const char *scratch;
	/* The base layer, e.g. "/": bind-mounted read-only into the scratch tmpfs. */
	const char *base;
	/* 9p tag of the pod layer, or NULL for none. */
	const char *pod_tag;
	/* cc.mount shares, mounted read-write at their path inside the assembled root. */
	const struct cmdline_mount *mounts;
	size_t n_mounts;
};

/* Mount proc, sysfs and devtmpfs on /proc, /sys and /dev unless something is mounted there. */
int root_mount_api(void);

/*
 * Build the layered root described by l, then mount each l->mounts share at its path inside
 * it (missing directories are created in the upper layer; a symlink on the way is refused),
 * and add the accounts of the apps' numeric users and groups (users.h). Returns
 * 0 and the path of the assembled root (inside the scratch tmpfs) in *ret_root, or a negative
 * errno. Nothing is undone on failure: init cannot continue anyway, and what was mounted helps
 * debugging.
 */
int root_assemble(const struct root_layout *l, char **ret_root);

/* Move /proc, /sys and /dev into new_root and make new_root the root directory. */
int root_switch(const char *new_root);
