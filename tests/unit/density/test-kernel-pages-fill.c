/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The filler of the host-wide kernel pages file (cc/kernel-pages-file.h,
 * cc/kernel-pages-filler.h), the only writer of what other VMs map, against requests a hostile
 * VMM sends: a slot filled before is refused and keeps its bytes; a slot filled all zero is
 * filled (the map says so, not its bytes), so a second fill is refused; malformed records
 * (short, oversize, a region or page out of range, a nonzero pad) are refused without a byte
 * written; the lock is waited for a bounded time; the filler serves until the channel closes,
 * its deadline or its number of fills; the file is refused unless it is a private regular file
 * of ours, and the caller of kernel_pages_filler_spawn() gets only a read-only fd of it.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cc/kernel-pages-file.h"
#include "cc/kernel-pages-filler.h"
#include "cctest.h"

#define PG	KERNEL_PAGES_PAGE
#define N_PAGES 8u
#define REGION	((uint64_t) N_PAGES * PG)

static char *dir;
static char share_path[512], kernel_path[512];
static int rw = -1, ro = -1;
static struct kernel_pages_fill_req req;
/* The whole file before a refused request. */
static uint8_t *before;
static uint64_t file_size;

static void setup(void)
{
	dir = cctest_mkdtemp();
	snprintf(share_path, sizeof(share_path), "%s/shared", dir);
	snprintf(kernel_path, sizeof(kernel_path), "%s/vmlinux", dir);
	ASSERT_OK(kernel_pages_file_open(share_path, REGION - 100, &rw, &ro));
	file_size = kernel_pages_file_size(REGION);
	before = malloc(file_size);
	ck_assert_ptr_nonnull(before);
}

static void teardown(void)
{
	close(rw);
	close(ro);
	free(before);
	cctest_rm_rf(dir);
	free(dir);
}

static void request(unsigned v, uint64_t page, uint8_t byte)
{
	req = (struct kernel_pages_fill_req){.region = v, .page = page};
	memset(req.bytes, byte, PG);
}

static uint8_t map_byte(unsigned v, uint64_t page)
{
	uint8_t b;

	ck_assert_int_eq(pread(ro, &b, 1, kernel_pages_map_off(REGION, v, page)), 1);
	return b;
}

/* Every byte of the slot is byte. */
static bool slot_is(unsigned v, uint64_t page, uint8_t byte)
{
	alignas(8) uint8_t buf[PG];

	ck_assert_int_eq(pread(ro, buf, PG, kernel_pages_slot_off(REGION, v, page)), PG);
	for (unsigned i = 0; i < PG; i++)
		if (buf[i] != byte)
			return false;
	return true;
}

static void snapshot(void)
{
	ck_assert_int_eq(pread(ro, before, file_size, 0), (ssize_t) file_size);
}

static bool unchanged(void)
{
	uint8_t *now = malloc(file_size);
	bool same;

	ck_assert_ptr_nonnull(now);
	ck_assert_int_eq(pread(ro, now, file_size, 0), (ssize_t) file_size);
	same = memcmp(now, before, file_size) == 0;
	free(now);
	return same;
}

START_TEST(test_layout)
{
	struct stat st;

	ck_assert_int_eq(fstat(ro, &st), 0);
	ck_assert_int_eq(st.st_size, KERNEL_PAGES_VARIANTS * REGION + PG);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	ck_assert_int_eq(fcntl(ro, F_GETFL) & O_ACCMODE, O_RDONLY);
	ck_assert_uint_eq(kernel_pages_region_size(1), PG);
	ck_assert_uint_eq(kernel_pages_region_size(0), 0);
	ck_assert_uint_eq(kernel_pages_region_size(UINT64_MAX / 2), 0);
	ck_assert_int_eq(kernel_pages_map_off(REGION, 1, 2), KERNEL_PAGES_VARIANTS * REGION + 10);
}
END_TEST

START_TEST(test_filled_slot_refused_and_unchanged)
{
	request(1, 3, 0xaa);
	ASSERT_OK(kernel_pages_fill(rw, REGION, &req, sizeof(req), 0));
	ck_assert(slot_is(1, 3, 0xaa));
	ck_assert_uint_eq(map_byte(1, 3), 1);
	snapshot();
	request(1, 3, 0xbb);
	ASSERT_ERRNO(kernel_pages_fill(rw, REGION, &req, sizeof(req), 0), EEXIST);
	ck_assert(slot_is(1, 3, 0xaa));
	ck_assert(unchanged());
	/* The same slot of another region, another page of the same region: still free. */
	request(2, 3, 0xbb);
	ASSERT_OK(kernel_pages_fill(rw, REGION, &req, sizeof(req), 0));
	request(1, 4, 0xbb);
	ASSERT_OK(kernel_pages_fill(rw, REGION, &req, sizeof(req), 0));
}
END_TEST

