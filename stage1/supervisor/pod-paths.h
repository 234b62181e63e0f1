/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Paths relative to the pod dir (the cwd of every entrypoint), as rkt 1.30 lays it out
 * (docs/stage1-contract.md b.1-b.3) plus our own files under cc/.
 */

#define POD_MANIFEST_PATH "pod"
#define POD_APPSINFO_DIR  "appsinfo"
#define POD_PID_PATH	  "pid"
#define POD_STAGE1_ROOTFS "stage1/rootfs"
#define POD_STAGE2_DIR	  POD_STAGE1_ROOTFS "/opt/stage2"
#define POD_RKT_DIR	  POD_STAGE1_ROOTFS "/rkt"
/* rkt reads status/<app> as root, following links: only run writes there. */
#define POD_STATUS_DIR POD_RKT_DIR "/status"
/*
 * What only the pod writes: root's alone (0700) and in no share itself, so that nothing the
 * guest (or its VMM) leaves below it is reachable by another host user; beside the stage1
 * rootfs, which rkt may make an overlayfs (the VMM's jail idmaps these exports, vmm-jail.h).
 */
#define POD_GUEST_DIR "guest"
/*
 * The guest's /rkt (the cc-rkt share): cc-app-exit writes status/<app> and cc-pod-exit here;
 * run copies valid codes to POD_STATUS_DIR (status-mirror.h). rkt reads nothing under it.
 */
#define POD_GUEST_RKT_DIR    POD_GUEST_DIR "/rkt"
#define POD_GUEST_STATUS_DIR POD_GUEST_RKT_DIR "/status"
#define POD_EXIT_PATH	     POD_GUEST_RKT_DIR "/cc-pod-exit"
#define POD_JOURNAL_DIR	     POD_GUEST_DIR "/journal"
#define POD_CC_DIR	     "cc"
#define POD_LAYER_DIR	     POD_CC_DIR "/layer"
#define POD_VSOCK_PATH	     POD_CC_DIR "/vsock"
#define POD_TIMINGS_PATH     POD_CC_DIR "/timings"

/* The jailed VMM's directory (vmm-jail.h): its vsock socket, which POD_VSOCK_PATH links to. */
#define POD_VM_DIR   POD_CC_DIR "/vm"
#define POD_VM_VSOCK POD_VM_DIR "/vsock"

/* The stage1's own files, shipped in the ACI as /cc/... */
#define POD_STAGE1_CC_DIR POD_STAGE1_ROOTFS "/cc"
#define POD_STAGE1_VMM	  POD_STAGE1_CC_DIR "/cc-vmm"
#define POD_STAGE1_KERNEL POD_STAGE1_CC_DIR "/vmlinux"
#define POD_STAGE1_IMAGE  POD_STAGE1_CC_DIR "/guest.img"

/* Format of an app's rootfs and image manifest paths (one %s: the app name). */
#define POD_APP_ROOTFS_FMT   POD_STAGE2_DIR "/%s/rootfs"
#define POD_APP_MANIFEST_FMT POD_APPSINFO_DIR "/%s/manifest"
