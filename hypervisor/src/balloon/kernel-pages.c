/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "balloon/balloon-map.h"
#include "balloon/kernel-pages.h"
#include "balloon/zero-pages.h"
#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "cc/kernel-pages-filler.h"
#include "cc/macro.h"

#define PAGE BALLOON_PAGE_SIZE

/* /proc/self/pagemap entry bits (Documentation/admin-guide/mm/pagemap.rst). */
#define PAGEMAP_PRESENT (1ull << 63)
#define PAGEMAP_FILE	(1ull << 61) /* the file's page: not written by this VM */

/* Pagemap entries read at a time. */
#define KERNEL_PAGES_BATCH 512u
/* The wait for one answer of the filler: its own wait for the file's lock, and a second. */
#define KERNEL_PAGES_ANSWER_TIMEOUT_MS (KERNEL_PAGES_FILLER_LOCK_TIMEOUT_MS + 1000u)

struct kernel_pages {
	int fd;		       /* the file, read-only */
	int chan_fd;	       /* to the filler, or -1 */
	bool no_fills;	       /* a fill was refused: ask for no more in this share */
	const uint8_t *kernel; /* the kernel file, mapped read-only: region bytes */
	int pagemap_fd;
	uint64_t region; /* bytes of one region: the kernel file's size, in pages */
	bool mergeable;
	/* A page's bytes and a slot's, while one page is looked at; the region picked for each
	 * page of a batch (-1: none). */
	alignas(8) struct kernel_pages_fill_req req; /* own bytes in req.bytes */
	alignas(8) uint8_t slot[PAGE];
	int8_t pick[KERNEL_PAGES_BATCH];
};

void kernel_pages_free(struct kernel_pages *kp)
{
	if (!kp)
		return;
	(void) safe_close(kp->fd);
	(void) safe_close(kp->chan_fd);
	if (kp->kernel)
		(void) munmap((void *) kp->kernel, kp->region);
	(void) safe_close(kp->pagemap_fd);
	free(kp);
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct kernel_pages *, kernel_pages_free);

int kernel_pages_open(int ro_fd, int chan_fd, int kernel_fd, bool mergeable,
		      struct kernel_pages **ret)
{
	_cleanup_close_ int fd = ro_fd, chan = chan_fd;
	_cleanup_(kernel_pages_freep) struct kernel_pages *kp = NULL;
	const struct timeval answer_timeout = {.tv_sec = KERNEL_PAGES_ANSWER_TIMEOUT_MS / 1000u,
					       .tv_usec = KERNEL_PAGES_ANSWER_TIMEOUT_MS % 1000u *
							  1000u};
	socklen_t len = sizeof(int);
	struct stat st;
	int flags, type;
	void *p;