/* An all-zero slot that was filled looks empty: the map, not the bytes, says it is filled. */
START_TEST(test_zero_fill_then_other_fill_refused)
{
	request(0, 5, 0);
	ASSERT_OK(kernel_pages_fill(rw, REGION, &req, sizeof(req), 0));
	ck_assert_uint_eq(map_byte(0, 5), 1);
	snapshot();
	request(0, 5, 0x90);
	ASSERT_ERRNO(kernel_pages_fill(rw, REGION, &req, sizeof(req), 0), EEXIST);
	ck_assert(slot_is(0, 5, 0));
	ck_assert(unchanged());
}
END_TEST

START_TEST(test_malformed_refused_without_writing)
{
	alignas(8) uint8_t big[sizeof(req) + 64];

	snapshot();
	request(0, 1, 0x55);
	ASSERT_ERRNO(kernel_pages_fill(rw, REGION, &req, sizeof(req) - 1, 0), EINVAL);
	ASSERT_ERRNO(kernel_pages_fill(rw, REGION, &req, 0, 0), EINVAL);
	memset(big, 0x55, sizeof(big));
	memcpy(big, &req, sizeof(req));
	ASSERT_ERRNO(kernel_pages_fill(rw, REGION, big, sizeof(big), 0), EINVAL);
	request(KERNEL_PAGES_VARIANTS, 1, 0x55);
	ASSERT_ERRNO(kernel_pages_fill(rw, REGION, &req, sizeof(req), 0), EINVAL);
	request(UINT32_MAX, 1, 0x55);
	ASSERT_ERRNO(kernel_pages_fill(rw, REGION, &req, sizeof(req), 0), EINVAL);
	request(0, N_PAGES, 0x55);
	ASSERT_ERRNO(kernel_pages_fill(rw, REGION, &req, sizeof(req), 0), EINVAL);
	request(0, UINT64_MAX, 0x55);
	ASSERT_ERRNO(kernel_pages_fill(rw, REGION, &req, sizeof(req), 0), EINVAL);
	request(0, 1, 0x55);
	req.zero = 1;
	ASSERT_ERRNO(kernel_pages_fill(rw, REGION, &req, sizeof(req), 0), EINVAL);
	ck_assert(unchanged());
	/* The last page of the last region is in range. */
	request(KERNEL_PAGES_VARIANTS - 1, N_PAGES - 1, 0x55);
	ASSERT_OK(kernel_pages_fill(rw, REGION, &req, sizeof(req), 0));
	ck_assert(slot_is(KERNEL_PAGES_VARIANTS - 1, N_PAGES - 1, 0x55));
}
END_TEST

START_TEST(test_lock_waited_not_for_ever)
{
	int other = open(share_path, O_RDWR | O_CLOEXEC);

	ck_assert_int_ge(other, 0);
	ck_assert_int_eq(flock(other, LOCK_EX | LOCK_NB), 0);
	snapshot();
	request(0, 2, 0x11);
	ASSERT_ERRNO(kernel_pages_fill(rw, REGION, &req, sizeof(req), 20), ETIMEDOUT);
	ck_assert(unchanged());
	ck_assert_int_eq(flock(other, LOCK_UN), 0);
	ASSERT_OK(kernel_pages_fill(rw, REGION, &req, sizeof(req), 20));
	/* Let go after the fill. */
	ck_assert_int_eq(flock(other, LOCK_EX | LOCK_NB), 0);
	close(other);
}
END_TEST

/* A filler serving max_fills on one end of a SEQPACKET pair, in a child; *chan: the other. */
static pid_t serve_child(uint64_t max_fills, int *chan)
{
	int sv[2];
	pid_t pid;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(sv[0]);
		_exit(kernel_pages_filler_serve(rw, REGION, sv[1], 20000, max_fills) < 0);
	}
	close(sv[1]);
	*chan = sv[0];
	return pid;
}

