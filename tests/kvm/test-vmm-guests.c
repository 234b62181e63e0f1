/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kvm tier: cc-vmm against the host's /dev/kvm with the freestanding test guests of
 * tests/guests (entry state, boot_params, port/MMIO exits, boot markers, reset, triple fault,
 * two vCPUs, lifecycle).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cctest.h"
#include "vmm-run.h"
#include "vmm/exit.h"

#define TIMEOUT_MS 30000

#define RUN(res, ...)                                \
	do {                                         \
		char *_argv[] = {__VA_ARGS__, NULL}; \
		vmm_run(_argv, TIMEOUT_MS, (res));   \
	} while (0)

static struct vmm_result res;

static void assert_clean_exit(const struct vmm_result *r)
{
	ck_assert_msg(r->status == 0, "cc-vmm exited %d, stderr: %s", r->status, r->err);
	ck_assert_msg(r->err[0] == '\0', "cc-vmm printed on stderr: %s", r->err);
}

START_TEST(test_entry_state_is_linux_64bit_boot)
{
	long long cr0, cr4, efer, rflags;

	RUN(&res, "--kernel", (char *) vmm_guest("boot-check"), "--cmdline", "cctest=1 hello");
	assert_clean_exit(&res);
	ck_assert_msg(strstr(res.out, "done\n"), "guest did not finish: %s", res.out);
	ck_assert_int_eq(vmm_kv(res.out, "cs"), 0x10);
	ck_assert_int_eq(vmm_kv(res.out, "ds"), 0x18);
	ck_assert_int_eq(vmm_kv(res.out, "ss"), 0x18);
	ck_assert_int_eq(vmm_kv(res.out, "tr"), 0x20);
	cr0 = vmm_kv(res.out, "cr0");
	cr4 = vmm_kv(res.out, "cr4");
	efer = vmm_kv(res.out, "efer");
	rflags = vmm_kv(res.out, "rflags");
	ck_assert_msg((cr0 & 0x80000001) == 0x80000001, "cr0 %llx: PE|PG expected", cr0);
	ck_assert_msg(cr4 & 0x20, "cr4 %llx: PAE expected", cr4);
	ck_assert_msg((efer & 0x500) == 0x500, "efer %llx: LME|LMA expected", efer);
	ck_assert_msg(!(rflags & 0x200), "interrupts must be off at entry (rflags %llx)", rflags);
	ck_assert_int_eq(vmm_kv(res.out, "rsi"), 0x7000);
	/* the loader zeroes bss and keeps initialised data */
	ck_assert_int_eq(vmm_kv(res.out, "bss_nonzero"), 0);
	ck_assert_int_eq(vmm_kv(res.out, "data"), 0xc0ffee11);
}
END_TEST

START_TEST(test_boot_params_cmdline_and_e820)
{
	RUN(&res, "--kernel", (char *) vmm_guest("boot-check"), "--mem", "64", "--cmdline",
	    "console=hvc0 quiet cctest=42");
	assert_clean_exit(&res);
	ck_assert_int_eq(vmm_kv(res.out, "hdr"), 0x53726448);
	ck_assert_int_eq(vmm_kv(res.out, "boot_flag"), 0xaa55);
	ck_assert_int_eq(vmm_kv(res.out, "loader"), 0xff);
	ck_assert_msg(strstr(res.out, "\ncmdline=console=hvc0 quiet cctest=42"), "%s", res.out);
	ck_assert_int_eq(vmm_kv(res.out, "e820_entries"), 4);
	ck_assert_ptr_nonnull(strstr(res.out, "e820=0000000000000000 000000000009fc00 01\n"));
	ck_assert_ptr_nonnull(strstr(res.out, "e820=000000000009fc00 0000000000000400 02\n"));
	ck_assert_ptr_nonnull(strstr(res.out, "e820=00000000000f0000 0000000000010000 02\n"));
	ck_assert_ptr_nonnull(strstr(res.out, "e820=0000000000100000 0000000003f00000 01\n"));
}
END_TEST

