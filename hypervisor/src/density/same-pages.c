/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "density/balloon-map.h"
#include "density/same-pages.h"
#include "density/zero-pages.h"
#include "cc/cleanup.h"
#include "cc/macro.h"

#define PAGE BALLOON_PAGE_SIZE

/* /proc/self/pagemap entry bits (Documentation/admin-guide/mm/pagemap.rst). */
#define PAGEMAP_PRESENT (1ull << 63)
#define PAGEMAP_FILE	(1ull << 61) /* a file page or shared anonymous: the pattern itself */

struct same_pages_slot {
	uint64_t hash;
	uint32_t count;
};

struct same_pages {
	uint8_t *base;
	uint64_t n_pages;
	uint64_t max_merged;
	bool mergeable;

	int fd;		/* the memfd holding the patterns, one per page */
	int pagemap_fd; /* /proc/self/pagemap: is a merged page still the pattern's? */
	uint8_t *view;	/* the memfd, shared: where a pattern is written, once */
	uint64_t pattern_hash[SAME_PAGES_MAX_PATTERNS];
	unsigned n_patterns;

	uint64_t *merged; /* bit per page of the range */
	uint64_t n_merged, failed;
	struct same_pages_slot table[SAME_PAGES_TABLE_SLOTS];
};

static uint64_t hash_mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 33);
}

/* Four independent lanes, so that the multiplies overlap: 0.7-1.1 us a page on this (busy)
 * machine at -O2. */
static uint64_t page_hash(const void *p)
{
	const uint64_t *w = p;
	uint64_t l[4] = {1, 2, 3, 4};

	for (unsigned i = 0; i < PAGE / sizeof(*w); i += 4)
		for (unsigned j = 0; j < 4; j++) {
			l[j] = (l[j] ^ w[i + j]) * 0x9e3779b97f4a7c15ull;
			l[j] ^= l[j] >> 31;
		}
	return hash_mix(l[0] ^ hash_mix(l[1] ^ hash_mix(l[2] ^ hash_mix(l[3]))));
}

void same_pages_free(struct same_pages *sp)
{
	if (!sp)
		return;
	if (sp->view)
		(void) munmap(sp->view, SAME_PAGES_MAX_PATTERNS * PAGE);
	if (sp->fd >= 0)
		(void) close(sp->fd);
	if (sp->pagemap_fd >= 0)
		(void) close(sp->pagemap_fd);
	free(sp->merged);
	free(sp);
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct same_pages *, same_pages_free);

int same_pages_new(void *base, uint64_t size, uint64_t max_merged, bool mergeable,
		   struct same_pages **ret)
{
	_cleanup_(same_pages_freep) struct same_pages *sp = NULL;
	void *view;

	assert_return(ret, -EINVAL);
	if (!base || size == 0 || !IS_ALIGNED((uintptr_t) base, PAGE) || !IS_ALIGNED(size, PAGE))
		return -EINVAL;
	sp = calloc(1, sizeof(*sp));
	if (!sp)
		return -ENOMEM;
	sp->base = base;
	sp->n_pages = size / PAGE;
	sp->max_merged = max_merged;
	sp->mergeable = mergeable;
	sp->fd = sp->pagemap_fd = -1;
	sp->merged = calloc(DIV_ROUND_UP(sp->n_pages, 64), sizeof(*sp->merged));
	if (!sp->merged)
		return -ENOMEM;
	sp->pagemap_fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (sp->pagemap_fd < 0)
		return -errno;
	sp->fd = memfd_create("cc-vmm-same-pages", MFD_CLOEXEC);
	if (sp->fd < 0 || ftruncate(sp->fd, (off_t) (SAME_PAGES_MAX_PATTERNS * PAGE)) < 0)
		return -errno;
	view = mmap(NULL, SAME_PAGES_MAX_PATTERNS * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED,
		    sp->fd, 0);
	if (view == MAP_FAILED)
		return -errno;
	sp->view = view;
	*ret = TAKE_PTR(sp);
	return 0;
}

static bool same_pages_index(const struct same_pages *sp, const void *page, uint64_t *ret)
{
	const uint8_t *p = page;

	if (p < sp->base || (uint64_t) (p - sp->base) / PAGE >= sp->n_pages)
		return false;
	*ret = (uint64_t) (p - sp->base) / PAGE;
	return true;
}

bool same_pages_is_merged(const struct same_pages *sp, const void *page)
{
	uint64_t i;

	return sp && same_pages_index(sp, page, &i) && (sp->merged[i / 64] >> (i % 64)) & 1;
}

/* The advice guest RAM has (vm_ram_advise()): a new mapping starts without it. */
static void same_pages_advise(const struct same_pages *sp, void *page)
{
	(void) madvise(page, PAGE, MADV_NOHUGEPAGE);
	if (sp->mergeable)
		(void) madvise(page, PAGE, MADV_MERGEABLE);
}

static void same_pages_mark(struct same_pages *sp, uint64_t i, bool merged)
{
	bool was = (sp->merged[i / 64] >> (i % 64)) & 1;

	if (merged && !was) {
		sp->merged[i / 64] |= 1ull << (i % 64);
		sp->n_merged++;
	} else if (!merged && was) {
		sp->merged[i / 64] &= ~(1ull << (i % 64));
		sp->n_merged--;
	}
}