/* Another open file description of the file gets its lock within a second. */
static bool lock_free_soon(void)
{
	int other = open(share_path, O_RDONLY | O_CLOEXEC);
	bool got = false;

	ck_assert_int_ge(other, 0);
	for (unsigned i = 0; i < 100 && !got; i++) {
		got = flock(other, LOCK_EX | LOCK_NB) == 0;
		if (!got)
			usleep(10000);
	}
	close(other);
	return got;
}

static kernel_pages_fill_ans ask(int chan, const void *msg, size_t len)
{
	kernel_pages_fill_ans ans = 1;

	ck_assert_int_eq(send(chan, msg, len, 0), (ssize_t) len);
	ck_assert_int_eq(recv(chan, &ans, sizeof(ans), 0), sizeof(ans));
	return ans;
}

START_TEST(test_serve_answers_each_record)
{
	alignas(8) uint8_t big[sizeof(req) + 4096];
	int chan, status;
	pid_t pid = serve_child(2, &chan);

	snapshot();
	request(0, 1, 0x33);
	ck_assert_int_eq(ask(chan, &req, sizeof(req) - 8), -EINVAL);
	ck_assert_int_eq(ask(chan, &req, 1), -EINVAL);
	memset(big, 0, sizeof(big));
	memcpy(big, &req, sizeof(req));
	ck_assert_int_eq(ask(chan, big, sizeof(req) + 1), -EINVAL);
	ck_assert_int_eq(ask(chan, big, sizeof(big)), -EINVAL);
	request(0, N_PAGES, 0x33);
	ck_assert_int_eq(ask(chan, &req, sizeof(req)), -EINVAL);
	ck_assert(unchanged());
	request(0, 1, 0x33);
	ck_assert_int_eq(ask(chan, &req, sizeof(req)), 0);
	ck_assert_int_eq(ask(chan, &req, sizeof(req)), -EEXIST);
	request(0, 2, 0x33);
	ck_assert_int_eq(ask(chan, &req, sizeof(req)), 0);
	/* Idle, the filler does not keep the file's lock (it takes it for the requests queued
	 * together): another filler gets it. */
	ck_assert(lock_free_soon());
	/* Its two fills done: a third slot is refused. */
	snapshot();
	request(0, 3, 0x33);
	ck_assert_int_eq(ask(chan, &req, sizeof(req)), -EDQUOT);
	ck_assert(unchanged());
	/* The VMM closes its end: the filler is done, with success. */
	close(chan);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}
END_TEST

/* Requests sent together (as the VMM sends them), answered in order, one of them malformed. */
START_TEST(test_serve_queued_requests)
{
	kernel_pages_fill_ans ans;
	int chan, status;
	pid_t pid = serve_child(10, &chan);

	for (unsigned i = 0; i < 4; i++) {
		request(2, i, (uint8_t) (0x40 + i));
		ck_assert_int_eq(send(chan, &req, i == 2 ? sizeof(req) - 1 : sizeof(req), 0),
				 (ssize_t) (i == 2 ? sizeof(req) - 1 : sizeof(req)));
	}
	for (unsigned i = 0; i < 4; i++) {
		ck_assert_int_eq(recv(chan, &ans, sizeof(ans), 0), sizeof(ans));
		ck_assert_int_eq(ans, i == 2 ? -EINVAL : 0);
		ck_assert_uint_eq(map_byte(2, i), i != 2);
		if (i != 2)
			ck_assert(slot_is(2, i, (uint8_t) (0x40 + i)));
	}
	ck_assert(lock_free_soon());
	close(chan);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}
END_TEST

