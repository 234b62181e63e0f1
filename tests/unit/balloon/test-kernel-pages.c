/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Kernel pages shared between VMs (balloon/kernel-pages.h), with a kernel file mapped
 * MAP_PRIVATE twice or more, as two VMMs map it, and the real host-wide file: a page each
 * "VM" wrote alike ends up one page of that file in both (the first fills the slot, the next
 * maps it), with every byte as before, a run of such pages in one mapping; pages never written stay
 * the kernel file's; a page with bytes of its own takes the next region, and once every region
 * holds other bytes it stays private; a write after sharing takes a private copy again and changes
 * nothing else; a zero page is not shared, nor a page that is all zero in the kernel file (padding
 * the kernel frees); the file is refused unless it is a private regular file of ours; bad ranges
 * are refused; the lock is waited for, but not for ever.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "balloon/balloon-map.h"
#include "balloon/kernel-pages.h"
#include "cctest.h"

#define PG	BALLOON_PAGE_SIZE
#define N_PAGES 16u
#define PADDING 12u /* the kernel file's page 12 is all zero */

static char *dir;
static char kernel_path[512], share_path[512];
static int kernel_fd = -1;

/* Content c of page i: differs per page and per c. */
static void fill(uint8_t *p, unsigned i, unsigned c)
{
	uint32_t *w = (uint32_t *) (void *) p;

	for (unsigned k = 0; k < PG / 4; k++)
		w[k] = (i + 1) * 0x1000193u + c * 0x10001u + k;
}

static bool holds(const uint8_t *p, unsigned i, unsigned c)
{
	alignas(8) uint8_t want[PG];

	fill(want, i, c);
	return memcmp(p, want, PG) == 0;
}

/* A "VM": the kernel file mapped MAP_PRIVATE. */
static uint8_t *vm_map(void)
{
	uint8_t *p = mmap(NULL, N_PAGES * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, kernel_fd, 0);

	ck_assert_ptr_ne(p, MAP_FAILED);
	for (unsigned i = 0; i < N_PAGES; i++)
		(void) *(volatile uint8_t *) (p + i * PG);
	return p;
}

/* The page's pagemap entry, read first (a new mapping has no entry until then). */
static uint64_t pagemap(const uint8_t *page)
{
	uint64_t e = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);

	(void) *(const volatile uint8_t *) page;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(fd, &e, sizeof(e), (off_t) ((uintptr_t) page / PG * 8)), sizeof(e));
	close(fd);
	return e;
}

/* A page of a file (the kernel's or the shared one), not a private copy. */
static bool is_file_page(const uint8_t *page)
{
	uint64_t e = pagemap(page);

	return (e >> 63 & 1) && (e >> 61 & 1);
}

static uint64_t pfn(const uint8_t *page)
{
	return pagemap(page) & ((1ull << 55) - 1);
}

static void share(uint8_t *vm, struct kernel_pages_stats *st)
{
	struct kernel_pages *kp;

	*st = (struct kernel_pages_stats){0};
	ASSERT_OK(kernel_pages_open(share_path, kernel_fd, false, &kp));
	ASSERT_OK(kernel_pages_lock(kp, 1000));
	ASSERT_OK(kernel_pages_share(kp, vm, 0, N_PAGES * PG, st));
	kernel_pages_unlock(kp);
	kernel_pages_free(kp);
}

/* The shared file's slot for page i in region v holds content c. */
static bool slot_holds(unsigned v, unsigned i, unsigned c)
{
	alignas(8) uint8_t buf[PG];
	int fd = open(share_path, O_RDONLY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(fd, buf, PG, (off_t) ((v * N_PAGES + i) * PG)), PG);
	close(fd);
	return holds(buf, i, c);
}

