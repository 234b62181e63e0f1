/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The host volumes' roots as run bound them, for the VMM's 9p server (cc-vmm --9p-hostvol,
 * docs/9p.md "Host volumes"): beneath each, the guest gets no setuid or setgid file and no
 * root-owned node unless the root is root's. Taken with fstat() of the very descriptor that was
 * cloned into the app's rootfs, so a source path swapped in between cannot misname it.
 */

#include <stddef.h>
#include <stdint.h>

struct volume_root {
	uint64_t dev, ino;
	uint32_t uid, gid; /* the root's owner: what guest root's new nodes there belong to */
};

struct volume_roots {
	struct volume_root *v; /* each dev:ino once */
	size_t n;
};

void volume_roots_done(struct volume_roots *r);
