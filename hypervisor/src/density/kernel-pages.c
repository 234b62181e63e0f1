/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "density/balloon-map.h"
#include "density/kernel-pages.h"
#include "density/zero-pages.h"
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
/* Fill requests sent before their answers are read: one wake-up of the filler and of this
 * thread for that many fills, not one per fill (a context switch costs ms in a TCG guest).
 * Their messages fit the channel's send buffer (212992 bytes by default). */
#define KERNEL_PAGES_WINDOW 16u
/* kernel_pages_pick(): the slot of region fill[i] is to be filled first. */
#define KERNEL_PAGES_DEFER ((int) KERNEL_PAGES_VARIANTS + 1)

struct kernel_pages {
	int fd;		       /* the file, read-only */
	int chan_fd;	       /* to the filler, or -1 */
	bool no_fills;	       /* a fill was refused: ask for no more in this share */
	const uint8_t *kernel; /* the kernel file, mapped read-only: region bytes */
	int pagemap_fd;
	uint64_t region; /* bytes of one region: the kernel file's size, in pages */
	bool mergeable;
	/* A slot's bytes, while one page is looked at; the region picked for each page of a
	 * batch (-1: none); for a page whose slot is filled first, its region. */
	alignas(8) uint8_t slot[PAGE];
	int8_t pick[KERNEL_PAGES_BATCH];
	int8_t fill[KERNEL_PAGES_BATCH];
	uint16_t deferred[KERNEL_PAGES_BATCH]; /* the pages of a batch that wait for a fill */
	/* The fill map's bytes of a batch's pages, per region, read once at its start: a slot
	 * filled since reads unfilled here, and its fill is then answered -EEXIST. */
	uint8_t map[KERNEL_PAGES_VARIANTS][KERNEL_PAGES_BATCH];
	kernel_pages_fill_ans ans[KERNEL_PAGES_WINDOW];
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
			       sizeof(answer_timeout)) < 0 ||
		    setsockopt(chan, SOL_SOCKET, SO_SNDTIMEO, &answer_timeout,
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

/* The channel is lost (an answer late would answer the next request): no more fills. */
static int kernel_pages_lost(struct kernel_pages *kp, int r)
{
	kp->chan_fd = safe_close(kp->chan_fd);
	kp->no_fills = true;
	return r;
}

/* Send the request to fill the slot of page index page in region v with bytes. */
static int kernel_pages_send(struct kernel_pages *kp, unsigned v, uint64_t page,
			     const uint8_t *bytes)
{
	struct kernel_pages_fill_req hdr = {.region = v, .page = page};
	struct iovec iov[2] = {
		{.iov_base = &hdr, .iov_len = offsetof(struct kernel_pages_fill_req, bytes)},
		{.iov_base = (void *) bytes, .iov_len = PAGE},
	};
	struct msghdr msg = {.msg_iov = iov, .msg_iovlen = 2};
	ssize_t n;

	if (kp->chan_fd < 0)
		return -ENOTCONN;
	/* sendmsg() and recv() (recvfrom) only: the sandbox allows those for vsock already.
	 * Bounded by the channel's SO_SNDTIMEO (kernel_pages_open()). */
	do
		n = sendmsg(kp->chan_fd, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t) sizeof(struct kernel_pages_fill_req))
		return kernel_pages_lost(kp, n < 0 ? -errno : -EMSGSIZE);
	return 0;
}

/* The answer to the oldest request sent: 0 (filled now) or -EEXIST (filled before), else
 * -errno: refused, or none in time. */
static int kernel_pages_answer(struct kernel_pages *kp)
{
	kernel_pages_fill_ans ans;
	ssize_t n;

	if (kp->chan_fd < 0)
		return -ENOTCONN;
	/* Bounded by the channel's SO_RCVTIMEO. */
	do
		n = recv(kp->chan_fd, &ans, sizeof(ans), 0);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t) sizeof(ans))
		return kernel_pages_lost(kp,
					 n < 0 ? (errno == EAGAIN ? -ETIMEDOUT : -errno) : -EPROTO);
	return ans > 0 ? -EPROTO : ans;
}

/*
 * After a fill of the slot of region v for page (index index) answered r: whether the slot
 * now holds the page's bytes (1), filled with other bytes or not filled (0); -errno.
 */
static int kernel_pages_check(struct kernel_pages *kp, const uint8_t *page, uint64_t index,
			      unsigned v, int r, struct kernel_pages_stats *stats)
{
	if (r < 0 && r != -EEXIST) {
		stats->refused++;
		kp->no_fills = true;
		return 0;
	}
	/* Filled, by the filler or before, and never written again: its bytes now are the bytes
	 * a private mapping of it shows until the guest writes the page. */
	r = pread_exact(kp->fd, kp->slot, PAGE, kernel_pages_slot_off(kp->region, v, index));
	if (r < 0)
		return r;
	return memcmp(kp->slot, page, PAGE) == 0;
}

/*
 * Which region's slot one private page at file offset file_off (page i of its batch) goes to,
 * from region v0 on: its index; KERNEL_PAGES_VARIANTS when none (bytes of their own, no region
 * left); -errno. A slot never filled is filled first: with defer, the page is left for
 * kernel_pages_fill_deferred() (KERNEL_PAGES_DEFER, the region in *fill); without, here.
 */
static int kernel_pages_pick_from(struct kernel_pages *kp, const uint8_t *page, uint64_t file_off,
				  uint64_t i, unsigned v0, bool defer, int8_t *fill,
				  struct kernel_pages_stats *stats)
{
	uint64_t index = file_off / PAGE;
	bool empty = false, ours;
	int r;

