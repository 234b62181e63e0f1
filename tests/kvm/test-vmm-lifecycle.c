/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kvm tier: cc-vmm's lifecycle and failure modes: bad kernels and arguments are refused with
 * the documented exit status and one line on stderr; kernel text is a shared file mapping in
 * /proc/PID/smaps; SIGTERM stops the VM; no fds or threads beyond the expected ones.
 */
#include <check.h>
#include <dirent.h>
#include <elf.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cctest.h"
#include "vmm-run.h"
#include "vmm/exit.h"

#define TIMEOUT_MS 30000

static struct vmm_result res;
static char *tmpdir;

static void setup(void)
{
	tmpdir = cctest_mkdtemp();
}

static void teardown(void)
{
	cctest_rm_rf(tmpdir);
	free(tmpdir);
}

static void run2(const char *a0, const char *a1, const char *a2, const char *a3)
{
	char *argv[] = {(char *) a0, (char *) a1, (char *) a2, (char *) a3, NULL};

	vmm_run(argv, TIMEOUT_MS, &res);
}

/* One line on stderr, starting with "cc-vmm: " and containing 'what'. */
static void assert_one_line_error(int status, const char *what)
{
	const char *nl = strchr(res.err, '\n');

	ck_assert_msg(res.status == status, "exit %d, expected %d; stderr: %s", res.status, status,
		      res.err);
	ck_assert_msg(strncmp(res.err, "cc-vmm: ", 8) == 0, "stderr: %s", res.err);
	ck_assert_msg(nl && nl[1] == '\0', "expected one line, got: %s", res.err);
	ck_assert_msg(strstr(res.err, what), "expected '%s' in: %s", what, res.err);
	ck_assert_str_eq(res.out, "");
}

static char *write_file(const char *name, const void *data, size_t len)
{
	static char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(data, 1, len, f), len);
	fclose(f);
	return path;
}

static size_t read_guest(const char *name, uint8_t *buf, size_t size)
{
	FILE *f = fopen(vmm_guest(name), "r");
	size_t n;

	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, size, f);
	fclose(f);
	ck_assert_uint_gt(n, sizeof(Elf64_Ehdr));
	return n;
}

START_TEST(test_garbage_kernel_rejected)
{
	static const char garbage[] = "this is not a kernel, just some text that goes on for a bit";

	run2("--kernel", write_file("garbage", garbage, sizeof(garbage)), NULL, NULL);
	assert_one_line_error(VMM_EXIT_BAD_KERNEL, "not an ELF64 kernel or a bzImage");
}
END_TEST

START_TEST(test_missing_kernel_rejected)
{
	run2("--kernel", "/nonexistent/vmlinux", NULL, NULL);
	assert_one_line_error(VMM_EXIT_BAD_KERNEL, "cannot open kernel");
}
END_TEST

START_TEST(test_truncated_kernel_rejected)
{
	static uint8_t buf[65536];
	size_t n = read_guest("hello", buf, sizeof(buf));

	ck_assert_uint_gt(n, 0x1100);
	run2("--kernel", write_file("truncated", buf, 0x1100), NULL, NULL);
	assert_one_line_error(VMM_EXIT_BAD_KERNEL, "truncated");
}
END_TEST

START_TEST(test_overlapping_segments_rejected)
{
	static uint8_t buf[65536];
	size_t n = read_guest("hello", buf, sizeof(buf));
	Elf64_Ehdr eh;
	Elf64_Phdr ph[2];

	memcpy(&eh, buf, sizeof(eh));
	ck_assert_int_eq(eh.e_phnum, 2);
	memcpy(ph, buf + eh.e_phoff, sizeof(ph));
	ph[1].p_paddr = ph[0].p_paddr + 0x100; /* data lands inside text */
	memcpy(buf + eh.e_phoff, ph, sizeof(ph));
	run2("--kernel", write_file("overlap", buf, n), NULL, NULL);
	assert_one_line_error(VMM_EXIT_BAD_KERNEL, "overlap");
}
END_TEST

START_TEST(test_kernel_outside_ram_rejected)
{
	static uint8_t buf[65536];
	size_t n = read_guest("hello", buf, sizeof(buf));
	Elf64_Ehdr eh;
	Elf64_Phdr ph[2];

	memcpy(&eh, buf, sizeof(eh));
	memcpy(ph, buf + eh.e_phoff, sizeof(ph));
	ph[1].p_paddr = 0x40000000; /* 1 GiB, with 64 MiB of RAM */
	memcpy(buf + eh.e_phoff, ph, sizeof(ph));
	run2("--kernel", write_file("outside", buf, n), "--mem", "64");
	assert_one_line_error(VMM_EXIT_BAD_KERNEL, "outside guest RAM");
}
END_TEST

START_TEST(test_bad_arguments_exit_2)
{
	run2("--kernel", (char *) vmm_guest("hello"), "--mem", "lots");
	assert_one_line_error(VMM_EXIT_USAGE, "--mem");
	run2("--kernel", (char *) vmm_guest("hello"), "--cpus", "0");
	assert_one_line_error(VMM_EXIT_USAGE, "--cpus");
	run2("--cmdline", "x", NULL, NULL);
	assert_one_line_error(VMM_EXIT_USAGE, "--kernel is required");
	run2("--kernel", (char *) vmm_guest("hello"), "--pmem", "img,bogus");
	assert_one_line_error(VMM_EXIT_USAGE, "--pmem");
	run2("--kernel", (char *) vmm_guest("hello"), "--cmdline", "quiet\nroot=/dev/evil");
	assert_one_line_error(VMM_EXIT_USAGE, "control characters");
}
END_TEST

