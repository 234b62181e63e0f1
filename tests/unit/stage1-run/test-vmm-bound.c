/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The VMM's bound (vmm-bound.h): memory.max, pids.max and RLIMIT_DATA sized from the VM (the
 * documented examples of docs/stage1.md, "The VMM's bound"), refused sizes, and RLIMIT_DATA
 * set on another process (the supervisor's child) as run does.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cctest.h"
#include "vmm-bound.h"

#define MIB (UINT64_C(1) << 20)

START_TEST(test_default_pod)
{
	struct vm_size sz = {.mem_mib = 128, .cpus = 1};
	struct vmm_bound b;

	ASSERT_OK(vmm_bound_compute(&sz, 0, &b));
	ck_assert_uint_eq(b.memory_max, (128 + 64 + 4) * MIB);
	ck_assert_uint_eq(b.pids_max, 17);
	ck_assert_uint_eq(b.data_max, (128 + 64 + 4 + 2 * 16) * MIB);
}
END_TEST

START_TEST(test_scales_with_the_vm)
{
	/* The rich test pod: 640 MiB, 2 vCPUs, a 300 MiB image. */
	struct vm_size sz = {.mem_mib = 640, .cpus = 2};
	struct vmm_bound b;

	ASSERT_OK(vmm_bound_compute(&sz, 300 * MIB, &b));
	ck_assert_uint_eq(b.memory_max, (640 + 64 + 20) * MIB);
	ck_assert_uint_eq(b.pids_max, 18);
	ck_assert_uint_eq(b.data_max, (640 + 64 + 20 + 300 + 3 * 16) * MIB);
	/* 64 GiB, 14 vCPUs: the RAM-proportional part is 2 GiB. */
	sz = (struct vm_size){.mem_mib = 65536, .cpus = 14};
	ASSERT_OK(vmm_bound_compute(&sz, 0, &b));
	ck_assert_uint_eq(b.memory_max, (65536 + 64 + 2048) * MIB);
	ck_assert_uint_eq(b.pids_max, 30);
}
END_TEST

START_TEST(test_refused)
{
	struct vm_size sz = {.mem_mib = 0, .cpus = 1};
	struct vmm_bound b;

	ASSERT_ERRNO(vmm_bound_compute(&sz, 0, &b), EINVAL);
	sz = (struct vm_size){.mem_mib = 128, .cpus = 0};
	ASSERT_ERRNO(vmm_bound_compute(&sz, 0, &b), EINVAL);
	sz = (struct vm_size){.mem_mib = UINT64_MAX / 2, .cpus = 1};
	ASSERT_ERRNO(vmm_bound_compute(&sz, 0, &b), EOVERFLOW);
	sz = (struct vm_size){.mem_mib = 128, .cpus = 1};
	ASSERT_ERRNO(vmm_bound_compute(&sz, UINT64_MAX - 10, &b), EOVERFLOW);
}
END_TEST

START_TEST(test_rlimit_on_child)
{
	struct vmm_bound b = {.data_max = 229 * MIB};
	struct rlimit rl;
	int gate[2], st;
	pid_t pid;
	char c;

	ck_assert_int_eq(pipe(gate), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		/* Wait for the limit, then report whether a 512 MiB private writable mapping (what
		 * malloc makes for it, and what RLIMIT_DATA counts) is refused: mmap itself, as a
		 * sanitizer's malloc would abort rather than return NULL. */
		close(gate[1]);
		if (read(gate[0], &c, 1) != 1)
			_exit(2);
		_exit(getrlimit(RLIMIT_DATA, &rl) == 0 && rl.rlim_cur == 229 * MIB &&
				      rl.rlim_max == 229 * MIB &&
				      mmap(NULL, 512 * MIB, PROT_READ | PROT_WRITE,
					   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED
			      ? 0
			      : 1);
	}
	close(gate[0]);
	ASSERT_OK(vmm_bound_rlimit_apply(pid, &b));
	ck_assert_int_eq(prlimit(pid, RLIMIT_DATA, NULL, &rl), 0);
	ck_assert_uint_eq(rl.rlim_cur, 229 * MIB);
	ck_assert_int_eq(write(gate[1], "g", 1), 1);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %d", st);
	ASSERT_ERRNO(vmm_bound_rlimit_apply(0, &b), EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vmm-bound");
	TCase *tc = tcase_create("compute");

	tcase_add_test(tc, test_default_pod);
	tcase_add_test(tc, test_scales_with_the_vm);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_rlimit_on_child);
	suite_add_tcase(s, tc);
	return cctest_run_suite(s);
}
