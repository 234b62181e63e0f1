/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The VMM's jail (docs/vmm.md, "Sandbox"; docs/stage1.md, "The VMM's jail"), built by run in
 * the VMM child between fork and exec, in the spirit of Firecracker's jailer:
 *
 *   run:   vmm_jail_trees_open(): every bind of the layout below as a detached mount (open_tree),
 *          read-only or nosuid; the four 9p exports idmapped (mount_setattr(MOUNT_ATTR_IDMAP))
 *          with the VMM's own map, so that the VMM sees their files' owners as the host has
 *          them while host uids 0-65535 themselves are not mapped into its namespace;
 *   run:   clone(VMM_JAIL_CLONE_FLAGS): the child is PID 1 of a PID namespace of its own, in new
 *          user, mount, network, IPC and UTS namespaces;
 *   run:   vmm_jail_map(child): ids 0-65535 of the child's user namespace are the host's
 *          VMM_JAIL_HOST_BASE.., its VMM_JAIL_NS_ID the VMM's own host uid/gid VMM_JAIL_HOST_ID;
 *   child: vmm_jail_enter(): a tmpfs root holding only those mounts, a procfs of its PID
 *          namespace (only the VMM), pivot_root into it with the old root detached; then the
 *          VMM's uid/gid and exactly the capabilities it keeps as ambient ones, so that they
 *          survive the exec of VMM_JAIL_VMM.
 *
 * The VMM then holds capabilities only in its user namespace: over the exports' inodes, seen
 * through their idmap, and over nothing else of the host's (an inode owned by host root, such
 * as the ones behind its stdio, tap and KVM fds, has an owner its namespace does not map). Its
 * host uid is no host user's, and nothing outside the jail is reachable: no fd is open on the
 * host's directories (run keeps the pod lock) and its procfs shows only itself.
 *
 * Where an export's filesystem cannot be idmapped (rkt's overlayfs app rootfs; tmpfs before
 * Linux 6.3), the host exports are plain binds and host ids 0-65535 are mapped as they are:
 * the VMM's capabilities then reach host root's inodes it holds (docs/threat-model.md, "What is
 * left"), and run says so. The pod's own exports (guest/rkt, guest/journal) are still idmapped
 * where their filesystem allows, so that nothing there is ever host root's.
 */

#include <linux/capability.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "volume-root.h"

#define VMM_JAIL_CLONE_FLAGS \
	(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS)
/* The VMM's uid and gid on the host: 0x7ff00000, in the range systemd leaves unused. */
#define VMM_JAIL_HOST_ID 2146435072u
/* ... and in its user namespace, right above ids 0..VMM_JAIL_NS_ID-1. */
#define VMM_JAIL_NS_ID 65536u
/* Host ids of the namespace's 0..VMM_JAIL_NS_ID-1 (idmapped), then of the volume owners'. */
#define VMM_JAIL_HOST_BASE  (VMM_JAIL_HOST_ID + VMM_JAIL_NS_ID)
#define VMM_JAIL_HOST_EXTRA (VMM_JAIL_HOST_BASE + VMM_JAIL_NS_ID)

/* What the VMM keeps across exec, in its own user namespace, until its sandbox drops it all: the
 * 9p set for read-write exports (docs/9p.md, "Capabilities"), which its 9p worker inherits and
 * keeps; CAP_SYS_ADMIN, with which it hides the exports from its own mount namespace once the
 * worker has them; CAP_SETPCAP, with which both empty their bounding sets. */
#define VMM_JAIL_CAPS                                                              \
	((1ull << CAP_CHOWN) | (1ull << CAP_DAC_OVERRIDE) | (1ull << CAP_FOWNER) | \
	 (1ull << CAP_FSETID) | (1ull << CAP_SYS_ADMIN) | (1ull << CAP_SETPCAP))

/* Paths inside the jail. The stage1 rootfs's own layout, so that machined (journalctl -M)
 * finds the pod's journal at /var/log/journal under the leader's root. */
#define VMM_JAIL_VMM	 "/cc/cc-vmm"
#define VMM_JAIL_KERNEL	 "/cc/vmlinux"
#define VMM_JAIL_IMAGE	 "/cc/guest.img"
#define VMM_JAIL_LAYER	 "/cc/layer"
#define VMM_JAIL_VM_DIR	 "/cc/vm"
#define VMM_JAIL_VSOCK	 VMM_JAIL_VM_DIR "/vsock"
#define VMM_JAIL_STAGE2	 "/opt/stage2"
#define VMM_JAIL_RKT	 "/rkt"
#define VMM_JAIL_JOURNAL "/var/log/journal"

/* The jail's mounts: the VMM's files, then the pod's directories (vmm-jail.c). */
#define VMM_JAIL_N_TREES 8

struct vmm_jail {
	/* Host paths of the files the VMM runs, boots and maps (bound read-only). */
	const char *vmm, *kernel, *image;
	uint64_t caps; /* what the VMM keeps across exec (1 << CAP_*), for its own sandbox */
	/* The host volumes' roots (--9p-hostvol): an owner above the identity-mapped ids is
	 * mapped as it is too, so that the VMM can give it guest root's files there. */
	const struct volume_root *hostvols;
	size_t n_hostvols;
	/* Set by vmm_jail_trees_open(): the detached mounts (-1: none), whether the exports are
	 * idmapped, and why not (a negative errno) when they are not. */
	int trees[VMM_JAIL_N_TREES];
	bool idmapped;	   /* the host exports: host root unmapped in the VMM's namespace */
	bool pod_idmapped; /* the pod's own exports (guest/rkt, guest/journal): never host root's */
	int idmap_error;
};

/* At most this many ids of volume owners beyond 0..VMM_JAIL_NS_ID-1 (the map fits a page). */
#define VMM_JAIL_EXTRA_IDS_MAX 64

/*
 * The uid map (gid false) or gid map of j's VMM into buf: ids 0-65535 (at VMM_JAIL_HOST_BASE
 * when j->idmapped, as they are otherwise), the VMM's own id, and one line per volume owner
 * beyond them (at VMM_JAIL_HOST_EXTRA.., or as it is). The exports' idmap is the same map, so
 * that the VMM sees every owner with its host number. Returns its length; -ERANGE for a volume
 * owned by the VMM's own id on the host or in its namespace (which the map cannot give that
 * owner), -E2BIG beyond VMM_JAIL_EXTRA_IDS_MAX owners or size.
 */
int vmm_jail_map_build(const struct vmm_jail *j, bool gid, char *buf, size_t size);

/*
 * run, in its own mount namespace, before the VMM child is cloned: j->trees from the pod dir
 * pod_fd and j's host paths, the exports idmapped when their filesystems allow it (else
 * j->idmapped is false, j->idmap_error why, and the caller warns). Returns 0 or a negative
 * errno, with every tree closed.
 */
int vmm_jail_trees_open(struct vmm_jail *j, int pod_fd);
void vmm_jail_trees_close(struct vmm_jail *j);

/* run: the child's uid and gid maps, before it goes on. */
int vmm_jail_map(pid_t child, const struct vmm_jail *j);

/* In the child, once mapped: build the jail from j->trees, enter it and become the VMM's
 * uid/gid. */
int vmm_jail_enter(const struct vmm_jail *j);

/*
 * Whether run jails the VMM: yes, unless $CC_STAGE1_VMM_JAIL is "0" (tests whose fake VMM is a
 * script, which needs a shell the jail does not have; the VMM then runs chrooted as before).
 */
bool vmm_jail_wanted(void);

/* run, in the pod dir: the VMM's directory POD_VM_DIR (0700, VMM_JAIL_HOST_ID's) and
 * POD_VSOCK_PATH linking into it. */
int vmm_jail_prepare_pod(int pod_fd);