START_TEST(test_serve_deadline)
{
	int sv[2];

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	ASSERT_ERRNO(kernel_pages_filler_serve(rw, REGION, sv[1], 50, 10), ETIMEDOUT);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

/* The caller of spawn gets the file read-only and a channel; the filler behind it fills. */
START_TEST(test_spawn_gives_read_only)
{
	int kfd, fro = -1, chan = -1, status;
	uint8_t b = 0;
	pid_t pid;

	kfd = open(kernel_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	ck_assert_int_ge(kfd, 0);
	ck_assert_int_eq(ftruncate(kfd, (off_t) REGION - 100), 0);
	ASSERT_OK(kernel_pages_filler_spawn(share_path, kfd, 20000, NULL, &fro, &chan));
	ck_assert_int_eq(fcntl(fro, F_GETFL) & O_ACCMODE, O_RDONLY);
	ck_assert_int_ne(fcntl(fro, F_GETFD) & FD_CLOEXEC, 0);
	ck_assert_int_ne(fcntl(chan, F_GETFD) & FD_CLOEXEC, 0);
	ck_assert_int_eq(pwrite(fro, &b, 1, 0), -1);
	ck_assert_int_eq(errno, EBADF);
	request(3, 7, 0x77);
	ck_assert_int_eq(ask(chan, &req, sizeof(req)), 0);
	ck_assert(slot_is(3, 7, 0x77));
	close(chan);
	close(fro);
	/* A filler that is the caller's child ends, with success, once the channel closes. */
	ASSERT_OK(kernel_pages_filler_spawn(share_path, kfd, 20000, &pid, &fro, &chan));
	request(3, 6, 0x76);
	ck_assert_int_eq(ask(chan, &req, sizeof(req)), 0);
	close(chan);
	close(fro);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert(slot_is(3, 6, 0x76));
	/* An empty kernel file: refused. */
	ck_assert_int_eq(ftruncate(kfd, 0), 0);
	ASSERT_ERRNO(kernel_pages_filler_spawn(share_path, kfd, 20000, NULL, &fro, &chan), EINVAL);
	close(kfd);
}
END_TEST

START_TEST(test_file_refused_unless_private_and_ours)
{
	char path[600], link[600];
	int a = -1, b = -1, fd;

	/* Readable by others: someone else made it, or made it for others. */
	snprintf(path, sizeof(path), "%s/open", dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fchmod(fd, 0644), 0);
	close(fd);
	ASSERT_ERRNO(kernel_pages_file_open(path, REGION, &a, &b), EPERM);
	/* A symlink, even to a good file. */
	snprintf(link, sizeof(link), "%s/link", dir);
	ck_assert_int_eq(symlink(share_path, link), 0);
	ASSERT_ERRNO(kernel_pages_file_open(link, REGION, &a, &b), ELOOP);
	/* A directory, a FIFO. */
	snprintf(path, sizeof(path), "%s/dir", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	ck_assert_int_lt(kernel_pages_file_open(path, REGION, &a, &b), 0);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	ASSERT_ERRNO(kernel_pages_file_open(path, REGION, &a, &b), EPERM);
	/* No kernel, a kernel too large. */
	ASSERT_ERRNO(kernel_pages_file_open(share_path, 0, &a, &b), EINVAL);
	ASSERT_ERRNO(kernel_pages_file_open(share_path, UINT64_MAX / 2, &a, &b), EFBIG);
	ck_assert_int_eq(a, -1);
	ck_assert_int_eq(b, -1);
}
END_TEST

/*
 * The attacker holding the VMM's read-only fd (with capabilities over root's files, as a
 * jailed VMM has in its user namespace, or as root here) cannot open it again for writing
 * through /proc/self/fd: it is on a read-only mount. Nor can it map it shared and writable.
 */
START_TEST(test_read_only_fd_cannot_be_reopened_for_writing)
{
	char proc[64];
	int wfd = -1, rfd = -1, fd;

	ASSERT_OK(kernel_pages_file_open(share_path, REGION, &wfd, &rfd));
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", rfd);
	fd = open(proc, O_RDWR | O_CLOEXEC);
	ck_assert_msg(fd < 0 && errno == EROFS, "reopened for writing: fd %d, %s", fd,
		      strerror(errno));
	fd = open(proc, O_WRONLY | O_CLOEXEC);
	ck_assert_msg(fd < 0 && errno == EROFS, "reopened write-only: fd %d", fd);
	ck_assert_ptr_eq(mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, rfd, 0), MAP_FAILED);
	/* Reading through it still works. */
	fd = open(proc, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	close(fd);
	close(wfd);
	close(rfd);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("kernel-pages-fill");
	TCase *tc = tcase_create("fill");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_layout);
	tcase_add_test(tc, test_filled_slot_refused_and_unchanged);
	tcase_add_test(tc, test_zero_fill_then_other_fill_refused);
	tcase_add_test(tc, test_malformed_refused_without_writing);
	tcase_add_test(tc, test_lock_waited_not_for_ever);
	tcase_add_test(tc, test_serve_answers_each_record);
	tcase_add_test(tc, test_serve_queued_requests);
	tcase_add_test(tc, test_serve_deadline);
	tcase_add_test(tc, test_spawn_gives_read_only);
	tcase_add_test(tc, test_file_refused_unless_private_and_ours);
	tcase_add_test(tc, test_read_only_fd_cannot_be_reopened_for_writing);
	suite_add_tcase(s, tc);
	return cctest_run_suite(s);
}
