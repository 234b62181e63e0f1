/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kvm tier: cc-vmm --share-kernel-pages with the kpage-check guest (tests/guests/kpage-check.c),
 * under the default sandbox:
 * - the first VM fills the slot of the one text page it patched and maps it; the guest reads
 *   its bytes unchanged, and a later write takes a private copy again;
 * - a second VM with the same kernel maps that slot without filling it;
 * - the file is one per kernel file, mode 0600, four regions of the kernel file's size and
 *   the fill map;
 * - without the option nothing is shared; a directory that does not exist is a one-line error;
 * - a guest that writes another boot marker before init-start (past its init) shares nothing:
 *   the file is closed unshared, and its slot stays empty;
 * - while another filler holds the file's lock, this VM's filler waits for it a bounded time
 *   and refuses the fill; the VM runs on unshared (under the sandbox);
 * - a hostile VMM's fills (what a VMM a guest took over can send its filler): a slot filled
 *   with other bytes is never mapped by a VM whose page differs (it takes the next region, or
 *   stays private when every region's slot differs), one filled with the VM's own bytes is;
 * - --share-kernel-pages-fd RO,CHAN (as the stage1 passes it): shares through a filler the
 *   caller started; a writable fd of the file is refused with a one-line error.
 */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cc/kernel-pages-file.h"
#include "cc/kernel-pages-filler.h"
#include "cctest.h"
#include "vmm-run.h"

#define TIMEOUT_MS 120000

static struct vmm_result res;
static char *dir;

static void setup(void)
{
	dir = cctest_mkdtemp();
	ck_assert_int_eq(chmod(dir, 0700), 0);
}

static void teardown(void)
{
	cctest_rm_rf(dir);
	free(dir);
}

static void run_guest(bool share, const char *cmdline)
{
	char *argv[] = {"--kernel",  (char *) vmm_guest("kpage-check"),
			"--mem",     "64",
			"--cmdline", (char *) cmdline,
			"-vv",	     share ? "--share-kernel-pages" : NULL,
			dir,	     NULL};

	vmm_run(argv, TIMEOUT_MS, &res);
	ck_assert_msg(res.status == 0, "exit %d: %s", res.status, res.err);
	ck_assert_msg(strstr(res.out, "done\n"), "guest did not finish: %s", res.out);
	ck_assert_int_eq(vmm_kv(res.out, "shared_bad"), 0);
	ck_assert_int_eq(vmm_kv(res.out, "cow_bad"), 0);
}

START_TEST(test_shared_between_vms)
{
	char path[1024];
	struct dirent *de;
	struct stat ks, st;
	unsigned n = 0;
	DIR *d;

	run_guest(true, "x");
	ck_assert_msg(strstr(res.err,
			     "kernel pages: 1 private, 1 now shared (1 filled their slot), "
			     "0 with bytes of their own, 0 freed padding"),
		      "%s", res.err);
	run_guest(true, "x");
	ck_assert_msg(
		strstr(res.err, "kernel pages: 1 private, 1 now shared (0 filled their slot)"),
		"%s", res.err);

	ck_assert_int_eq(stat(vmm_guest("kpage-check"), &ks), 0);
	d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		n++;
		ck_assert_msg(strncmp(de->d_name, "vmlinux-", 8) == 0, "%s", de->d_name);
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		ck_assert_int_eq(stat(path, &st), 0);
		ck_assert_int_eq(st.st_mode & 07777, 0600);
		ck_assert_int_eq(st.st_size, kernel_pages_file_size((uint64_t) (ks.st_size + 4095) /
								    4096 * 4096));
	}
	closedir(d);
	ck_assert_uint_eq(n, 1);
}
END_TEST

START_TEST(test_off_without_option)
{
	run_guest(false, "x");
	ck_assert_msg(!strstr(res.err, "kernel pages"), "shared anyway: %s", res.err);
}
END_TEST

/* systemd-exec before init-start: closed unshared, and a later VM still fills the slot. */
START_TEST(test_late_marker_not_shared)
{
	run_guest(true, "late");
	ck_assert_msg(strstr(res.err, "kernel pages: boot marker 2 came before the share, not "
				      "shared"),
		      "%s", res.err);
	ck_assert_msg(!strstr(res.err, "now shared"), "shared anyway: %s", res.err);
	run_guest(true, "x");
	ck_assert_msg(
		strstr(res.err, "kernel pages: 1 private, 1 now shared (1 filled their slot)"),
		"%s", res.err);
}
END_TEST

