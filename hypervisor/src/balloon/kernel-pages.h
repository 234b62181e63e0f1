/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The pages of the guest kernel's image that every VM writes the same way at boot, shared
 * between the VMs of a host.
 *
 * The VMM maps the kernel file MAP_PRIVATE over guest RAM (loader/kernel.h), so a page stays
 * the host's page cache, shared by every VM, until the guest writes it. At boot the kernel
 * rewrites ~100 pages of its text (alternatives, paravirt calls, static calls, the NOPs it
 * optimises) and some of its read-only-after-init data: on a host, every VM of that kernel
 * ends up with the same bytes there, each in a private copy.
 *
 * A host-wide file keeps one copy. It holds KERNEL_PAGES_VARIANTS regions the size of the
 * kernel file; page P of the kernel file has a slot at offset P in each. For each private page
 * of a range of the kernel's mapping: the first region whose slot holds the page's bytes, or
 * is empty (all zero: a kernel page never is), gets it; an empty slot is filled with the
 * page's bytes first. The page is then mapped MAP_PRIVATE from that slot: reads share it, and
 * the guest's next write takes a private copy again, as for the kernel file itself. A page
 * whose bytes differ from every filled slot stays as it is. Regions let a few configurations
 * of one kernel (vCPU counts, kernel options, CPU models) share in turn. A page that is all
 * zero in the kernel file is left alone: padding the kernel frees at boot (between its text
 * and read-only data), whose bytes are whatever the guest put there since.
 *
 * Safety does not depend on the file's contents: a page is only ever mapped onto a slot that
 * holds its own bytes at that moment. It depends on a slot never changing once filled, since
 * a private mapping that has not been written sees the file's bytes. So only the fill writes,
 * each slot once, under an exclusive lock of the whole file; and the caller closes the file
 * (kernel_pages_free) before the guest runs code that is not the host's: from the kernel's
 * boot to its first user process (docs/vmm.md, "Kernel pages shared between VMs").
 *
 * The bytes shared are those of the kernel file as this host's CPU and KVM make the kernel
 * patch it: nothing a pod keeps secret. Only correct while nothing writes the range: the
 * caller pauses every vCPU.
 */

#include <stdbool.h>
#include <stdint.h>

#define KERNEL_PAGES_VARIANTS 4u

struct kernel_pages;

struct kernel_pages_stats {
	uint64_t private_pages; /* private pages looked at */
	uint64_t shared;	/* mapped onto a slot */
	uint64_t filled;	/* of those, onto a slot they filled */
	uint64_t differed;	/* bytes of their own: every region's slot held others */
	uint64_t padding;	/* all zero in the kernel file: left alone */
};

/*
 * Open (create, mode 0600) the file path for the kernel file open at kernel_fd (mapped
 * read-only; the fd stays the caller's): a regular file, not a symlink, owned by this user and
 * closed to others; it grows
 * to KERNEL_PAGES_VARIANTS x the kernel file's size (rounded up to pages) when smaller.
 * mergeable: give the pages it maps MADV_MERGEABLE, as the kernel's mapping had (KSM on
 * request). -errno (-EPERM: not ours or open to others, -EINVAL: a bad argument or an empty
 * kernel file, -EFBIG: too large).
 */
int kernel_pages_open(const char *path, int kernel_fd, bool mergeable, struct kernel_pages **ret);
/* Close the file. The pages mapped from it stay mapped. */
void kernel_pages_free(struct kernel_pages *kp);

/*
 * Take and drop the file's exclusive lock, around the ranges of one VM. Another VMM holds it
 * for as long as its own share takes; one that stopped (a frozen or hostile VMM) must not hang
 * every other VM of the kernel, so the wait is bounded: -ETIMEDOUT after timeout_ms.
 */
int kernel_pages_lock(struct kernel_pages *kp, unsigned timeout_ms);
void kernel_pages_unlock(struct kernel_pages *kp);

/*
 * Share the private pages of [hva, hva + len), which maps the kernel file's bytes from
 * file_off on MAP_PRIVATE (all page-aligned), as above; counts add to *stats. 0, or -errno:
 * -EINVAL for a range outside the kernel file, -EIO (only then) when a page could not be put
 * back after a failed mmap() (that guest page is lost: the VM must stop). A failed or short
 * read or write of the files leaves the page as it was and returns -errno (-ENODATA, -ENOSPC
 * when short).
 */
int kernel_pages_share(struct kernel_pages *kp, void *hva, uint64_t file_off, uint64_t len,
		       struct kernel_pages_stats *stats);
