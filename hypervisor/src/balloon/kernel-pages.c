/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "balloon/balloon-map.h"
#include "balloon/kernel-pages.h"
#include "balloon/zero-pages.h"
#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "cc/macro.h"

#define PAGE BALLOON_PAGE_SIZE

/* /proc/self/pagemap entry bits (Documentation/admin-guide/mm/pagemap.rst). */
#define PAGEMAP_PRESENT (1ull << 63)
#define PAGEMAP_FILE	(1ull << 61) /* the file's page: not written by this VM */

/* Pagemap entries read at a time. */
#define KERNEL_PAGES_BATCH 512u
/* Between two tries of the file's lock. */
#define KERNEL_PAGES_LOCK_STEP_MS 2u

struct kernel_pages {
	int fd;
	const uint8_t *kernel; /* the kernel file, mapped read-only: region bytes */
	int pagemap_fd;
	uint64_t region; /* bytes of one region: the kernel file's size, in pages */
	bool mergeable;
	/* A page's bytes and a slot's, while one page is looked at; the region picked for each
	 * page of a batch (-1: none). */
	alignas(8) uint8_t own[PAGE];
	alignas(8) uint8_t slot[PAGE];
	int8_t pick[KERNEL_PAGES_BATCH];
};

void kernel_pages_free(struct kernel_pages *kp)
{
	if (!kp)
		return;
	(void) safe_close(kp->fd);
	if (kp->kernel)
		(void) munmap((void *) kp->kernel, kp->region);
	(void) safe_close(kp->pagemap_fd);
	free(kp);
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct kernel_pages *, kernel_pages_free);