START_TEST(test_missing_dir)
{
	char missing[1024];
	char *argv[] = {"--kernel", (char *) vmm_guest("kpage-check"), "--share-kernel-pages",
			missing, NULL};

	snprintf(missing, sizeof(missing), "%s/none", dir);
	vmm_run(argv, TIMEOUT_MS, &res);
	ck_assert_int_ne(res.status, 0);
	ck_assert_msg(strstr(res.err, "cannot open the shared kernel pages file"), "%s", res.err);
	ck_assert_msg(strchr(res.err, '\n') == res.err + strlen(res.err) - 1, "not one line: %s",
		      res.err);
}
END_TEST

/* The path of the file cc-vmm uses in dir for the kpage-check guest. */
static void share_file_path(char *path, size_t size, int *ret_kernel_fd)
{
	int kfd = open(vmm_guest("kpage-check"), O_RDONLY | O_CLOEXEC);

	ck_assert_int_ge(kfd, 0);
	ASSERT_OK(kernel_pages_file_path(dir, kfd, path, size));
	*ret_kernel_fd = kfd;
}

/* Another filler stopped while it holds the lock: this VM's filler gives up after its bounded
 * wait, and the VM runs on unshared. */
START_TEST(test_lock_held_elsewhere)
{
	char path[1024];
	int kfd, rw, ro;

	share_file_path(path, sizeof(path), &kfd);
	ASSERT_OK(kernel_pages_file_open(path, 1, &rw, &ro));
	ck_assert_int_eq(flock(rw, LOCK_EX), 0);
	run_guest(true, "x");
	ck_assert_msg(strstr(res.err,
			     "kernel pages: 1 private, 0 now shared (0 filled their slot), "
			     "0 with bytes of their own, 0 freed padding, 1 fills refused"),
		      "%s", res.err);
	close(rw);
	close(ro);
	close(kfd);
}
END_TEST

/* The kernel file's page that the guest patches: patched[0], all FILLER words. */
#define FILLER 0x1111111111111111ull
static uint64_t patched_page(int kfd)
{
	uint64_t buf[512];
	struct stat st;

	ck_assert_int_eq(fstat(kfd, &st), 0);
	for (off_t off = 0; off + 4096 <= st.st_size; off += 4096) {
		unsigned w = 0;

		ck_assert_int_eq(pread(kfd, buf, sizeof(buf), off), sizeof(buf));
		while (w < 512 && buf[w] == FILLER)
			w++;
		if (w == 512)
			return (uint64_t) off / 4096;
	}
	ck_abort_msg("no page of FILLER words in the guest");
	return 0;
}

/*
 * What a VMM a guest took over can do: fill slots of page through its own filler, region v
 * with the guest's patched page (word 7 as the guest writes it) where word7[v] is 0xabcdef0123,
 * else with word 7 = word7[v]; 0: leave that region alone.
 */
static void hostile_fills(const uint64_t word7[KERNEL_PAGES_VARIANTS])
{
	static struct kernel_pages_fill_req req;
	char path[1024];
	int kfd, ro, chan;
	uint64_t page;

	share_file_path(path, sizeof(path), &kfd);
	page = patched_page(kfd);
	ASSERT_OK(kernel_pages_filler_spawn(path, kfd, 20000, NULL, &ro, &chan));
	for (unsigned v = 0; v < KERNEL_PAGES_VARIANTS; v++) {
		uint64_t *w = (uint64_t *) (void *) req.bytes;
		kernel_pages_fill_ans ans = 1;

		if (!word7[v])
			continue;
		req = (struct kernel_pages_fill_req){.region = v, .page = page};
		for (unsigned i = 0; i < 512; i++)
			w[i] = FILLER;
		w[7] = word7[v];
		ck_assert_int_eq(send(chan, &req, sizeof(req), 0), sizeof(req));
		ck_assert_int_eq(recv(chan, &ans, sizeof(ans), 0), sizeof(ans));
		ck_assert_int_eq(ans, 0);
	}
	close(chan);
	close(ro);
	close(kfd);
}

/* Slot (0, P) holds other bytes: the VM fills and maps region 1's; the next VM maps that. */
START_TEST(test_hostile_fill_not_mapped)
{
	const uint64_t word7[KERNEL_PAGES_VARIANTS] = {0xbad};

	hostile_fills(word7);
	run_guest(true, "x");
	ck_assert_msg(strstr(res.err,
			     "kernel pages: 1 private, 1 now shared (1 filled their slot), "
			     "0 with bytes of their own"),
		      "%s", res.err);
	run_guest(true, "x");
	ck_assert_msg(
		strstr(res.err, "kernel pages: 1 private, 1 now shared (0 filled their slot)"),
		"%s", res.err);
}
END_TEST

/* Every region's slot of P holds other bytes (one of them all FILLER: the page the kernel
 * file has): the page stays private, the guest reads its own bytes. */