START_TEST(test_e820_high_ram_and_pmem)
{
	char *dir = cctest_mkdtemp();
	char img[4200];
	FILE *f;

	snprintf(img, sizeof(img), "%s/image", dir);
	f = fopen(img, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(ftruncate(fileno(f), 3 << 20), 0);
	fclose(f);
	RUN(&res, "--kernel", (char *) vmm_guest("boot-check"), "--mem", "3200", "--pmem", img);
	assert_clean_exit(&res);
	/* RAM below the 3 GiB hole, the rest at 4 GiB, pmem 128 MiB-aligned above, its 3 MiB
	 * rounded up to 4 MiB (2 MiB subsections) */
	ck_assert_ptr_nonnull(strstr(res.out, "e820=0000000000100000 00000000bff00000 01\n"));
	ck_assert_ptr_nonnull(strstr(res.out, "e820=0000000100000000 0000000008000000 01\n"));
	ck_assert_msg(strstr(res.out, "e820=0000000108000000 0000000000400000 0c\n"), "%s",
		      res.out);
	cctest_rm_rf(dir);
	free(dir);
}
END_TEST

static void pmem_run(const char *mode, long long want_after, long long want_tail_after)
{
	char *dir = cctest_mkdtemp();
	char img[4200], arg[4300], head[8] = "";
	FILE *f;

	snprintf(img, sizeof(img), "%s/image", dir);
	f = fopen(img, "w");
	ck_assert_ptr_nonnull(f);
	fputs("PMEM-image", f);
	ck_assert_int_eq(ftruncate(fileno(f), 1 << 20), 0);
	fclose(f);
	snprintf(arg, sizeof(arg), "%s%s", img, mode);
	RUN(&res, "--kernel", (char *) vmm_guest("pmem-check"), "--pmem", arg);
	assert_clean_exit(&res);
	ck_assert_int_eq(vmm_kv(res.out, "pmem_base"), 0x100000000ll);
	ck_assert_int_eq(vmm_kv(res.out, "pmem_before"), 0x4d454d50); /* "PMEM" */
	ck_assert_int_eq(vmm_kv(res.out, "pmem_after"), want_after);
	/* The region is 2 MiB; past the 1 MiB image it is anonymous memory: zeros, no fault. */
	ck_assert_int_eq(vmm_kv(res.out, "pmem_size"), 0x200000ll);
	ck_assert_int_eq(vmm_kv(res.out, "pmem_tail_before"), 0);
	ck_assert_int_eq(vmm_kv(res.out, "pmem_tail_after"), want_tail_after);
	/* guest writes never reach the image */
	f = fopen(img, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fread(head, 1, 4, f), 4);
	fclose(f);
	ck_assert_str_eq(head, "PMEM");
	cctest_rm_rf(dir);
	free(dir);
}

START_TEST(test_pmem_read_only_by_default)
{
	pmem_run("", 0x4d454d50, 0);
}
END_TEST

START_TEST(test_pmem_rw_writes_stay_private)
{
	pmem_run(",rw", 0xdeadbeef, 0x7a11c0de);
}
END_TEST

START_TEST(test_port_and_mmio_exits_round_trip)
{
	RUN(&res, "--kernel", (char *) vmm_guest("io-check"));
	assert_clean_exit(&res);
	ck_assert_int_eq(vmm_kv(res.out, "pci_addr"), 0x80000000);
	ck_assert_int_eq(vmm_kv(res.out, "pci_class"), 0x06000000);
	ck_assert_int_eq(vmm_kv(res.out, "pci_absent"), 0xffffffff);
	ck_assert_int_eq(vmm_kv(res.out, "port_unclaimed"), 0xff);
	ck_assert_int_eq(vmm_kv(res.out, "mmio_unclaimed"), 0xffffffff);
	ck_assert_ptr_nonnull(strstr(res.out, "done\n"));
}
END_TEST

START_TEST(test_boot_markers_recorded)
{
	char *dir = cctest_mkdtemp();
	char path[4200], buf[4096] = "";
	const char *want[] = {
		"{\"code\":-1,\"name\":\"first-kvm-run\",\"ns\":",
		"{\"code\":1,\"name\":\"init-start\",\"ns\":",
		"{\"code\":2,\"name\":\"systemd-exec\",\"ns\":",
		"{\"code\":3,\"name\":\"app-started\",\"ns\":",
		"{\"code\":66,\"name\":\"marker-66\",\"ns\":",
	};
	unsigned long long last = 0;
	const char *p = buf;
	FILE *f;

	snprintf(path, sizeof(path), "%s/markers.json", dir);
	RUN(&res, "--kernel", (char *) vmm_guest("io-check"), "--boot-markers", path);
	assert_clean_exit(&res);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_gt(fread(buf, 1, sizeof(buf) - 1, f), 0);
	fclose(f);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		unsigned long long ns;

		ck_assert_msg(strncmp(p, want[i], strlen(want[i])) == 0, "line %zu: %s", i, p);
		ns = strtoull(p + strlen(want[i]), NULL, 10);
		ck_assert_msg(ns > 0 && ns >= last, "timestamps must grow: %llu after %llu", ns,
			      last);
		last = ns;
		p = strchr(p, '\n');
		ck_assert_ptr_nonnull(p);
		p++;
	}
	ck_assert_str_eq(p, "");
	cctest_rm_rf(dir);
	free(dir);
}
END_TEST

