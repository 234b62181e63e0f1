/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/elf-build-id.h"
#include "cc/fileio.h"
#include "cc/kernel-pages-file.h"
#include "cc/macro.h"

/* Between two tries of the file's lock. */
#define KERNEL_PAGES_LOCK_STEP_MS 2u

uint64_t kernel_pages_region_size(uint64_t size)
{
	if (size == 0 || size > (UINT64_MAX / 4) / KERNEL_PAGES_VARIANTS)
		return 0;
	return ALIGN_UP(size, (uint64_t) KERNEL_PAGES_PAGE);
}

uint64_t kernel_pages_file_size(uint64_t region)
{
	uint64_t slots = KERNEL_PAGES_VARIANTS * (region / KERNEL_PAGES_PAGE);

	return KERNEL_PAGES_VARIANTS * region + ALIGN_UP(slots, (uint64_t) KERNEL_PAGES_PAGE);
}

int kernel_pages_file_path(const char *dir, int kernel_fd, char *buf, size_t size)
{
	char id[2 * ELF_BUILD_ID_MAX + 1];
	struct stat st;
	int r;

	assert_return(dir && buf, -EINVAL);
	if (fstat(kernel_fd, &st) < 0)
		return -errno;
	/* One file per kernel build: its build ID and size name it (a stripped copy of a kernel
	 * keeps the ID, and the slots are laid out by the file's size), or (a kernel without an
	 * ID) its size and modification time. */
	if (elf_file_build_id(kernel_fd, id, sizeof(id)) >= 0)
		r = snprintf(buf, size, "%s/vmlinux-%s-%llu" KERNEL_PAGES_FILE_SUFFIX, dir, id,
			     (unsigned long long) st.st_size);
	else
		r = snprintf(buf, size, "%s/vmlinux-%llu-%lld.%09ld" KERNEL_PAGES_FILE_SUFFIX, dir,
			     (unsigned long long) st.st_size, (long long) st.st_mtim.tv_sec,
			     st.st_mtim.tv_nsec);
	if (r < 0 || (size_t) r >= size)
		return -ENAMETOOLONG;
	return 0;
}

int kernel_pages_file_open(const char *path, uint64_t kernel_size, int *ret_rw, int *ret_ro)
{
	_cleanup_close_ int rw = -1, ro = -1;
	uint64_t region = kernel_pages_region_size(kernel_size), size;
	struct stat st, st_ro;

	assert_return(path && ret_rw && ret_ro, -EINVAL);
	if (region == 0)
		return kernel_size ? -EFBIG : -EINVAL;
	size = kernel_pages_file_size(region);
	rw = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	if (rw < 0)
		return -errno;
	if (fstat(rw, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 0077))
		return -EPERM;
	if ((uint64_t) st.st_size < size && ftruncate(rw, (off_t) size) < 0)
		return -errno;
	/* The same file again, read-only, for the VMM: opened by path, so it must be the same
	 * inode; through a read-only mount, so that it cannot be opened again for writing. */
	ro = open_on_read_only_mount(path, O_RDONLY | O_NONBLOCK);
	if (ro < 0)
		return ro;
	if (fstat(ro, &st_ro) < 0)
		return -errno;
	if (st_ro.st_dev != st.st_dev || st_ro.st_ino != st.st_ino)
		return -ESTALE;
	*ret_rw = TAKE_FD(rw);
	*ret_ro = TAKE_FD(ro);
	return 0;
}

int kernel_pages_file_lock(int fd, unsigned timeout_ms)
{
	const struct timespec step = {.tv_nsec = KERNEL_PAGES_LOCK_STEP_MS * 1000000L};
	unsigned waited = 0;

	for (;;) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return 0;
		if (errno != EWOULDBLOCK && errno != EINTR)
			return -errno;
		if (waited >= timeout_ms)
			return -ETIMEDOUT;
		(void) nanosleep(&step, NULL);
		waited += KERNEL_PAGES_LOCK_STEP_MS;
	}
}

/* Under the lock: fill one slot unless its map byte says it was filled. */
static int kernel_pages_fill_locked(int rw_fd, uint64_t region,
				    const struct kernel_pages_fill_req *req)
{
	off_t slot = kernel_pages_slot_off(region, req->region, req->page);
	off_t map = kernel_pages_map_off(region, req->region, req->page);
	static const uint8_t zeroes[KERNEL_PAGES_PAGE];
	uint8_t filled;
	ssize_t n;
	int r;

	r = pread_exact(rw_fd, &filled, 1, map);
	if (r < 0)
		return r;
	if (filled)
		return -EEXIST;
	n = pwrite(rw_fd, req->bytes, KERNEL_PAGES_PAGE, slot);
	if (n < 0)
		return -errno;
	if (n != KERNEL_PAGES_PAGE) {
		/* Empty the slot again (the bytes written have their space): nothing maps an
		 * unfilled slot, and a later fill can still use it. */
		n = pwrite(rw_fd, zeroes, (size_t) n, slot);
		return -ENOSPC;
	}
	filled = 1;
	n = pwrite(rw_fd, &filled, 1, map);
	if (n == 1)
		return 0;
	r = n < 0 ? -errno : -ENOSPC;
	n = pwrite(rw_fd, zeroes, KERNEL_PAGES_PAGE, slot);
	return r;
}

int kernel_pages_fill_held(int rw_fd, uint64_t region, const void *rec, size_t len)
{
	const struct kernel_pages_fill_req *req = rec;

	assert_return(rec, -EINVAL);
	if (len != sizeof(*req) || region == 0 || !IS_ALIGNED(region, (uint64_t) KERNEL_PAGES_PAGE))
		return -EINVAL;
	if (req->region >= KERNEL_PAGES_VARIANTS || req->zero != 0 ||
	    req->page >= region / KERNEL_PAGES_PAGE)
		return -EINVAL;
	return kernel_pages_fill_locked(rw_fd, region, req);
}

int kernel_pages_fill(int rw_fd, uint64_t region, const void *rec, size_t len,
		      unsigned lock_timeout_ms)
{
	int r;

	r = kernel_pages_file_lock(rw_fd, lock_timeout_ms);
	if (r < 0)
		return r;
	r = kernel_pages_fill_held(rw_fd, region, rec, len);
	(void) flock(rw_fd, LOCK_UN);
	return r;
}
