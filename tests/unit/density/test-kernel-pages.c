/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Kernel pages shared between VMs (density/kernel-pages.h), with a kernel file mapped
 * MAP_PRIVATE twice or more, as two VMMs map it, and the real host-wide file: a page each
 * "VM" wrote alike ends up one page of that file in both (the first fills the slot, the next
 * maps it), with every byte as before, a run of such pages in one mapping; pages never written stay
 * the kernel file's; a page with bytes of its own takes the next region, and once every region
 * holds other bytes it stays private; a write after sharing takes a private copy again and changes
 * nothing else; a zero page is not shared, nor a page that is all zero in the kernel file (padding
 * the kernel frees); bad ranges are refused. The VMM side holds the file read-only only and
 * refuses a writable fd; slots are filled by the filler (cc/kernel-pages-filler.h), and a slot
 * that a hostile VMM filled with other bytes (or all zero) is never mapped by a VM whose page
 * differs, while one whose page matches maps it; a filler that refuses (its lock held) stops
 * the requests after one, and the page stays private.
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
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "density/balloon-map.h"
#include "density/kernel-pages.h"
#include "cc/kernel-pages-filler.h"
#include "cctest.h"

#define PG	BALLOON_PAGE_SIZE
#define N_PAGES 40u
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

/* As a VMM gets it: the file read-only and a channel to a filler of its own. */
static struct kernel_pages *vmm_open(void)
{
	struct kernel_pages *kp;
	int ro, chan;

	ASSERT_OK(kernel_pages_filler_spawn(share_path, kernel_fd, 20000, NULL, &ro, &chan));
	ASSERT_OK(kernel_pages_open(ro, chan, kernel_fd, false, &kp));
	return kp;
}

