/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include "9p/9p-buf.h"
#include "cc/macro.h"

static size_t p9_buf_page(void)
{
	long n = sysconf(_SC_PAGESIZE);

	return n > 0 ? (size_t) n : 4096;
}

int p9_buf_init(struct p9_buf *b, size_t size)
{
	size_t page = p9_buf_page();
	void *p;

	assert_return(b && size > 0, -EINVAL);
	size = ALIGN_UP(size, page);
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		 -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	/* Never a transparent huge page: on a host with THP "always", the first byte of a message
	 * would fault in 2 MiB, and khugepaged would collapse what a trim left back into one. */
	(void) madvise(p, size, MADV_NOHUGEPAGE);
	*b = (struct p9_buf){.p = p, .size = size};
	return 0;
}

void p9_buf_init_shared(struct p9_buf *b, void *p, size_t size)
{
	*b = (struct p9_buf){.p = p, .size = size, .shared = true};
}

void p9_buf_used(struct p9_buf *b, size_t len)
{
	b->hi = MAX(b->hi, MIN(len, b->size));
}

size_t p9_buf_trim(struct p9_buf *b, size_t keep)
{
	size_t page = p9_buf_page(), from = MIN(ALIGN_UP(keep, page), b->size), released;

	if (!b->p || b->hi <= from)
		return 0;
	/* The buffer holds nothing between messages: zero-fill on the next touch is fine. A shared
	 * mapping's pages stay in its file unless removed from it. */
	if (madvise(b->p + from, ALIGN_UP(b->hi, page) - from,
		    b->shared ? MADV_REMOVE : MADV_DONTNEED) < 0)
		return 0;
	released = b->hi - from;
	b->hi = from;
	return released;
}

void p9_buf_free(struct p9_buf *b)
{
	if (!b)
		return;
	if (b->p && !b->shared)
		(void) munmap(b->p, b->size);
	*b = (struct p9_buf){0};
}