/*
 * Map fresh anonymous memory at page (zeroes), as guest RAM is, and forget any merge there.
 * -errno when mmap() fails: it may have unmapped the page first, which is then lost.
 */
static int same_pages_unmerge(struct same_pages *sp, uint8_t *page, uint64_t i)
{
	void *p = mmap(page, PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return -errno;
	same_pages_advise(sp, page);
	same_pages_mark(sp, i, false);
	return 0;
}

/* Map page onto pattern k, whose bytes it has (it may be merged already: a private copy). */
static int same_pages_merge(struct same_pages *sp, uint8_t *page, uint64_t i, unsigned k)
{
	int r;
	void *p = mmap(page, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED | MAP_NORESERVE,
		       sp->fd, (off_t) (k * PAGE));

	if (p != MAP_FAILED) {
		same_pages_advise(sp, page);
		same_pages_mark(sp, i, true);
		return 1;
	}
	/* A MAP_FIXED mmap() that fails may have unmapped the page first: map anonymous memory
	 * there again and give it the page's bytes, which are the pattern's. */
	sp->failed++;
	r = same_pages_unmerge(sp, page, i);
	if (r < 0)
		return r;
	memcpy(page, sp->view + k * PAGE, PAGE);
	return 0;
}

/* The pattern with page's bytes (hash h), or -1. */
static int same_pages_find(const struct same_pages *sp, const void *page, uint64_t h)
{
	for (unsigned k = 0; k < sp->n_patterns; k++)
		if (sp->pattern_hash[k] == h && memcmp(page, sp->view + k * PAGE, PAGE) == 0)
			return (int) k;
	return -1;
}

static int same_pages_check(const struct same_pages *sp, const void *page, uint64_t *ret)
{
	if (!same_pages_index(sp, page, ret) || !IS_ALIGNED((uintptr_t) page, PAGE))
		return -EINVAL;
	return 0;
}

int same_pages_visit(struct same_pages *sp, void *page)
{
	struct same_pages_slot *slot;
	uint64_t i, h;
	unsigned k;
	int found;

	assert_return(sp && page, -EINVAL);
	if (same_pages_check(sp, page, &i) < 0 || same_pages_is_merged(sp, page))
		return -EINVAL;
	if (sp->n_merged >= sp->max_merged)
		return 0;
	h = page_hash(page);
	found = same_pages_find(sp, page, h);
	if (found >= 0)
		return same_pages_merge(sp, page, i, (unsigned) found);

	slot = &sp->table[h % SAME_PAGES_TABLE_SLOTS];
	if (slot->hash != h) {
		if (slot->count > 0 && --slot->count > 0)
			return 0;
		slot->hash = h; /* a free slot: this hash takes it */
	}
	if (++slot->count < SAME_PAGES_MIN_COPIES || sp->n_patterns == SAME_PAGES_MAX_PATTERNS)
		return 0;
	/* The bytes of the page in hand (read with the guest stopped) become the pattern; the
	 * other pages behind the count are merged when a sweep meets them again. */
	k = sp->n_patterns++;
	memcpy(sp->view + k * PAGE, page, PAGE);
	sp->pattern_hash[k] = h;
	*slot = (struct same_pages_slot){0};
	return same_pages_merge(sp, page, i, k);
}

int same_pages_revisit(struct same_pages *sp, void *page)
{
	uint64_t i, e = 0;
	int k;

	assert_return(sp && page, -EINVAL);
	if (same_pages_check(sp, page, &i) < 0 || !same_pages_is_merged(sp, page))
		return -EINVAL;
	/* Still the pattern's page, or not mapped since the merge (then the next access maps the
	 * pattern's): nothing to do. pagemap shows its flags without privileges. */
	if (pread(sp->pagemap_fd, &e, sizeof(e), (off_t) ((uintptr_t) page / PAGE * sizeof(e))) !=
	    (ssize_t) sizeof(e))
		return 0;
	if (!(e & PAGEMAP_PRESENT) || (e & PAGEMAP_FILE))
		return 0;
	/* A private copy the guest wrote. All zero: anonymous memory again, which reads as
	 * zeroes and costs nothing until written. */
	if (zero_page_check(page)) {
		int r = same_pages_unmerge(sp, page, i);

		return r < 0 ? r : SAME_PAGES_ZEROED;
	}
	/* The bytes of a pattern again (a struct page back as it was): merge it again. */
	k = same_pages_find(sp, page, page_hash(page));
	if (k < 0)
		return 0;
	return same_pages_merge(sp, page, i, (unsigned) k) > 0 ? SAME_PAGES_REMERGED : 0;
}

void same_pages_sweep_start(struct same_pages *sp)
{
	memset(sp->table, 0, sizeof(sp->table));
}

void same_pages_get_stats(const struct same_pages *sp, struct same_pages_stats *ret)
{
	*ret = (struct same_pages_stats){
		.merged_pages = sp->n_merged,
		.patterns = sp->n_patterns,
		.failed = sp->failed,
	};
}
