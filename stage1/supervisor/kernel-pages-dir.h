/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The host-wide directory through which the VMMs of all pods share the guest kernel's pages
 * that each VM patches alike at boot (cc-vmm --share-kernel-pages; docs/vmm.md, "Kernel pages
 * shared between VMs"). It holds one file per kernel, under /run: gone at the host's reboot.
 */

#include "cc/error.h"

#define KERNEL_PAGES_DIR_DEFAULT "/run/clear-containers/kernel-pages"

/*
 * Make path (its missing parents 0755, itself 0700; no component through a symlink:
 * layer_mkdir_p()) and check that it is a directory that only this user can enter and owns.
 * 0, or -errno with *reterr set: -ENOTDIR, -EPERM (not ours, or open to others), or what
 * mkdir() and open() returned.
 */
int kernel_pages_dir_prepare(const char *path, struct cc_error *reterr);
