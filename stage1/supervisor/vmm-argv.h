/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The cc-vmm command line of a pod (docs/stage1.md, "Lifecycle"): kernel, DAX guest image,
 * size, rng, the three 9p shares (pod layer read-only, the apps' rootfs, rkt's status dir)
 * and the host volumes inside the apps' rootfs share (--9p-hostvol),
 * vsock, one virtio-net per pod NIC (tap fds), and the guest kernel command line (quiet unless
 * debug, plus $RKT_HYPERVISOR_EXTRA_KERNEL_PARAMS).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "volume-root.h"

/* cc-vmm's limit on the vsock socket path (sun_path minus the "_<port>" suffixes). */
#define VMM_VSOCK_PATH_MAX 96
#define VMM_GUEST_CID	   3

struct vmm_config {
	const char *vmm;	/* cc-vmm binary */
	const char *kernel;	/* vmlinux */
	const char *image;	/* guest.img (DAX pmem root) */
	const char *pod_dir;	/* absolute */
	const char *machine_id; /* systemd.machine_id=: 32 lower-case hex digits */
	uint64_t mem_mib;
	unsigned cpus;
	bool debug;
	bool ksm;			 /* --ksm: only when the pod asks (pod-options.h) */
	const char *extra_kernel_params; /* NULL or "" for none */
	/* The kernel pages file read-only and the channel to its filler, for
	 * --share-kernel-pages-fd (kernel-pages-share.h), or NULL: not shared. */
	const int *kernel_pages_fds;
	/* NULL-terminated `--net` values ("fd=N,mac=..", one per pod NIC), or NULL for none. */
	const char *const *nets;
	/*
	 * The VMM runs in its jail (vmm-jail.h): argv names the VMM's files by their paths in the
	 * jail, KVM is the inherited kvm_fd, and no --chroot. Otherwise host paths, --chroot.
	 */
	bool jail;
	int kvm_fd;
	/* The host volumes' roots in the cc-stage2 share: one --9p-hostvol each. */
	const struct volume_root *hostvols;
	size_t n_hostvols;
};

/* Whether s is a machine ID: 32 lower-case hex digits. */
bool vmm_machine_id_valid(const char *s);

/*
 * Build the argv (NULL-terminated, argv[0] = c->vmm; free with vmm_argv_free()). -EINVAL for
 * a bad machine ID, a zero size, or a relative pod dir.
 */
int vmm_argv_build(const struct vmm_config *c, char ***ret);
char **vmm_argv_free(char **argv);
static inline void vmm_argv_freep(char ***p)
{
	*p = vmm_argv_free(*p);
}