START_TEST(test_hostile_fills_everywhere_stay_private)
{
	const uint64_t word7[KERNEL_PAGES_VARIANTS] = {0xbad, FILLER, 0xabcdef0124, 1};

	hostile_fills(word7);
	run_guest(true, "x");
	ck_assert_msg(strstr(res.err,
			     "kernel pages: 1 private, 0 now shared (0 filled their slot), "
			     "1 with bytes of their own"),
		      "%s", res.err);
}
END_TEST

/* A hostile fill that holds what the guest's page holds, in region 2: mapped, nothing lost. */
START_TEST(test_hostile_fill_matching_mapped)
{
	const uint64_t word7[KERNEL_PAGES_VARIANTS] = {0xbad, 0xbad, 0xabcdef0123};

	hostile_fills(word7);
	run_guest(true, "x");
	ck_assert_msg(strstr(res.err,
			     "kernel pages: 1 private, 1 now shared (0 filled their slot), "
			     "0 with bytes of their own"),
		      "%s", res.err);
}
END_TEST

static void fd_inherit(int fd)
{
	ck_assert_int_eq(fcntl(fd, F_SETFD, 0), 0);
}

/* As the stage1 runs it: the file and the filler opened and started by the caller. */
START_TEST(test_fds_from_the_caller)
{
	char path[1024], fds[32];
	int kfd, ro, chan, rw, ro2, sv[2];
	char *argv[] = {"--kernel",
			(char *) vmm_guest("kpage-check"),
			"--mem",
			"64",
			"--share-kernel-pages-fd",
			fds,
			"-vv",
			NULL};

	share_file_path(path, sizeof(path), &kfd);
	ASSERT_OK(kernel_pages_filler_spawn(path, kfd, 20000, NULL, &ro, &chan));
	fd_inherit(ro);
	fd_inherit(chan);
	snprintf(fds, sizeof(fds), "%d,%d", ro, chan);
	vmm_run(argv, TIMEOUT_MS, &res);
	ck_assert_msg(res.status == 0, "exit %d: %s", res.status, res.err);
	ck_assert_int_eq(vmm_kv(res.out, "shared_bad"), 0);
	ck_assert_msg(
		strstr(res.err, "kernel pages: 1 private, 1 now shared (1 filled their slot)"),
		"%s", res.err);
	close(ro);
	close(chan);

	/* A writable fd of the file: refused before the VM starts. */
	ASSERT_OK(kernel_pages_file_open(path, 1, &rw, &ro2));
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	fd_inherit(rw);
	fd_inherit(sv[0]);
	snprintf(fds, sizeof(fds), "%d,%d", rw, sv[0]);
	argv[6] = NULL; /* no -vv: the error alone */
	vmm_run(argv, TIMEOUT_MS, &res);
	ck_assert_int_ne(res.status, 0);
	ck_assert_msg(strstr(res.err, "cannot use the shared kernel pages file"), "%s", res.err);
	ck_assert_msg(strchr(res.err, '\n') == res.err + strlen(res.err) - 1, "not one line: %s",
		      res.err);
	close(rw);
	close(ro2);
	close(sv[0]);
	close(sv[1]);
	close(kfd);

	/* Fds that are not open (not inherited), a malformed pair: refused, one line each. */
	snprintf(fds, sizeof(fds), "%d,%d", 900, 901);
	vmm_run(argv, TIMEOUT_MS, &res);
	ck_assert_int_ne(res.status, 0);
	ck_assert_msg(strstr(res.err, "--share-kernel-pages-fd: fd 900 or 901 is not open"), "%s",
		      res.err);
	ck_assert_msg(strchr(res.err, '\n') == res.err + strlen(res.err) - 1, "%s", res.err);
	snprintf(fds, sizeof(fds), "%s", "5,5");
	vmm_run(argv, TIMEOUT_MS, &res);
	ck_assert_int_eq(res.status, 2);
	ck_assert_msg(strstr(res.err, "--share-kernel-pages-fd: expected RO,CHAN"), "%s", res.err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vmm-kernel-pages");
	TCase *tc = tcase_create("share");

	vmm_require_kvm();
	tcase_set_timeout(tc, 300);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_shared_between_vms);
	tcase_add_test(tc, test_off_without_option);
	tcase_add_test(tc, test_late_marker_not_shared);
	tcase_add_test(tc, test_lock_held_elsewhere);
	tcase_add_test(tc, test_hostile_fill_not_mapped);
	tcase_add_test(tc, test_hostile_fills_everywhere_stay_private);
	tcase_add_test(tc, test_hostile_fill_matching_mapped);
	tcase_add_test(tc, test_fds_from_the_caller);
	tcase_add_test(tc, test_missing_dir);
	suite_add_tcase(s, tc);
	return cctest_run_suite(s);
}