static void setup(void)
{
	alignas(8) uint8_t buf[PG];

	dir = cctest_mkdtemp();
	snprintf(kernel_path, sizeof(kernel_path), "%s/vmlinux", dir);
	snprintf(share_path, sizeof(share_path), "%s/shared", dir);
	kernel_fd = open(kernel_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	ck_assert_int_ge(kernel_fd, 0);
	for (unsigned i = 0; i < N_PAGES; i++) {
		fill(buf, i, 0);
		if (i == PADDING)
			memset(buf, 0, PG);
		ck_assert_int_eq(pwrite(kernel_fd, buf, PG, (off_t) (i * PG)), PG);
	}
}

static void teardown(void)
{
	close(kernel_fd);
	cctest_rm_rf(dir);
	free(dir);
}

START_TEST(test_pages_written_alike_are_shared)
{
	uint8_t *a = vm_map(), *b = vm_map();
	struct kernel_pages_stats st;
	struct stat sb;

	/* Both "boot": pages 2 and 3 patched alike; page 9 left alone. */
	fill(a + 2 * PG, 2, 1);
	fill(a + 3 * PG, 3, 1);
	fill(b + 2 * PG, 2, 1);
	fill(b + 3 * PG, 3, 1);
	ck_assert(!is_file_page(a + 2 * PG));

	share(a, &st);
	ck_assert_uint_eq(st.private_pages, 2);
	ck_assert_uint_eq(st.shared, 2);
	ck_assert_uint_eq(st.filled, 2);
	ck_assert_uint_eq(st.differed, 0);
	ck_assert(stat(share_path, &sb) == 0);
	ck_assert_int_eq(sb.st_size, KERNEL_PAGES_VARIANTS * N_PAGES * PG);
	ck_assert_int_eq(sb.st_mode & 0777, 0600);
	ck_assert(slot_holds(0, 2, 1) && slot_holds(0, 3, 1));

	share(b, &st);
	ck_assert_uint_eq(st.private_pages, 2);
	ck_assert_uint_eq(st.shared, 2);
	ck_assert_uint_eq(st.filled, 0);

	for (unsigned i = 0; i < N_PAGES; i++) {
		unsigned c = i == 2 || i == 3 ? 1 : 0;

		if (i == PADDING)
			continue;
		ck_assert_msg(holds(a + i * PG, i, c) && holds(b + i * PG, i, c), "page %u", i);
		ck_assert_msg(is_file_page(a + i * PG) && is_file_page(b + i * PG), "page %u", i);
	}
	/* One page of the shared file behind both (PFNs are shown to root only). */
	if (geteuid() == 0)
		ck_assert_uint_eq(pfn(a + 2 * PG), pfn(b + 2 * PG));
	munmap(a, N_PAGES * PG);
	munmap(b, N_PAGES * PG);
}
END_TEST

/* Mappings of the shared file inside vm (the "VM"'s kernel mapping). */
static unsigned share_mappings(const uint8_t *vm)
{
	return cctest_count_mappings(vm, vm + N_PAGES * PG, share_path);
}

START_TEST(test_runs_mapped_at_once)
{
	uint8_t *a = vm_map(), *b = vm_map();
	struct kernel_pages_stats st;

	/* Pages 1-5 patched alike in both; in b, page 3 its own way (the next region). */
	for (unsigned i = 1; i <= 5; i++) {
		fill(a + i * PG, i, 1);
		fill(b + i * PG, i, i == 3 ? 2 : 1);
	}
	share(a, &st);
	ck_assert_uint_eq(st.shared, 5);
	ck_assert_uint_eq(share_mappings(a), 1);
	share(b, &st);
	ck_assert_uint_eq(st.shared, 5);
	ck_assert_uint_eq(st.filled, 1);
	ck_assert_uint_eq(share_mappings(b), 3); /* 1-2, 3 (region 1), 4-5 */
	for (unsigned i = 1; i <= 5; i++) {
		ck_assert(holds(a + i * PG, i, 1) && is_file_page(a + i * PG));
		ck_assert(holds(b + i * PG, i, i == 3 ? 2 : 1) && is_file_page(b + i * PG));
	}
	munmap(a, N_PAGES * PG);
	munmap(b, N_PAGES * PG);
}
END_TEST

START_TEST(test_write_after_sharing_takes_a_copy)
{
	uint8_t *a = vm_map(), *b = vm_map();
	struct kernel_pages_stats st;

	fill(a + 4 * PG, 4, 1);
	fill(b + 4 * PG, 4, 1);
	share(a, &st);
	share(b, &st);
	ck_assert_uint_eq(st.shared, 1);

	fill(a + 4 * PG, 4, 2);
	ck_assert(!is_file_page(a + 4 * PG));
	ck_assert(holds(a + 4 * PG, 4, 2));
	ck_assert(holds(b + 4 * PG, 4, 1) && is_file_page(b + 4 * PG));
	ck_assert(slot_holds(0, 4, 1));
	munmap(a, N_PAGES * PG);
	munmap(b, N_PAGES * PG);
}
END_TEST

START_TEST(test_own_bytes_take_the_next_region)
{
	uint8_t *vm[KERNEL_PAGES_VARIANTS + 1];
	struct kernel_pages_stats st;

	/* Each "VM" patched page 6 its own way: a region each, then none left. */
	for (unsigned v = 0; v <= KERNEL_PAGES_VARIANTS; v++) {
		vm[v] = vm_map();
		fill(vm[v] + 6 * PG, 6, 10 + v);
		share(vm[v], &st);
		ck_assert_uint_eq(st.private_pages, 1);
		if (v < KERNEL_PAGES_VARIANTS) {
			ck_assert_uint_eq(st.shared, 1);
			ck_assert_uint_eq(st.filled, 1);
			ck_assert(slot_holds(v, 6, 10 + v));
			ck_assert(is_file_page(vm[v] + 6 * PG));
		} else {
			ck_assert_uint_eq(st.shared, 0);
			ck_assert_uint_eq(st.differed, 1);
			ck_assert(!is_file_page(vm[v] + 6 * PG));
		}
		ck_assert(holds(vm[v] + 6 * PG, 6, 10 + v));
	}
	/* A later VM like the third maps the third region's slot. */
	{
		uint8_t *c = vm_map();

		fill(c + 6 * PG, 6, 12);
		share(c, &st);
		ck_assert_uint_eq(st.shared, 1);
		ck_assert_uint_eq(st.filled, 0);
		if (geteuid() == 0)
			ck_assert_uint_eq(pfn(c + 6 * PG), pfn(vm[2] + 6 * PG));
		munmap(c, N_PAGES * PG);
	}
	for (unsigned v = 0; v <= KERNEL_PAGES_VARIANTS; v++)
		munmap(vm[v], N_PAGES * PG);
}
END_TEST

START_TEST(test_zero_page_not_shared)
{
	uint8_t *a = vm_map();
	struct kernel_pages_stats st;

	memset(a + 8 * PG, 0, PG);
	share(a, &st);
	ck_assert_uint_eq(st.private_pages, 1);
	ck_assert_uint_eq(st.shared, 0);
	ck_assert(!is_file_page(a + 8 * PG));
	ck_assert_uint_eq(st.filled, 0);
	munmap(a, N_PAGES * PG);
}
END_TEST

START_TEST(test_padding_left_alone)
{
	uint8_t *a = vm_map();
	struct kernel_pages_stats st;

	/* The guest reused the freed padding: its bytes are the guest's own. */
	fill(a + PADDING * PG, PADDING, 5);
	share(a, &st);
	ck_assert_uint_eq(st.private_pages, 1);
	ck_assert_uint_eq(st.padding, 1);
	ck_assert_uint_eq(st.shared, 0);
	ck_assert(!is_file_page(a + PADDING * PG));
	ck_assert(holds(a + PADDING * PG, PADDING, 5));
	ck_assert(!slot_holds(0, PADDING, 5));
	munmap(a, N_PAGES * PG);
}
END_TEST

START_TEST(test_file_refused_unless_private_and_ours)
{
	struct kernel_pages *kp = NULL;
	char link[600], empty[600];
	int fd;

	/* An empty kernel file, a closed fd. */
	snprintf(empty, sizeof(empty), "%s/empty", dir);
	fd = open(empty, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	ASSERT_ERRNO(kernel_pages_open(share_path, fd, false, &kp), EINVAL);
	close(fd);
	ASSERT_ERRNO(kernel_pages_open(share_path, fd, false, &kp), EBADF);

	/* Readable by others: someone else made it, or made it for others. */
	fd = open(share_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fchmod(fd, 0644), 0);
	close(fd);
	ASSERT_ERRNO(kernel_pages_open(share_path, kernel_fd, false, &kp), EPERM);
	ck_assert_int_eq(unlink(share_path), 0);

	/* A symlink, even to a good file. */
	snprintf(link, sizeof(link), "%s/link", dir);
	ck_assert_int_eq(symlink(share_path, link), 0);
	ASSERT_ERRNO(kernel_pages_open(link, kernel_fd, false, &kp), ELOOP);

	/* A directory. */
	ck_assert_int_eq(mkdir(share_path, 0700), 0);
	ck_assert_int_lt(kernel_pages_open(share_path, kernel_fd, false, &kp), 0);
	ck_assert_ptr_null(kp);
}
END_TEST

START_TEST(test_bad_ranges_refused)
{
	uint8_t *a = vm_map();
	struct kernel_pages_stats st = {0};
	struct kernel_pages *kp;

	ASSERT_OK(kernel_pages_open(share_path, kernel_fd, false, &kp));
	ASSERT_ERRNO(kernel_pages_share(kp, a + 1, 0, PG, &st), EINVAL);
	ASSERT_ERRNO(kernel_pages_share(kp, a, 100, PG, &st), EINVAL);
	ASSERT_ERRNO(kernel_pages_share(kp, a, 0, 100, &st), EINVAL);
	ASSERT_ERRNO(kernel_pages_share(kp, a, PG, N_PAGES * PG, &st), EINVAL);
	ASSERT_ERRNO(kernel_pages_share(kp, a, (N_PAGES + 1) * PG, 0, &st), EINVAL);
	ASSERT_OK(kernel_pages_share(kp, a, 0, N_PAGES * PG, &st));
	ck_assert_uint_eq(st.private_pages, 0);
	kernel_pages_free(kp);
	munmap(a, N_PAGES * PG);
}
END_TEST

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000u + (uint64_t) ts.tv_nsec / 1000000u;
}

/* Another VMM (another open file description) holds the lock: the wait ends with
 * -ETIMEDOUT, not before its timeout; once it lets go, the lock is taken. */
START_TEST(test_lock_waits_but_not_for_ever)
{
	struct kernel_pages *kp;
	uint64_t t0;
	int other;

	ASSERT_OK(kernel_pages_open(share_path, kernel_fd, false, &kp));
	other = open(share_path, O_RDWR | O_CLOEXEC);
	ck_assert_int_ge(other, 0);
	ck_assert_int_eq(flock(other, LOCK_EX | LOCK_NB), 0);
	t0 = now_ms();
	ASSERT_ERRNO(kernel_pages_lock(kp, 50), ETIMEDOUT);
	ck_assert_uint_ge(now_ms() - t0, 50);
	ASSERT_ERRNO(kernel_pages_lock(kp, 0), ETIMEDOUT);
	ck_assert_int_eq(flock(other, LOCK_UN), 0);
	ASSERT_OK(kernel_pages_lock(kp, 0));
	/* Held now: the other one cannot have it. */
	ck_assert_int_eq(flock(other, LOCK_EX | LOCK_NB), -1);
	ck_assert_int_eq(errno, EWOULDBLOCK);
	kernel_pages_unlock(kp);
	ck_assert_int_eq(flock(other, LOCK_EX | LOCK_NB), 0);
	close(other);
	kernel_pages_free(kp);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("kernel-pages");
	TCase *tc = tcase_create("share");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_pages_written_alike_are_shared);
	tcase_add_test(tc, test_runs_mapped_at_once);
	tcase_add_test(tc, test_write_after_sharing_takes_a_copy);
	tcase_add_test(tc, test_own_bytes_take_the_next_region);
	tcase_add_test(tc, test_zero_page_not_shared);
	tcase_add_test(tc, test_padding_left_alone);
	tcase_add_test(tc, test_file_refused_unless_private_and_ours);
	tcase_add_test(tc, test_bad_ranges_refused);
	tcase_add_test(tc, test_lock_waits_but_not_for_ever);
	suite_add_tcase(s, tc);
	return cctest_run_suite(s);
}
