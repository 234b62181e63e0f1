/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc/cleanup.h"
#include "pod-paths.h"
#include "vmm-argv.h"
#include "vmm-jail.h"

#define VMM_ARGV_MAX 64

bool vmm_machine_id_valid(const char *s)
{
	if (!s || strlen(s) != 32)
		return false;
	for (int i = 0; i < 32; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

char **vmm_argv_free(char **argv)
{
	for (char **p = argv; p && *p; p++)
		free(*p);
	free(argv);
	return NULL;
}

struct argv_builder {
	char **v;
	size_t n, cap; /* cap includes the NULL */
	int err;
};

static void add(struct argv_builder *b, const char *fmt, ...) _printf_(2, 3);
static void add(struct argv_builder *b, const char *fmt, ...)
{
	va_list ap;

	if (b->err < 0)
		return;
	if (b->n + 1 >= b->cap) {
		b->err = -E2BIG;
		return;
	}
	va_start(ap, fmt);
	if (vasprintf(&b->v[b->n], fmt, ap) < 0) {
		b->v[b->n] = NULL;
		b->err = -ENOMEM;
	} else
		b->n++;
	va_end(ap);
}

/*
 * Guest kernel options for density (docs/benchmarks.md, "Pod density", each measured alone;
 * cgroup.memory=nokmem and slub_sysfs=off were two more until the guest kernel took SLOB, which
 * has neither kernel-memory accounting in cgroups nor /sys/kernel/slab):
 *   noreplace-smp         a 1-vCPU guest keeps the kernel's LOCK prefixes instead of
 *                         rewriting every one, so those text pages stay shared with the file
 *                         and with other pods (-1.6 MB of private vmlinux copies per pod);
 *   sysctl.vm.percpu_pagelist_high_fraction=GUEST_PCP_HIGH_FRACTION
 *                         each vCPU's list of free pages holds 4 batches (28 pages on a
 *                         128 MiB VM) instead of up to 416: pages in those lists are in no
 *                         counter and never reported free, so they stayed in the VMM's RSS
 *                         (-0.8 MB per pod). The fraction is that large so that the kernel's
 *                         floor, 4 batches, is what applies whatever the VM's size;
 *   memmap_lru_zero=1     the struct pages of free memory the guest has never used, and of
 *                         the memory it reserved at boot (its image, the memmap), have the
 *                         same bytes (a patch of ours), so the memmap pages that hold only such
 *                         struct pages repeat, and --merge-pages keeps one copy of them;
 *   orc_lookup=lazy       the kernel builds no table for its stack unwinder at boot (a patch
 *                         of ours): the fill read all of .orc_unwind_ip and wrote .orc_lookup
 *                         in every VM; an unwind (an oops, a WARN) searches the whole table;
 *   iomap_ioend_pool=1    iomap's write-back keeps one bio in reserve instead of 32 (a patch of
 *                         ours): no file system of the guest writes back through iomap, and
 *                         one still guarantees forward progress (-0.13 MB of slab per pod);
 *   dhash_entries=, ihash_entries=
 *                         the dentry and inode hash tables get a bucket per 32 and per 64 KiB
 *                         of the VM's RAM (GUEST_DHASH_KIB, GUEST_IHASH_KIB) instead of per 8
 *                         and 16: each cached dentry and inode is linked into a bucket, so an
 *                         idle pod had written every page of both tables (4,096 and 2,048
 *                         buckets on a 128 MiB VM: -0.14 MB per pod). A pod's RAM is mostly
 *                         its apps' own memory, not cached files, and a chain of a few
 *                         dentries costs a lookup little;
 *   dax_wait_table_bits=8 DAX waiters hash into 256 wait queue heads instead of 4,096 (a patch
 *                         of ours): the kernel writes every head of the table at boot, so its
 *                         96 KiB were private to each VM; 256 is the folio wait table's size;
 *   stack_end_magic=0     a new task's zeroed kernel stack gets no magic word at its end (a
 *                         patch of ours), so the stack pages an idle task never reaches stay
 *                         zero and the zero sweep takes all of them back, one page more per
 *                         task; an oops no longer says a stack overflowed;
 * and, in rootflags, inode_readahead_blks=0: ext4 reads an inode's own table block, not the 32
 *                         around it. Those copies of the DAX root's inode table were most of
 *                         the guest's Buffers (0.9 -> 0.3 MB per pod); a block read from pmem
 *                         is a memory copy, so readahead gains nothing there.
 */
#define GUEST_PCP_HIGH_FRACTION "1000000"
#define GUEST_DENSITY_PARAMS                                                                 \
	"noreplace-smp sysctl.vm.percpu_pagelist_high_fraction=" GUEST_PCP_HIGH_FRACTION " " \
	"memmap_lru_zero=1 orc_lookup=lazy iomap_ioend_pool=1 dax_wait_table_bits=8 "        \
	"stack_end_magic=0"
#define GUEST_ROOT_FLAGS "dax,inode_readahead_blks=0"
#define GUEST_DHASH_KIB	 32
#define GUEST_IHASH_KIB	 64

/*
 * reboot=k panic=-1: the guest ends its VM by resetting through the keyboard controller, and a
 * kernel panic (also PID 1 exiting, e.g. cc-init failing to assemble the root) does so at once:
 * the VMM exits, and run reports the VM ended without a pod exit status. Without panic=, a
 * panicked guest spins on its vCPU for ever and the pod never ends.
 * systemd.crash_reboot=1: the same for a crash of systemd itself (PID 1 catching SIGSEGV,
 * SIGABRT, ...), which otherwise freezes PID 1 and leaves the pod up, its apps unsupervised;
 * systemd reboots 10 s after the crash.
 */
static int cmdline_build(const struct vmm_config *c, char **ret)
{
	int r;

	r = asprintf(ret,
		     "console=hvc0 root=/dev/pmem0 rootflags=" GUEST_ROOT_FLAGS
		     " ro init=/sbin/cc-init cc.pod=cc-layer "
		     "cc.mount=cc-stage2:/opt/stage2 cc.mount=cc-rkt:/rkt "
		     "cc.mount=cc-journal:/var/log/journal reboot=k panic=-1 "
		     "systemd.crash_reboot=1 rootwait " GUEST_DENSITY_PARAMS
		     " dhash_entries=%llu ihash_entries=%llu systemd.machine_id=%s %s%s%s",
		     (unsigned long long) c->mem_mib * 1024 / GUEST_DHASH_KIB,
		     (unsigned long long) c->mem_mib * 1024 / GUEST_IHASH_KIB, c->machine_id,
		     c->debug ? "debug systemd.log_level=debug"
			      : "quiet loglevel=1 systemd.show_status=false "
				"systemd.log_level=warning",
		     c->extra_kernel_params && *c->extra_kernel_params ? " " : "",
		     c->extra_kernel_params ? c->extra_kernel_params : "");
	return r < 0 ? -ENOMEM : 0;
}

int vmm_argv_build(const struct vmm_config *c, char ***ret)
{
	_cleanup_(vmm_argv_freep) char **v = NULL;
	_cleanup_free_ char *cmdline = NULL;
	struct argv_builder b = {};
	const char *d;
	int r;

	assert_return(c && ret && c->vmm && c->kernel && c->image && c->pod_dir, -EINVAL);
	if (!vmm_machine_id_valid(c->machine_id) || c->mem_mib == 0 || c->cpus == 0 ||
	    c->pod_dir[0] != '/')
		return -EINVAL;
	d = c->pod_dir;
	r = cmdline_build(c, &cmdline);
	if (r < 0)
		return r;
	if (c->n_hostvols > (SIZE_MAX / sizeof(char *) - VMM_ARGV_MAX) / 2)
		return -E2BIG;
	b.cap = VMM_ARGV_MAX + 2 * c->n_hostvols;
	v = calloc(b.cap, sizeof(char *));
	if (!v)
		return -ENOMEM;
	b.v = v;

	add(&b, "%s", c->jail ? VMM_JAIL_VMM : c->vmm);
	add(&b, "--kernel");
	add(&b, "%s", c->jail ? VMM_JAIL_KERNEL : c->kernel);
	add(&b, "--pmem");
	add(&b, "%s", c->jail ? VMM_JAIL_IMAGE : c->image);
	if (c->jail) {
		add(&b, "--kvm-fd");
		add(&b, "%d", c->kvm_fd);
	}
	add(&b, "--mem");
	add(&b, "%llu", (unsigned long long) c->mem_mib);
	add(&b, "--cpus");
	add(&b, "%u", c->cpus);
	add(&b, "--rng");
	/* Free page reporting: memory the guest frees goes back to the host (docs/devices.md). */
	add(&b, "--balloon");
	/* Pages the guest keeps but left all zero (hash tables, stacks) go back too (docs/vmm.md,
	 * "The zero sweep"). */
	add(&b, "--zero-sweep");
	/* In the same sweep, the pages that repeat many times (the struct page array of the DAX
	 * image's range) are mapped onto one copy each (docs/vmm.md, "Merging repeated pages"). */
	add(&b, "--merge-pages");
	/* KSM only when the pod asks (clear-containers/ksm=true): merging pages across pods is
	 * a cross-VM side channel (docs/stage1.md, "Pod options"). */
	if (c->ksm)
		add(&b, "--ksm");
	/* The kernel's pages every VM patches alike at boot: one copy for all the host's pods
	 * (docs/vmm.md, "Kernel pages shared between VMs"). */
	if (c->kernel_pages_fds) {
		add(&b, "--share-kernel-pages-fd");
		add(&b, "%d,%d", c->kernel_pages_fds[0], c->kernel_pages_fds[1]);
	}
	/* The jail lays the shares out as the stage1 rootfs has them; its bind mounts keep the
	 * host's dev and inode numbers, which --9p-hostvol names. */
	add(&b, "--9p");
	if (c->jail)
		add(&b, "cc-layer:" VMM_JAIL_LAYER ",ro");
	else
		add(&b, "cc-layer:%s/" POD_LAYER_DIR ",ro", d);
	add(&b, "--9p");
	if (c->jail)
		add(&b, "cc-stage2:" VMM_JAIL_STAGE2);
	else
		add(&b, "cc-stage2:%s/" POD_STAGE2_DIR, d);
	/* Host volumes are bound inside the apps' rootfs: no setuid files, no root's (docs/9p.md).
	 */
	for (size_t i = 0; i < c->n_hostvols; i++) {
		const struct volume_root *h = &c->hostvols[i];

		add(&b, "--9p-hostvol");
		add(&b, "cc-stage2:%" PRIu64 ":%" PRIu64 ":%" PRIu32 ":%" PRIu32, h->dev, h->ino,
		    h->uid, h->gid);
	}
	/* Reachable by rkt's group (rkt status): the host-volume policy on the whole share. */
	add(&b, "--9p");
	if (c->jail)
		add(&b, "cc-rkt:" VMM_JAIL_RKT);
	else
		add(&b, "cc-rkt:%s/" POD_GUEST_RKT_DIR, d);
	add(&b, "--9p-hostvol");
	add(&b, "cc-rkt");
	add(&b, "--9p");
	if (c->jail)
		add(&b, "cc-journal:" VMM_JAIL_JOURNAL);
	else
		add(&b, "cc-journal:%s/" POD_JOURNAL_DIR, d);
	add(&b, "--9p-hostvol");
	add(&b, "cc-journal");
	/* machined's journalctl -M reads it through the leader's (the VMM's) root; the other
	 * shares the VMM covers once its 9p worker has them. */
	add(&b, "--9p-visible");
	add(&b, "cc-journal");
	if (c->jail) {
		add(&b, "--vsock");
		add(&b, "%d:" VMM_JAIL_VSOCK, VMM_GUEST_CID);
		goto nets;
	}
	/* The pod's machine (systemd-machined) has the stage1 rootfs as its root, as with nspawn.
	 */
	add(&b, "--chroot");
	add(&b, "%s/" POD_STAGE1_ROOTFS, d);
	add(&b, "--vsock");
	/* The VMM runs in the pod dir: fall back to the relative path when the absolute is long. */
	if (strlen(d) + sizeof("/" POD_VSOCK_PATH) - 1 <= VMM_VSOCK_PATH_MAX)
		add(&b, "%d:%s/" POD_VSOCK_PATH, VMM_GUEST_CID, d);
	else
		add(&b, "%d:" POD_VSOCK_PATH, VMM_GUEST_CID);
nets:
	for (const char *const *n = c->nets; n && *n; n++) {
		add(&b, "--net");
		add(&b, "%s", *n);
	}
	if (c->debug)
		add(&b, "-v");
	add(&b, "--cmdline");
	add(&b, "%s", cmdline);
	if (b.err < 0)
		return b.err;
	*ret = TAKE_PTR(v);
	return 0;
}
