/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The pod's part of the kernel pages its VM shares with the host's other VMs (docs/vmm.md,
 * "Kernel pages shared between VMs"): `run` opens the host-wide file of the guest kernel and
 * starts its filler, outside the VMM and its jail, and hands the VMM only the file read-only
 * and a channel to the filler (cc-vmm --share-kernel-pages-fd RO,CHAN).
 */

#include <sys/types.h>

#include "cc/error.h"

/* All zero: nothing started. */
struct kernel_pages_share {
	pid_t filler; /* the filler, a child of the caller, or 0 */
	int fds[2];   /* for the VMM: the file read-only, the channel; valid while filler > 0 */
};

/*
 * Open or create the file for the kernel file at kernel in dir (a directory
 * kernel_pages_dir_prepare() checked) and start its filler (cc/kernel-pages-filler.h): ks->fds
 * close-on-exec. 0, or -errno with *reterr set and ks left all zero.
 */
int kernel_pages_share_start(const char *dir, const char *kernel, struct kernel_pages_share *ks,
			     struct cc_error *reterr);

/* Once the VMM runs with its own copies: close the caller's, so that the filler ends when the
 * VMM closes its end of the channel. */
void kernel_pages_share_fds_close(struct kernel_pages_share *ks);

/* Once the VMM has exited: close the fds, stop the filler (done, or nobody left to serve) and
 * reap it. */
void kernel_pages_share_end(struct kernel_pages_share *ks);