START_TEST(test_i8042_reset_exits_cleanly)
{
	RUN(&res, "--kernel", (char *) vmm_guest("hello"));
	assert_clean_exit(&res);
	ck_assert_str_eq(res.out, "X");
}
END_TEST

START_TEST(test_triple_fault_exits_cleanly)
{
	RUN(&res, "--kernel", (char *) vmm_guest("triple-fault"));
	assert_clean_exit(&res);
	ck_assert_str_eq(res.out, "faulting\n");
}
END_TEST

START_TEST(test_two_vcpus_come_up)
{
	RUN(&res, "--kernel", (char *) vmm_guest("smp"), "--cpus", "2");
	assert_clean_exit(&res);
	ck_assert_int_eq(vmm_kv(res.out, "mp_checksum"), 0);
	ck_assert_int_eq(vmm_kv(res.out, "mp_cpus"), 2);
	ck_assert_int_eq(vmm_kv(res.out, "bsp_apic_id"), 0);
	ck_assert_msg(vmm_kv(res.out, "ap_flag") == 0xa5, "the AP did not run: %s", res.out);
}
END_TEST

START_TEST(test_guest_crash_is_reported)
{
	RUN(&res, "--kernel", (char *) vmm_guest("crash"));
	ck_assert_msg(res.status == VMM_EXIT_GUEST_CRASH, "exit %d: %s", res.status, res.err);
	ck_assert_str_eq(res.out, "jumping\n");
	ck_assert_msg(strncmp(res.err, "cc-vmm: guest crashed on vCPU 0: ", 33) == 0, "%s",
		      res.err);
	ck_assert_msg(strstr(res.err, "rip 0xc0002000\n") && !strchr(res.err, '\n')[1], "%s",
		      res.err);
}
END_TEST

START_TEST(test_verbose_says_why_it_stopped)
{
	RUN(&res, "-v", "--kernel", (char *) vmm_guest("triple-fault"));
	ck_assert_int_eq(res.status, 0);
	ck_assert_str_eq(res.err, "cc-vmm: guest reset (triple fault)\n");
}
END_TEST

static Suite *guests_suite(void)
{
	Suite *s = suite_create("vmm-guests");
	TCase *tc = tcase_create("guests");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_entry_state_is_linux_64bit_boot);
	tcase_add_test(tc, test_boot_params_cmdline_and_e820);
	tcase_add_test(tc, test_e820_high_ram_and_pmem);
	tcase_add_test(tc, test_pmem_read_only_by_default);
	tcase_add_test(tc, test_pmem_rw_writes_stay_private);
	tcase_add_test(tc, test_port_and_mmio_exits_round_trip);
	tcase_add_test(tc, test_boot_markers_recorded);
	tcase_add_test(tc, test_i8042_reset_exits_cleanly);
	tcase_add_test(tc, test_triple_fault_exits_cleanly);
	tcase_add_test(tc, test_two_vcpus_come_up);
	tcase_add_test(tc, test_guest_crash_is_reported);
	tcase_add_test(tc, test_verbose_says_why_it_stopped);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	vmm_require_kvm();
	return cctest_run_suite(guests_suite());
}