int kernel_pages_open(const char *path, int kernel_fd, bool mergeable, struct kernel_pages **ret)
{
	_cleanup_(kernel_pages_freep) struct kernel_pages *kp = NULL;
	struct stat st;
	uint64_t size;
	void *p;

	assert_return(path && kernel_fd >= 0 && ret, -EINVAL);
	if (fstat(kernel_fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_size <= 0)
		return -EINVAL;
	if ((uint64_t) st.st_size > (UINT64_MAX / 2) / KERNEL_PAGES_VARIANTS)
		return -EFBIG;
	kp = calloc(1, sizeof(*kp));
	if (!kp)
		return -ENOMEM;
	kp->fd = kp->pagemap_fd = -1;
	kp->region = ALIGN_UP((uint64_t) st.st_size, PAGE);
	/* Its bytes are looked at without a system call a page: the pause is the guest's. */
	p = mmap(NULL, kp->region, PROT_READ, MAP_SHARED, kernel_fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	kp->kernel = p;
	kp->mergeable = mergeable;
	kp->fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (kp->fd < 0)
		return -errno;
	if (fstat(kp->fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 0077))
		return -EPERM;
	size = kp->region * KERNEL_PAGES_VARIANTS;
	if ((uint64_t) st.st_size < size && ftruncate(kp->fd, (off_t) size) < 0)
		return -errno;
	kp->pagemap_fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (kp->pagemap_fd < 0)
		return -errno;
	*ret = TAKE_PTR(kp);
	return 0;
}

int kernel_pages_lock(struct kernel_pages *kp, unsigned timeout_ms)
{
	const struct timespec step = {.tv_nsec = KERNEL_PAGES_LOCK_STEP_MS * 1000000L};
	unsigned waited = 0;

	for (;;) {
		if (flock(kp->fd, LOCK_EX | LOCK_NB) == 0)
			return 0;
		if (errno != EWOULDBLOCK && errno != EINTR)
			return -errno;
		if (waited >= timeout_ms)
			return -ETIMEDOUT;
		(void) nanosleep(&step, NULL);
		waited += KERNEL_PAGES_LOCK_STEP_MS;
	}
}

void kernel_pages_unlock(struct kernel_pages *kp)
{
	(void) flock(kp->fd, LOCK_UN);
}

/* The advice the kernel's mapping had: a new mapping starts without it. */
static void kernel_pages_advise(const struct kernel_pages *kp, uint8_t *page, uint64_t n)
{
	(void) madvise(page, n * PAGE, MADV_NOHUGEPAGE);
	if (kp->mergeable)
		(void) madvise(page, n * PAGE, MADV_MERGEABLE);
}

/*
 * Put anonymous memory back at [page, page + n pages) after a failed mmap() there (it may have
 * unmapped them first), with each page's bytes from its slot at off on, which held them.
 * -EIO when that fails too: those guest pages are lost.
 */
static int kernel_pages_restore(const struct kernel_pages *kp, uint8_t *page, off_t off, uint64_t n)
{
	void *p = mmap(page, n * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);

	if (p != page || pread_exact(kp->fd, page, n * PAGE, off) < 0)
		return -EIO;
	kernel_pages_advise(kp, page, n);
	return 0;
}

/*
 * Map the run of n pages at page onto the slots from off on, which hold their bytes (checked
 * under the lock, which the caller still holds: no slot has changed since). One mmap() for the
 * run: each is one change of the guest's memory map for KVM to follow. 0, or -EIO when a
 * failed mmap() could not be undone (restore).
 */
static int kernel_pages_map(const struct kernel_pages *kp, uint8_t *page, off_t off, uint64_t n,
			    struct kernel_pages_stats *stats)
{
	void *p =
		mmap(page, n * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, kp->fd, off);

	if (p == page) {
		kernel_pages_advise(kp, page, n);
		stats->shared += n;
		return 0;
	}
	return kernel_pages_restore(kp, page, off, n);
}

/*
 * Which region's slot one private page at file offset file_off goes to: its index, or
 * KERNEL_PAGES_VARIANTS when none (padding, bytes of their own, a zero page). An empty slot is
 * filled here. -errno.
 */
static int kernel_pages_pick(struct kernel_pages *kp, const uint8_t *page, uint64_t file_off,
			     struct kernel_pages_stats *stats)
{
	uint8_t *own = kp->own, *slot = kp->slot;
	ssize_t n;
	int r;

	/* The kernel file's own page (the last one reads zeroes after the file's end). */
	if (zero_page_check(kp->kernel + file_off)) {
		stats->padding++;
		return KERNEL_PAGES_VARIANTS;
	}
	memcpy(own, page, PAGE);
	if (zero_page_check(own))
		return KERNEL_PAGES_VARIANTS; /* nothing to share, and its slot would look empty */
	for (unsigned v = 0; v < KERNEL_PAGES_VARIANTS; v++) {
		off_t off = (off_t) (v * kp->region + file_off);

		r = pread_exact(kp->fd, slot, PAGE, off);
		if (r < 0)
			return r;
		if (zero_page_check(slot)) {
			n = pwrite(kp->fd, own, PAGE, off);
			if (n < 0)
				return -errno;
			if (n != PAGE) {
				/* Empty the slot again (the bytes written have their space), so
				 * that a later fill can still use it; nothing maps it yet. A slot
				 * left part-written only stops matching: it never maps a page. */
				n = pwrite(kp->fd, slot, (size_t) n, off);
				return -ENOSPC;
			}
			stats->filled++;
			return (int) v;
		}
		if (memcmp(slot, own, PAGE) == 0)
			return (int) v;
	}
	stats->differed++;
	return KERNEL_PAGES_VARIANTS;
}

/*
 * One batch of n pages at base (file offset file_off), entries their pagemap entries: pick a
 * slot for each private page, then map the runs of pages whose slots follow each other.
 */
static int kernel_pages_share_batch(struct kernel_pages *kp, uint8_t *base, uint64_t file_off,
				    const uint64_t *entries, uint64_t n,
				    struct kernel_pages_stats *stats)
{
	int8_t *pick = kp->pick;
	int r;

	for (uint64_t i = 0; i < n; i++) {
		pick[i] = -1;
		if (!(entries[i] & PAGEMAP_PRESENT) || (entries[i] & PAGEMAP_FILE))
			continue;
		stats->private_pages++;
		r = kernel_pages_pick(kp, base + i * PAGE, file_off + i * PAGE, stats);
		if (r < 0)
			return r;
		if (r < (int) KERNEL_PAGES_VARIANTS)
			pick[i] = (int8_t) r;
	}
	for (uint64_t i = 0; i < n;) {
		uint64_t run = 1;

		if (pick[i] < 0) {
			i++;
			continue;
		}
		while (i + run < n && pick[i + run] == pick[i])
			run++;
		r = kernel_pages_map(
			kp, base + i * PAGE,
			(off_t) ((uint64_t) pick[i] * kp->region + file_off + i * PAGE), run,
			stats);
		if (r < 0)
			return r;
		i += run;
	}
	return 0;
}

int kernel_pages_share(struct kernel_pages *kp, void *hva, uint64_t file_off, uint64_t len,
		       struct kernel_pages_stats *stats)
{
	uint64_t entries[KERNEL_PAGES_BATCH];
	uint8_t *base = hva;
	int r;

	assert_return(kp && hva && stats, -EINVAL);
	if (!IS_ALIGNED((uintptr_t) hva, PAGE) || !IS_ALIGNED(file_off, PAGE) ||
	    !IS_ALIGNED(len, PAGE) || file_off > kp->region || len > kp->region - file_off)
		return -EINVAL;
	for (uint64_t done = 0; done < len / PAGE;) {
		uint64_t n = MIN(len / PAGE - done, (uint64_t) KERNEL_PAGES_BATCH);

		r = pread_exact(
			kp->pagemap_fd, entries, n * sizeof(entries[0]),
			(off_t) ((uintptr_t) (base + done * PAGE) / PAGE * sizeof(entries[0])));
		if (r < 0)
			return r;
		r = kernel_pages_share_batch(kp, base + done * PAGE, file_off + done * PAGE,
					     entries, n, stats);
		if (r < 0)
			return r;
		done += n;
	}
	return 0;
}