	for (unsigned v = v0; v < KERNEL_PAGES_VARIANTS; v++) {
		bool filled = kp->map[v][i];

		if (!filled && kp->no_fills) {
			empty = true; /* a later region's slot may still be filled */
			continue;
		}
		if (!filled && defer) {
			*fill = (int8_t) v;
			return KERNEL_PAGES_DEFER;
		}
		r = 0;
		if (!filled) {
			r = kernel_pages_send(kp, v, index, page);
			if (r >= 0)
				r = kernel_pages_answer(kp);
		}
		ours = !filled && r == 0;
		r = kernel_pages_check(kp, page, index, v, r, stats);
		if (r < 0)
			return r;
		if (r > 0) {
			stats->filled += ours;
			return (int) v;
		}
		if (!filled && kp->no_fills)
			empty = true;
	}
	if (!empty)
		stats->differed++;
	return KERNEL_PAGES_VARIANTS;
}

/*
 * The region for one private page at file offset file_off, as kernel_pages_pick_from() from the
 * first region, deferring fills; KERNEL_PAGES_VARIANTS too for padding and a zero page.
 */
static int kernel_pages_pick(struct kernel_pages *kp, const uint8_t *page, uint64_t file_off,
			     uint64_t i, int8_t *fill, struct kernel_pages_stats *stats)
{
	/* The kernel file's own page (the last one reads zeroes after the file's end). */
	if (zero_page_check(kp->kernel + file_off)) {
		stats->padding++;
		return KERNEL_PAGES_VARIANTS;
	}
	if (zero_page_check(page))
		return KERNEL_PAGES_VARIANTS; /* nothing to share */
	return kernel_pages_pick_from(kp, page, file_off, i, 0, true, fill, stats);
}

/*
 * The n pages of a batch at base (file offset file_off) whose slots are to be filled
 * (kp->deferred; region kp->fill[i]): the requests sent KERNEL_PAGES_WINDOW at a time, then
 * their answers read; each page then gets the slot if it holds its bytes, else the next
 * regions are tried one page at a time (another VMM filled the slot first, with its bytes).
 */
static int kernel_pages_fill_deferred(struct kernel_pages *kp, uint8_t *base, uint64_t file_off,
				      unsigned n, struct kernel_pages_stats *stats)
{
	int r;

	for (unsigned k = 0; k < n; k += KERNEL_PAGES_WINDOW) {
		unsigned m = MIN(n - k, KERNEL_PAGES_WINDOW), sent = 0;

		while (sent < m) {
			unsigned i = kp->deferred[k + sent];

			if (kp->no_fills ||
			    kernel_pages_send(kp, (unsigned) kp->fill[i], (file_off / PAGE) + i,
					      base + i * PAGE) < 0)
				break;
			sent++;
		}
		for (unsigned j = 0; j < m; j++)
			kp->ans[j] = j < sent ? kernel_pages_answer(kp) : -ENOTCONN;
		for (unsigned j = 0; j < m; j++) {
			unsigned i = kp->deferred[k + j], v = (unsigned) kp->fill[i];
			uint8_t *page = base + i * PAGE;
			uint64_t off = file_off + i * PAGE;

			r = kernel_pages_check(kp, page, off / PAGE, v, kp->ans[j], stats);
			if (r < 0)
				return r;
			if (r > 0) {
				stats->filled += kp->ans[j] == 0;
				kp->pick[i] = (int8_t) v;
				continue;
			}
			r = kernel_pages_pick_from(kp, page, off, i, v + 1, false, NULL, stats);
			if (r < 0)
				return r;
			kp->pick[i] = r < (int) KERNEL_PAGES_VARIANTS ? (int8_t) r : -1;
		}
	}
	return 0;
}

/*
 * One batch of n pages at base (file offset file_off), entries their pagemap entries: pick a
 * slot for each private page (the slots to fill filled together), then map the runs of pages
 * whose slots follow each other.
 */
static int kernel_pages_share_batch(struct kernel_pages *kp, uint8_t *base, uint64_t file_off,
				    const uint64_t *entries, uint64_t n,
				    struct kernel_pages_stats *stats)
{
	int8_t *pick = kp->pick;
	unsigned n_deferred = 0;
	int r;

	/* One read per region: the batch's pages have their map bytes side by side. */
	for (unsigned v = 0; v < KERNEL_PAGES_VARIANTS; v++) {
		r = pread_exact(kp->fd, kp->map[v], n,
				kernel_pages_map_off(kp->region, v, file_off / PAGE));
		if (r < 0)
			return r;
	}
	for (uint64_t i = 0; i < n; i++) {
		pick[i] = -1;
		if (!(entries[i] & PAGEMAP_PRESENT) || (entries[i] & PAGEMAP_FILE))
			continue;
		stats->private_pages++;
		r = kernel_pages_pick(kp, base + i * PAGE, file_off + i * PAGE, i, &kp->fill[i],
				      stats);
		if (r < 0)
			return r;
		if (r == KERNEL_PAGES_DEFER)
			kp->deferred[n_deferred++] = (uint16_t) i;
		else if (r < (int) KERNEL_PAGES_VARIANTS)
			pick[i] = (int8_t) r;
	}
	r = kernel_pages_fill_deferred(kp, base, file_off, n_deferred, stats);
	if (r < 0)
		return r;
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
