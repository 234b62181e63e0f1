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
 * A host-wide file keeps one copy (cc/kernel-pages-file.h). It holds KERNEL_PAGES_VARIANTS
 * regions the size of the kernel file; page P of the kernel file has a slot at offset P in
 * each, and a byte in the file's fill map that says whether the slot was ever filled. For each
 * private page of a range of the kernel's mapping: the first region whose filled slot holds
 * the page's bytes, or whose slot was never filled, gets it; a slot never filled is first
 * filled with the page's bytes by the filler (cc/kernel-pages-filler.h), a process of its own
 * that alone holds the file open for writing: this side only has it read-only, and a channel
 * to send the filler its requests. Before it is mapped, the slot's bytes are read back and
 * compared with the page's. The page is then mapped MAP_PRIVATE from that slot: reads share
 * it, and the guest's next write takes a private copy again, as for the kernel file itself. A
 * page whose bytes differ from every filled slot stays as it is. Regions let a few
 * configurations of one kernel (vCPU counts, kernel options, CPU models) share in turn. A page
 * that is all zero in the kernel file is left alone: padding the kernel frees at boot (between
 * its text and read-only data), whose bytes are whatever the guest put there since.
 *
 * Safety does not depend on the file's contents, nor on this side behaving: a page is only
 * ever mapped onto a filled slot that holds its own bytes, and a filled slot never changes
 * (the filler writes each once, under the file's lock, and nothing else can write it), so a
 * slot that a private mapping has not written keeps showing the bytes that were compared. A
 * VMM that a guest takes over holds no writable handle on the file: the most it can do, while
 * its channel is open, is fill slots never filled with bytes no other VM's page has, which
 * only stops those slots from being shared. The caller closes the file and the channel
 * (kernel_pages_free) before the guest runs code that is not the host's: from the kernel's
 * boot to its first user process (docs/vmm.md, "Kernel pages shared between VMs").
 *
 * The bytes shared are those of the kernel file as this host's CPU and KVM make the kernel
 * patch it: nothing a pod keeps secret. Only correct while nothing writes the range: the
 * caller pauses every vCPU.
 */

#include <stdbool.h>
#include <stdint.h>

#include "cc/kernel-pages-file.h"

struct kernel_pages;

struct kernel_pages_stats {
	uint64_t private_pages; /* private pages looked at */
	uint64_t shared;	/* mapped onto a slot */
	uint64_t filled;	/* of those, onto a slot they filled */
	uint64_t differed;	/* bytes of their own: every region's slot held others */
	uint64_t padding;	/* all zero in the kernel file: left alone */
	uint64_t refused;	/* fill requests the filler refused (then no more are sent) */
};

/*
 * Take over ro_fd, the host-wide file for the kernel file open at kernel_fd (mapped read-only;
 * that fd stays the caller's), and chan_fd, a SOCK_SEQPACKET channel to its filler (or -1: no
 * fills, only slots filled before are used). Both are closed by kernel_pages_free(), or here
 * on error. ro_fd must be open read-only (-EPERM otherwise: this side never holds the file
 * open for writing), a regular file at least the size of the layout for this kernel (-EINVAL);
 * chan_fd a SOCK_SEQPACKET socket (-ENOTSOCK, -EPROTOTYPE). mergeable: give the pages it maps
 * MADV_MERGEABLE, as the kernel's mapping had (KSM on request). -errno (-EINVAL: a bad
 * argument or an empty kernel file, -EFBIG: too large).
 */
int kernel_pages_open(int ro_fd, int chan_fd, int kernel_fd, bool mergeable,
		      struct kernel_pages **ret);
/* Close the file and the channel (the filler then exits). The pages mapped stay mapped. */
void kernel_pages_free(struct kernel_pages *kp);

/*
 * Share the private pages of [hva, hva + len), which maps the kernel file's bytes from
 * file_off on MAP_PRIVATE (all page-aligned), as above; counts add to *stats. 0, or -errno:
 * -EINVAL for a range outside the kernel file, -EIO (only then) when a page could not be put
 * back after a failed mmap() (that guest page is lost: the VM must stop). A failed or short
 * read of the files leaves the page as it was and returns -errno (-ENODATA when short). A fill
 * the filler refused, or that got no answer in time, leaves the page as it was and sends no
 * more requests (stats->refused); an answer not had within the filler's lock wait and a
 * second closes the channel.
 */
int kernel_pages_share(struct kernel_pages *kp, void *hva, uint64_t file_off, uint64_t len,
		       struct kernel_pages_stats *stats);
