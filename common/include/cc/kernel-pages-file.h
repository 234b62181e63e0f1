/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The host-wide file of a guest kernel's pages that every VM of that kernel patches alike at
 * boot (docs/vmm.md, "Kernel pages shared between VMs"), and its filler: the only code that
 * writes it. VMMs get a read-only fd of it and a channel to a filler (kernel-pages-filler.c);
 * they map slots MAP_PRIVATE once they checked a slot holds their page's bytes
 * (hypervisor/src/density/kernel-pages.h).
 *
 * Layout, for a kernel file of R bytes rounded up to pages (a region): KERNEL_PAGES_VARIANTS
 * regions, page P of the kernel having its slot at offset P of each; then the fill map, one
 * byte per slot (region v, page P at v * R / 4096 + P), 0 while the slot was never filled.
 * A slot's bytes never change once its map byte is set: the filler writes an unset slot, then
 * its map byte, under the file's exclusive lock, and never writes a set one. Whether a slot is
 * filled is only ever read from the map, never from its bytes (a page may be all zero).
 */

#include <stdint.h>
#include <sys/types.h>

#define KERNEL_PAGES_VARIANTS 4u
#define KERNEL_PAGES_PAGE     4096u
/* The file's name is "vmlinux-<build ID>-<size>" + this: another layout, another file. */
#define KERNEL_PAGES_FILE_SUFFIX ".v2"

/* One fill request on the channel: a whole record per message (SOCK_SEQPACKET). */
struct kernel_pages_fill_req {
	uint32_t region; /* < KERNEL_PAGES_VARIANTS */
	uint32_t zero;	 /* must be 0 */
	uint64_t page;	 /* < the region's pages */
	uint8_t bytes[KERNEL_PAGES_PAGE];
};

/* The filler's answer to each request: 0 (filled), or -errno (-EEXIST: filled before). */
typedef int32_t kernel_pages_fill_ans;

/* The offsets of a slot and of its map byte, for a region of region bytes. */
static inline off_t kernel_pages_slot_off(uint64_t region, unsigned v, uint64_t page)
{
	return (off_t) (v * region + page * KERNEL_PAGES_PAGE);
}

static inline off_t kernel_pages_map_off(uint64_t region, unsigned v, uint64_t page)
{
	return (off_t) (KERNEL_PAGES_VARIANTS * region + v * (region / KERNEL_PAGES_PAGE) + page);
}

/*
 * The region size for a kernel file of size bytes (> 0), and the file's size: the regions and
 * the map, rounded up to a page. 0 when size is 0 or too large.
 */
uint64_t kernel_pages_region_size(uint64_t size);
uint64_t kernel_pages_file_size(uint64_t region);

/*
 * The file's path in dir for the kernel file open at kernel_fd: "vmlinux-<build ID>-<size>.v2"
 * (a kernel without a GNU build ID: "vmlinux-<size>-<mtime>.v2"). 0, -ENAMETOOLONG, -errno.
 */
int kernel_pages_file_path(const char *dir, int kernel_fd, char *buf, size_t size);

/*
 * Open (create, mode 0600) the file at path for a kernel file of kernel_size bytes: a regular
 * file, not a symlink, owned by this user and closed to others (-EPERM otherwise), grown to its
 * size when smaller. *ret_rw: open for writing (the filler's); *ret_ro: the same file opened
 * read-only through a read-only clone of its directory's mount (the VMM's: it cannot be opened
 * again for writing through /proc/self/fd; needs CAP_SYS_ADMIN). Both close-on-exec. 0 or -errno
 * (-EINVAL for a bad size, -EFBIG).
 */
int kernel_pages_file_open(const char *path, uint64_t kernel_size, int *ret_rw, int *ret_ro);

/*
 * Take the lock of the file open at fd (any mode), trying for timeout_ms: another filler holds
 * it for one fill. 0 or -ETIMEDOUT, -errno.
 */
int kernel_pages_file_lock(int fd, unsigned timeout_ms);

/*
 * Carry out one fill request of len bytes at rec on the file open for writing at rw_fd, whose
 * regions are region bytes: refused with -EINVAL for a record that is not exactly one request
 * (len) or names a region or page outside the file, -EEXIST for a slot filled before (its bytes
 * are left alone), -ETIMEDOUT when the lock was not had within lock_timeout_ms; -ENOSPC for a
 * short write (the slot is emptied again and stays unfilled). Writes nothing unless it returns 0.
 */
int kernel_pages_fill(int rw_fd, uint64_t region, const void *rec, size_t len,
		      unsigned lock_timeout_ms);
/* The same with the lock held by the caller (kernel_pages_file_lock()), for a run of fills. */
int kernel_pages_fill_held(int rw_fd, uint64_t region, const void *rec, size_t len);