START_TEST(test_too_long_cmdline)
{
	static char cmdline[5000];

	memset(cmdline, 'a', sizeof(cmdline) - 1);
	run2("--kernel", (char *) vmm_guest("hello"), "--cmdline", cmdline);
	assert_one_line_error(VMM_EXIT_USAGE, "kernel command line too long");
}
END_TEST

START_TEST(test_missing_kvm_device)
{
	run2("--kernel", (char *) vmm_guest("hello"), "--kvm-device", "/nonexistent/kvm");
	assert_one_line_error(VMM_EXIT_NO_KVM, "cannot open /nonexistent/kvm");
}
END_TEST

START_TEST(test_missing_pmem_image)
{
	run2("--kernel", (char *) vmm_guest("hello"), "--pmem", "/nonexistent/image");
	assert_one_line_error(VMM_EXIT_BAD_IMAGE, "cannot open pmem image");
}
END_TEST

/*
 * Loop 0 without --ksm, 1 with it: then the kernel's mapping and guest RAM are mergeable
 * ("mg" in VmFlags), the kernel's too although it was mapped over RAM after RAM's advice.
 */
START_TEST(test_kernel_text_is_shared_file_mapping)
{
	const bool ksm = _i;
	char kernel[4096], path[64], line[4600];
	char *argv[] = {"--kernel", kernel, "--cpus", "2", ksm ? "--ksm" : NULL, NULL};
	struct vmm_proc p;
	FILE *f;
	int in_kernel = 0, found = 0, kernel_mg = -1, n_mg = 0;
	long rss_kb = -1;

	ck_assert_ptr_nonnull(realpath(vmm_guest("idle"), kernel));
	memset(&res, 0, sizeof(res));
	vmm_spawn(argv, &p);
	ck_assert_msg(vmm_wait_output(&p, "ready\n", TIMEOUT_MS, &res), "guest not ready: %s %s",
		      res.out, res.err);

	snprintf(path, sizeof(path), "/proc/%d/smaps", p.pid);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
			/* A mapping's first line. */
			in_kernel = strstr(line, kernel) != NULL;
			/* private file mapping, offset = the text segment's page-aligned offset */
			if (in_kernel) {
				found = 1;
				ck_assert_msg(strstr(line, " rw-p 00001000 "), "mapping: %s", line);
			}
		} else if (in_kernel && strncmp(line, "Rss:", 4) == 0) {
			rss_kb = strtol(line + 4, NULL, 10);
		} else if (strncmp(line, "VmFlags:", 8) == 0) {
			bool mg = strstr(line, " mg") != NULL;

			n_mg += mg;
			if (in_kernel)
				kernel_mg = mg;
		}
	}
	fclose(f);
	ck_assert_msg(found, "no file mapping of %s in smaps", kernel);
	ck_assert_int_eq(kernel_mg, ksm);
	/* With --ksm: the kernel's mapping and RAM (on both sides of it); without: none. */
	if (ksm)
		ck_assert_int_ge(n_mg, 2);
	else
		ck_assert_int_eq(n_mg, 0);
	ck_assert_msg(rss_kb > 0, "kernel text not faulted in from the file (Rss %ld kB)", rss_kb);

	/* threads: main (event loop) + 2 vCPUs; the kernel file itself is not kept open. The
	 * first vCPU can print "ready" before the second one's thread exists: allow it 5 s. */
	for (int i = 0; i < 500 && vmm_count_threads(p.pid) < 3; i++)
		(void) usleep(10 * 1000);
	ck_assert_uint_eq(vmm_count_threads(p.pid), 3);
	ck_assert_int_eq(vmm_count_fds(p.pid, kernel), 0);
	/* The VMM's own fds: /dev/kvm, the VM, 2 vCPUs, epoll, the stop eventfd, the signalfd,
	 * and for the virtio console an irqfd and 2 queue eventfds. (Inherited fds of the test
	 * harness are not the VMM's.) */
	ck_assert_int_eq(vmm_count_fds(p.pid, "/dev/kvm"), 1);
	ck_assert_int_eq(vmm_count_fds(p.pid, "anon_inode:kvm-vm"), 1);
	ck_assert_int_eq(vmm_count_fds(p.pid, "anon_inode:kvm-vcpu"), 2);
	ck_assert_int_eq(vmm_count_fds(p.pid, "anon_inode:[eventpoll]"), 1);
	ck_assert_int_eq(vmm_count_fds(p.pid, "anon_inode:[signalfd]"), 1);
	ck_assert_int_le(vmm_count_fds(p.pid, "anon_inode:[eventfd]"), 1 + 3);

	kill(p.pid, SIGTERM);
	vmm_finish(&p, TIMEOUT_MS, &res);
	ck_assert_int_eq(res.status, VMM_EXIT_SIGNAL_BASE + SIGTERM);
	ck_assert_str_eq(res.err, "");
}
END_TEST

static Suite *lifecycle_suite(void)
{
	Suite *s = suite_create("vmm-lifecycle");
	TCase *tc = tcase_create("lifecycle");

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_garbage_kernel_rejected);
	tcase_add_test(tc, test_missing_kernel_rejected);
	tcase_add_test(tc, test_truncated_kernel_rejected);
	tcase_add_test(tc, test_overlapping_segments_rejected);
	tcase_add_test(tc, test_kernel_outside_ram_rejected);
	tcase_add_test(tc, test_bad_arguments_exit_2);
	tcase_add_test(tc, test_too_long_cmdline);
	tcase_add_test(tc, test_missing_kvm_device);
	tcase_add_test(tc, test_missing_pmem_image);
	tcase_add_loop_test(tc, test_kernel_text_is_shared_file_mapping, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	vmm_require_kvm();
	return cctest_run_suite(lifecycle_suite());
}