static void share(uint8_t *vm, struct kernel_pages_stats *st)
{
	struct kernel_pages *kp = vmm_open();

	*st = (struct kernel_pages_stats){0};
	ASSERT_OK(kernel_pages_share(kp, vm, 0, N_PAGES * PG, st));
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
	ck_assert_int_eq(sb.st_size, KERNEL_PAGES_VARIANTS * N_PAGES * PG + PG); /* + the map */
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

/* More slots to fill than the requests sent at a time: every page fills its own, in order. */
START_TEST(test_many_fills)
{
	uint8_t *a = vm_map(), *b = vm_map();
	struct kernel_pages_stats st;

	for (unsigned i = 0; i < N_PAGES; i++) {
		fill(a + i * PG, i, 1);
		fill(b + i * PG, i, i % 3 ? 1 : 2);
	}
	share(a, &st);
	ck_assert_uint_eq(st.private_pages, N_PAGES);
	ck_assert_uint_eq(st.padding, 1);
	ck_assert_uint_eq(st.filled, N_PAGES - 1);
	ck_assert_uint_eq(st.shared, N_PAGES - 1);
	share(b, &st);
	ck_assert_uint_eq(st.filled, (N_PAGES + 2) / 3 - 1); /* i % 3 == 0, but the padding */
	ck_assert_uint_eq(st.shared, N_PAGES - 1);
	for (unsigned i = 0; i < N_PAGES; i++) {
		if (i == PADDING)
			continue;
		ck_assert_msg(slot_holds(0, i, 1), "page %u", i);
		ck_assert_msg(i % 3 ? !slot_holds(1, i, 2) : slot_holds(1, i, 2), "page %u", i);
		ck_assert_msg(holds(a + i * PG, i, 1) && is_file_page(a + i * PG), "page %u", i);
		ck_assert_msg(holds(b + i * PG, i, i % 3 ? 1 : 2) && is_file_page(b + i * PG),
			      "page %u", i);
	}
	munmap(a, N_PAGES * PG);
	munmap(b, N_PAGES * PG);
}
END_TEST

/* Mappings of the shared file inside vm (the "VM"'s kernel mapping). */
static unsigned share_mappings(const uint8_t *vm)
{
	/* By its name alone: the file is mapped through a read-only clone of its directory's
	 * mount, which names it from that mount's root. */
	return cctest_count_mappings(vm, vm + N_PAGES * PG, strrchr(share_path, '/'));
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

/* A VMM is refused a writable fd of the file, one too small, a channel of another kind. */
START_TEST(test_vmm_side_refuses_what_it_must_not_hold)
{
	struct kernel_pages *kp = NULL;
	int rw, ro, sv[2], empty;
	char path[600];

	ASSERT_OK(kernel_pages_file_open(share_path, N_PAGES * PG, &rw, &ro));
	ASSERT_ERRNO(kernel_pages_open(fcntl(rw, F_DUPFD_CLOEXEC, 0), -1, kernel_fd, false, &kp),
		     EPERM);
	ASSERT_ERRNO(kernel_pages_open(open(share_path, O_WRONLY | O_CLOEXEC), -1, kernel_fd, false,
				       &kp),
		     EPERM);
	/* A stream socket, a pipe: not a channel of whole records. */
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	ASSERT_ERRNO(kernel_pages_open(fcntl(ro, F_DUPFD_CLOEXEC, 0), sv[0], kernel_fd, false, &kp),
		     EPROTOTYPE);
	close(sv[1]);
	ck_assert_int_eq(pipe2(sv, O_CLOEXEC), 0);
	ASSERT_ERRNO(kernel_pages_open(fcntl(ro, F_DUPFD_CLOEXEC, 0), sv[0], kernel_fd, false, &kp),
		     ENOTSOCK);
	close(sv[1]);
	/* The file of a smaller kernel (not this kernel's layout). */
	ck_assert_int_eq(ftruncate(rw, PG), 0);
	ASSERT_ERRNO(kernel_pages_open(fcntl(ro, F_DUPFD_CLOEXEC, 0), -1, kernel_fd, false, &kp),
		     EINVAL);
	/* An empty kernel file. */
	snprintf(path, sizeof(path), "%s/empty", dir);
	empty = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	ck_assert_int_ge(empty, 0);
	ASSERT_ERRNO(kernel_pages_open(fcntl(ro, F_DUPFD_CLOEXEC, 0), -1, empty, false, &kp),
		     EINVAL);
	ck_assert_ptr_null(kp);
	close(empty);
	close(rw);
	close(ro);
}
END_TEST

/* Every fd of this process open on the shared file is read-only (the test holds no other). */
static unsigned share_fds_writable(void)
{
	struct stat want, st;
	unsigned writable = 0, n = 0;

	ck_assert_int_eq(stat(share_path, &want), 0);
	for (int fd = 0; fd < 1024; fd++) {
		int fl;

		if (fstat(fd, &st) < 0 || st.st_dev != want.st_dev || st.st_ino != want.st_ino)
			continue;
		n++;
		fl = fcntl(fd, F_GETFL);
		ck_assert_int_ge(fl, 0);
		if ((fl & O_ACCMODE) != O_RDONLY)
			writable++;
	}
	ck_assert_uint_eq(n, 1); /* the VMM side's own, seen */
	return writable;
}

START_TEST(test_vmm_holds_no_writable_fd)
{
	uint8_t *a = vm_map();
	struct kernel_pages_stats st = {0};
	struct kernel_pages *kp = vmm_open();

	ck_assert_uint_eq(share_fds_writable(), 0);
	fill(a + 2 * PG, 2, 1);
	ASSERT_OK(kernel_pages_share(kp, a, 0, N_PAGES * PG, &st));
	ck_assert_uint_eq(st.filled, 1);
	ck_assert_uint_eq(share_fds_writable(), 0);
	kernel_pages_free(kp);
	munmap(a, N_PAGES * PG);
}
END_TEST

/* What a VMM a guest took over can do: send fill requests of its own on its channel. */
static void hostile_fill(unsigned v, unsigned i, unsigned c, bool zero)
{
	static struct kernel_pages_fill_req req;
	kernel_pages_fill_ans ans = 1;
	int ro, chan;

	ASSERT_OK(kernel_pages_filler_spawn(share_path, kernel_fd, 20000, NULL, &ro, &chan));
	req = (struct kernel_pages_fill_req){.region = v, .page = i};
	if (!zero)
		fill(req.bytes, i, c);
	ck_assert_int_eq(send(chan, &req, sizeof(req), 0), sizeof(req));
	ck_assert_int_eq(recv(chan, &ans, sizeof(ans), 0), sizeof(ans));
	ck_assert_int_eq(ans, 0);
	close(chan);
	close(ro);
}

/* Slot (0, 2) holds a hostile VMM's bytes: a VM whose page differs does not map it (it fills
 * region 1), one whose page matches maps it, each seeing its own bytes. */
START_TEST(test_hostile_fill_only_denies)
{
	uint8_t *a = vm_map(), *b = vm_map();
	struct kernel_pages_stats st;

	hostile_fill(0, 2, 7, false);
	fill(a + 2 * PG, 2, 1);
	share(a, &st);
	ck_assert_uint_eq(st.shared, 1);
	ck_assert_uint_eq(st.filled, 1);
	ck_assert(slot_holds(0, 2, 7) && slot_holds(1, 2, 1));
	ck_assert(holds(a + 2 * PG, 2, 1) && is_file_page(a + 2 * PG));
	fill(b + 2 * PG, 2, 7);
	share(b, &st);
	ck_assert_uint_eq(st.shared, 1);
	ck_assert_uint_eq(st.filled, 0);
	ck_assert(holds(b + 2 * PG, 2, 7) && is_file_page(b + 2 * PG));
	munmap(a, N_PAGES * PG);
	munmap(b, N_PAGES * PG);
}
END_TEST

/* Every region's slot of page 5 filled by a hostile VMM, one all zero (it looked empty once):
 * the page stays private with its bytes, and no slot changes. */
START_TEST(test_hostile_fills_everywhere_page_stays_private)
{
	uint8_t *a = vm_map();
	struct kernel_pages_stats st;

	hostile_fill(0, 5, 0, true);
	for (unsigned v = 1; v < KERNEL_PAGES_VARIANTS; v++)
		hostile_fill(v, 5, 20 + v, false);
	fill(a + 5 * PG, 5, 1);
	share(a, &st);
	ck_assert_uint_eq(st.private_pages, 1);
	ck_assert_uint_eq(st.shared, 0);
	ck_assert_uint_eq(st.differed, 1);
	ck_assert_uint_eq(st.refused, 0);
	ck_assert(!is_file_page(a + 5 * PG) && holds(a + 5 * PG, 5, 1));
	ck_assert(!slot_holds(0, 5, 1));
	for (unsigned v = 1; v < KERNEL_PAGES_VARIANTS; v++)
		ck_assert(slot_holds(v, 5, 20 + v));
	munmap(a, N_PAGES * PG);
}
END_TEST

START_TEST(test_bad_ranges_refused)
{
	uint8_t *a = vm_map();
	struct kernel_pages_stats st = {0};
	struct kernel_pages *kp;

	kp = vmm_open();
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

/* Another filler holds the file's lock (stopped mid-fill): this one refuses after its bounded
 * wait, once (the other requests sent with it are refused at once), and the VMM side asks for
 * no more fills; the pages stay private, a page whose slot was filled before is still shared. */
START_TEST(test_filler_lock_held_fills_refused_once)
{
	uint8_t *a = vm_map(), *b = vm_map();
	struct kernel_pages_stats st;
	uint64_t t0;
	int other;

	fill(a + 1 * PG, 1, 1);
	share(a, &st);
	ck_assert_uint_eq(st.filled, 1);
	other = open(share_path, O_RDWR | O_CLOEXEC);
	ck_assert_int_ge(other, 0);
	/* Waited for: a's filler lets go of it when it has read the end of its channel. */
	ck_assert_int_eq(flock(other, LOCK_EX), 0);
	fill(b + 1 * PG, 1, 1);
	for (unsigned i = 2; i <= 4; i++)
		fill(b + i * PG, i, 1);
	t0 = now_ms();
	share(b, &st);
	ck_assert_uint_ge(now_ms() - t0, KERNEL_PAGES_FILLER_LOCK_TIMEOUT_MS);
	ck_assert_uint_lt(now_ms() - t0, 2 * KERNEL_PAGES_FILLER_LOCK_TIMEOUT_MS);
	ck_assert_uint_eq(st.refused, 3); /* pages 2-4, sent together */
	ck_assert_uint_eq(st.shared, 1);
	ck_assert(is_file_page(b + 1 * PG));
	for (unsigned i = 2; i <= 4; i++)
		ck_assert(!is_file_page(b + i * PG) && holds(b + i * PG, i, 1));
	close(other);
	munmap(a, N_PAGES * PG);
	munmap(b, N_PAGES * PG);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("kernel-pages");
	TCase *tc = tcase_create("share");

	tcase_set_timeout(tc, 30); /* the lock case waits the filler's 3 s */
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_pages_written_alike_are_shared);
	tcase_add_test(tc, test_runs_mapped_at_once);
	tcase_add_test(tc, test_many_fills);
	tcase_add_test(tc, test_write_after_sharing_takes_a_copy);
	tcase_add_test(tc, test_own_bytes_take_the_next_region);
	tcase_add_test(tc, test_zero_page_not_shared);
	tcase_add_test(tc, test_padding_left_alone);
	tcase_add_test(tc, test_vmm_side_refuses_what_it_must_not_hold);
	tcase_add_test(tc, test_vmm_holds_no_writable_fd);
	tcase_add_test(tc, test_hostile_fill_only_denies);
	tcase_add_test(tc, test_hostile_fills_everywhere_page_stays_private);
	tcase_add_test(tc, test_bad_ranges_refused);
	tcase_add_test(tc, test_filler_lock_held_fills_refused_once);
	suite_add_tcase(s, tc);
	return cctest_run_suite(s);
}