	assert_return(ro_fd >= 0 && kernel_fd >= 0 && ret, -EINVAL);
	if (fstat(kernel_fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_size <= 0)
		return -EINVAL;
	kp = calloc(1, sizeof(*kp));
	if (!kp)
		return -ENOMEM;
	kp->fd = kp->chan_fd = kp->pagemap_fd = -1;
	kp->region = kernel_pages_region_size((uint64_t) st.st_size);
	if (kp->region == 0)
		return -EFBIG;
	/* Never a handle that could write what other VMs map. */
	flags = fcntl(fd, F_GETFL);
	if (flags < 0)
		return -errno;
	if ((flags & O_ACCMODE) != O_RDONLY)
		return -EPERM;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || (uint64_t) st.st_size < kernel_pages_file_size(kp->region))
		return -EINVAL;
	if (chan >= 0) {
		if (fstat(chan, &st) < 0)
			return -errno;
		if (!S_ISSOCK(st.st_mode))
			return -ENOTSOCK;
		if (getsockopt(chan, SOL_SOCKET, SO_TYPE, &type, &len) < 0)
			return -errno;
		if (type != SOCK_SEQPACKET)
			return -EPROTOTYPE;
		if (setsockopt(chan, SOL_SOCKET, SO_RCVTIMEO, &answer_timeout,
			       sizeof(answer_timeout)) < 0)
			return -errno;
	}
	kp->fd = TAKE_FD(fd);
	kp->chan_fd = TAKE_FD(chan);
	/* Its bytes are looked at without a system call a page: the pause is the guest's. */
	p = mmap(NULL, kp->region, PROT_READ, MAP_SHARED, kernel_fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	kp->kernel = p;
	kp->mergeable = mergeable;
	kp->pagemap_fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (kp->pagemap_fd < 0)
		return -errno;
	*ret = TAKE_PTR(kp);
	return 0;
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
 * Map the run of n pages at page onto the slots from off on, which hold their bytes (checked:
 * filled slots never change). One mmap() for the
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
 * Ask the filler to fill the slot of page index page in region v with kp->req.bytes: 0 (filled
 * now) or -EEXIST (filled before: the caller compares its bytes), else -errno: refused, or no
 * answer (the channel is then closed: an answer late would answer the next request).
 */
static int kernel_pages_request(struct kernel_pages *kp, unsigned v, uint64_t page)
{
	struct iovec iov = {.iov_base = &kp->req, .iov_len = sizeof(kp->req)};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
	kernel_pages_fill_ans ans;
	ssize_t n;
	int r;

	if (kp->chan_fd < 0)
		return -ENOTCONN;
	kp->req.region = v;
	kp->req.zero = 0;
	kp->req.page = page;
	/* sendmsg() and recv() (recvfrom) only: the sandbox allows those for vsock already. */
	n = sendmsg(kp->chan_fd, &msg, MSG_NOSIGNAL);
	if (n != (ssize_t) sizeof(kp->req)) {
		r = n < 0 ? -errno : -EMSGSIZE;
		goto lost;
	}
	/* Bounded by the channel's SO_RCVTIMEO (kernel_pages_open()). */
	do
		n = recv(kp->chan_fd, &ans, sizeof(ans), 0);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t) sizeof(ans)) {
		r = n < 0 ? (errno == EAGAIN ? -ETIMEDOUT : -errno) : -EPROTO;
		goto lost;
	}
	return ans > 0 ? -EPROTO : ans;
lost:
	kp->chan_fd = safe_close(kp->chan_fd);
	return r;
}

/*
 * Which region's slot one private page at file offset file_off goes to: its index, or
 * KERNEL_PAGES_VARIANTS when none (padding, bytes of their own, a zero page). A slot never
 * filled is filled here, through the filler. -errno.
 */
static int kernel_pages_pick(struct kernel_pages *kp, const uint8_t *page, uint64_t file_off,
			     struct kernel_pages_stats *stats)
{
	uint8_t *own = kp->req.bytes, *slot = kp->slot, filled;
	uint64_t index = file_off / PAGE;
	bool fill, empty = false;
	int r;

	/* The kernel file's own page (the last one reads zeroes after the file's end). */
	if (zero_page_check(kp->kernel + file_off)) {
		stats->padding++;
		return KERNEL_PAGES_VARIANTS;
	}
	memcpy(own, page, PAGE);
	if (zero_page_check(own))
		return KERNEL_PAGES_VARIANTS; /* nothing to share */
	for (unsigned v = 0; v < KERNEL_PAGES_VARIANTS; v++) {
		r = pread_exact(kp->fd, &filled, 1, kernel_pages_map_off(kp->region, v, index));
		if (r < 0)
			return r;
		fill = false;
		if (!filled && !kp->no_fills) {
			r = kernel_pages_request(kp, v, index);
			if (r < 0 && r != -EEXIST) {
				stats->refused++;
				kp->no_fills = true;
			}
			fill = r == 0;
			filled = r >= 0 || r == -EEXIST;
		}
		if (!filled) {
			empty = true; /* a later region's slot may still be filled */
			continue;
		}
		/* Filled, by the filler or before, and never written again: its bytes now are
		 * the bytes a private mapping of it shows until the guest writes the page. */
		r = pread_exact(kp->fd, slot, PAGE, kernel_pages_slot_off(kp->region, v, index));
		if (r < 0)
			return r;
		if (memcmp(slot, own, PAGE) == 0) {
			stats->filled += fill;
			return (int) v;
		}
	}
	if (!empty)
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
