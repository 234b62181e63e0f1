/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The boot data builders (e820, boot_params, MP table, command line, page tables and GDT,
 * sregs, CPUID) and the memslot splitter, with crafted inputs and no KVM.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arch/bootparams.h"
#include "arch/cpuid.h"
#include "arch/e820.h"
#include "arch/layout.h"
#include "arch/longmode.h"
#include "arch/mptable.h"
#include "cctest.h"
#include "vm/cmdline.h"
#include "vm/memslot.h"

#define MIB (1024ull * 1024)

START_TEST(test_e820_low_ram_only)
{
	struct e820_map m;

	ASSERT_OK(e820_build(&m, 128 * MIB, 0, 0, 0));
	ck_assert_uint_eq(m.n, 4);
	ck_assert_uint_eq(m.entries[0].addr, 0);
	ck_assert_uint_eq(m.entries[0].size, 0x9fc00);
	ck_assert_uint_eq(m.entries[0].type, E820_RAM);
	ck_assert_uint_eq(m.entries[1].type, E820_RESERVED);
	ck_assert_uint_eq(m.entries[2].addr, 0xf0000);
	ck_assert_uint_eq(m.entries[2].type, E820_RESERVED);
	ck_assert_uint_eq(m.entries[3].addr, MIB);
	ck_assert_uint_eq(m.entries[3].size, 127 * MIB);
	ck_assert_uint_eq(m.entries[3].type, E820_RAM);
}
END_TEST

START_TEST(test_e820_high_ram_and_pmem)
{
	struct e820_map m;

	ASSERT_OK(e820_build(&m, 3072 * MIB, 1024 * MIB, 5ull << 30, 256 * MIB));
	ck_assert_uint_eq(m.n, 6);
	ck_assert_uint_eq(m.entries[4].addr, 1ull << 32);
	ck_assert_uint_eq(m.entries[4].size, 1024 * MIB);
	ck_assert_uint_eq(m.entries[5].addr, 5ull << 30);
	ck_assert_uint_eq(m.entries[5].type, E820_PMEM);
	ck_assert_uint_eq(sizeof(struct e820_entry), 20);
}
END_TEST

START_TEST(test_e820_rejects_bad_input)
{
	struct e820_map m;

	ASSERT_ERRNO(e820_build(&m, MIB / 2, 0, 0, 0), EINVAL);
	ASSERT_ERRNO(e820_build(&m, 4096 * MIB, 0, 0, 0), EINVAL);
	memset(&m, 0, sizeof(m));
	ASSERT_OK(e820_add(&m, 0x1000, 0x1000, E820_RAM));
	ASSERT_ERRNO(e820_add(&m, 0x1800, 0x1000, E820_RAM), EINVAL); /* overlaps, out of order */
	ASSERT_ERRNO(e820_add(&m, 0x3000, 0, E820_RAM), EINVAL);
	ASSERT_ERRNO(e820_add(&m, UINT64_MAX, 2, E820_RAM), EINVAL);
	for (unsigned i = 1; i < E820_MAX_ENTRIES; i++)
		ASSERT_OK(e820_add(&m, 0x10000ull * (i + 1), 0x1000, E820_RAM));
	ASSERT_ERRNO(e820_add(&m, 1ull << 40, 0x1000, E820_RAM), ENOSPC);
}
END_TEST

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

START_TEST(test_boot_params_for_elf)
{
	static uint8_t zp[BOOTPARAMS_SIZE];
	struct kernel_image img = {.kind = KERNEL_ELF64};
	struct e820_map m;

	ASSERT_OK(e820_build(&m, 64 * MIB, 0, 0, 0));
	memset(zp, 0xcc, sizeof(zp));
	ASSERT_OK(bootparams_build(zp, &img, &m, 0x20000, 42));
	ck_assert_uint_eq(get32(zp + BP_HEADER), 0x53726448);
	ck_assert_uint_eq(zp[BP_BOOT_FLAG] | zp[BP_BOOT_FLAG + 1] << 8, 0xaa55);
	ck_assert_uint_eq(zp[BP_TYPE_OF_LOADER], 0xff);
	ck_assert_uint_eq(zp[BP_LOADFLAGS] & 0x81, 0x81);
	ck_assert_uint_eq(get32(zp + BP_CMD_LINE_PTR), 0x20000);
	ck_assert_uint_eq(get32(zp + BP_EXT_CMD_LINE_PTR), 0);
	ck_assert_uint_eq(get32(zp + BP_CMDLINE_SIZE), 42);
	ck_assert_uint_eq(zp[BP_E820_ENTRIES], 4);
	ck_assert_int_eq(memcmp(zp + BP_E820_TABLE, m.entries, 4 * 20), 0);
	ck_assert_uint_eq(zp[0x1ef], 0); /* sentinel: Linux would wipe the zero page */
	ck_assert_uint_eq(zp[0x000], 0); /* screen_info and the rest: zeroed */
}
END_TEST

START_TEST(test_boot_params_for_bzimage_copies_setup_header)
{
	static uint8_t zp[BOOTPARAMS_SIZE];
	struct kernel_image img = {.kind = KERNEL_BZIMAGE, .setup_hdr_len = 0x20};
	struct e820_map m;

	memset(img.setup_hdr, 0x5a, sizeof(img.setup_hdr));
	ASSERT_OK(e820_build(&m, 64 * MIB, 0, 0, 0));
	ASSERT_OK(bootparams_build(zp, &img, &m, 0x20000, 1));
	ck_assert_uint_eq(zp[BP_SETUP_SECTS], 0x5a);
	ck_assert_uint_eq(zp[BP_SETUP_SECTS + 0x1e], 0x5a);
	ck_assert_uint_eq(zp[BP_TYPE_OF_LOADER], 0xff);
	img.setup_hdr_len = KERNEL_SETUP_HDR_MAX + 1;
	ASSERT_ERRNO(bootparams_build(zp, &img, &m, 0x20000, 1), EINVAL);
}
END_TEST

START_TEST(test_mptable_checksums_and_entries)
{
	static uint8_t buf[1024];
	const uint8_t *t;
	size_t len;
	unsigned cpus = 0, ioapics = 0, irqs = 0, bsp = 0;

	ASSERT_OK(mptable_build(buf, sizeof(buf), 0x9fc00, 4, &len));
	ck_assert_int_eq(memcmp(buf, "_MP_", 4), 0);
	ck_assert_uint_eq(mptable_checksum(buf, 16), 0);
	ck_assert_uint_eq(get32(buf + 4), 0x9fc00 + 16);
	t = buf + 16;
	ck_assert_int_eq(memcmp(t, "PCMP", 4), 0);
	ck_assert_uint_eq(t[4] | t[5] << 8, len - 16);
	ck_assert_uint_eq(mptable_checksum(t, len - 16), 0);
	ck_assert_uint_eq(get32(t + 36), 0xfee00000);
	for (const uint8_t *e = t + 44; e < buf + len;) {
		if (e[0] == 0) {
			ck_assert_uint_eq(e[1], cpus); /* APIC ID = vCPU index */
			bsp += (e[3] & 2) != 0;
			ck_assert_msg((e[3] & 2) == 0 || e[1] == 0, "BSP must be APIC 0");
			cpus++;
			e += 20;
			continue;
		}
		if (e[0] == 2) {
			ioapics++;
			ck_assert_uint_eq(get32(e + 4), 0xfec00000);
		}
		if (e[0] == 3) {
			ck_assert_uint_eq(e[5], e[7]); /* identity ISA IRQ -> pin */
			irqs++;
		}
		e += 8;
	}
	ck_assert_uint_eq(cpus, 4);
	ck_assert_uint_eq(bsp, 1);
	ck_assert_uint_eq(ioapics, 1);
	ck_assert_uint_eq(irqs, MPTABLE_IOAPIC_PINS);
	ck_assert_uint_le(len, LAYOUT_EBDA_END - LAYOUT_EBDA_GPA);
}
END_TEST

START_TEST(test_mptable_rejects_bad_input)
{
	static uint8_t buf[1024];
	size_t len;

	ASSERT_ERRNO(mptable_build(buf, 100, 0x9fc00, 2, &len), ENOSPC);
	ASSERT_ERRNO(mptable_build(buf, sizeof(buf), 0x9fc00, 0, &len), EINVAL);
	ASSERT_ERRNO(mptable_build(buf, sizeof(buf), 0x9fc00, MPTABLE_IOAPIC_ID, &len), EINVAL);
	ASSERT_OK(mptable_build(buf, sizeof(buf), 0x9fc00, 16 - 2, &len));
}
END_TEST

START_TEST(test_cmdline_append)
{
	char buf[16] = "";

	ASSERT_OK(cmdline_append(buf, sizeof(buf), "quiet"));
	ck_assert_str_eq(buf, "quiet");
	ASSERT_OK(cmdline_append(buf, sizeof(buf), "a=1"));
	ck_assert_str_eq(buf, "quiet a=1");
	ASSERT_OK(cmdline_append(buf, sizeof(buf), ""));
	ck_assert_str_eq(buf, "quiet a=1");
	ASSERT_ERRNO(cmdline_append(buf, sizeof(buf), "b=1234"), E2BIG); /* 9 + 1 + 6 + 1 > 16 */
	ck_assert_str_eq(buf, "quiet a=1");
	ASSERT_OK(cmdline_append(buf, sizeof(buf), "b=12"));
	ck_assert_str_eq(buf, "quiet a=1 b=12");
	ASSERT_ERRNO(cmdline_append(buf, sizeof(buf), "\n"), EINVAL);
}
END_TEST

START_TEST(test_memslot_split)
{
	struct memslot_range out[8];
	struct memslot_range holes[2] = {{.gpa = 0x5000, .size = 0x1000},
					 {.gpa = 0x2000, .size = 0x1000}};
	int n;

	n = memslot_split(0, 0x10000, holes, 2, out, 8);
	ck_assert_int_eq(n, 3);
	ck_assert_uint_eq(out[0].gpa, 0);
	ck_assert_uint_eq(out[0].size, 0x2000);
	ck_assert_uint_eq(out[1].gpa, 0x3000);
	ck_assert_uint_eq(out[1].size, 0x2000);
	ck_assert_uint_eq(out[2].gpa, 0x6000);
	ck_assert_uint_eq(out[2].size, 0xa000);
	/* holes at the edges, and outside the range */
	holes[0] = (struct memslot_range){.gpa = 0, .size = 0x1000};
	holes[1] = (struct memslot_range){.gpa = 0xf000, .size = 0x4000};
	n = memslot_split(0, 0x10000, holes, 2, out, 8);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(out[0].gpa, 0x1000);
	ck_assert_uint_eq(out[0].size, 0xe000);
	n = memslot_split(0x100000, 0x1000, holes, 2, out, 8);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(memslot_split(0, 0x10000, NULL, 0, out, 0), -ENOSPC);
}
END_TEST

START_TEST(test_longmode_tables)
{
	struct gmem gm;
	uint8_t *ram = calloc(1, MIB);
	uint64_t v, gdt[6];

	ck_assert_ptr_nonnull(ram);
	gmem_init(&gm);
	ASSERT_OK(gmem_add_region(&gm, 0, MIB, ram, 0));
	ASSERT_OK(longmode_tables_write(&gm));
	ASSERT_OK(gmem_read_u64(&gm, LAYOUT_PML4_GPA, &v));
	ck_assert_uint_eq(v, LAYOUT_PDPT_GPA | 3);
	ASSERT_OK(gmem_read_u64(&gm, LAYOUT_PDPT_GPA + 3 * 8, &v));
	ck_assert_uint_eq(v, (LAYOUT_PD_GPA + 3 * 0x1000) | 3);
	/* last 2 MiB page of the 4 GiB map: present, writable, PS */
	ASSERT_OK(gmem_read_u64(&gm, LAYOUT_PD_GPA + 3 * 0x1000 + 511 * 8, &v));
	ck_assert_uint_eq(v, (0xffe00000ull) | 0x83);
	ASSERT_OK(gmem_read(&gm, LAYOUT_GDT_GPA, gdt, sizeof(gdt)));
	ck_assert_uint_eq(gdt[LAYOUT_SEL_CS64 / 8], 0x00af9b000000ffffull);
	ck_assert_uint_eq(gdt[LAYOUT_SEL_DS / 8], 0x00cf93000000ffffull);
	ck_assert_uint_eq((gdt[LAYOUT_SEL_TSS / 8] >> 40) & 0xff, 0x89);
	ck_assert_uint_eq((gdt[LAYOUT_SEL_TSS / 8] >> 16) & 0xffffff, LAYOUT_TSS_GPA);
	free(ram);
}
END_TEST

START_TEST(test_longmode_registers)
{
	struct kvm_sregs s;
	struct kvm_regs r;

	memset(&s, 0xa5, sizeof(s));
	longmode_sregs_setup(&s);
	ck_assert_uint_eq(s.cs.selector, 0x10);
	ck_assert_uint_eq(s.cs.l, 1);
	ck_assert_uint_eq(s.cs.db, 0);
	ck_assert_uint_eq(s.ss.selector, 0x18);
	ck_assert_uint_eq(s.tr.selector, 0x20);
	ck_assert_uint_eq(s.tr.type, 0xb);
	ck_assert_uint_eq(s.cr0 & 0x80000001, 0x80000001);
	ck_assert_uint_eq(s.cr4 & 0x20, 0x20);
	ck_assert_uint_eq(s.efer & 0x500, 0x500);
	ck_assert_uint_eq(s.cr3, LAYOUT_PML4_GPA);
	longmode_regs_setup(&r, 0x1000000, 0x7000);
	ck_assert_uint_eq(r.rip, 0x1000000);
	ck_assert_uint_eq(r.rsi, 0x7000);
	ck_assert_uint_eq(r.rflags, 2);
}
END_TEST

START_TEST(test_cpuid_patch_per_vcpu)
{
	static struct cpuid_table t;

	t.nent = 3;
	t.entries[0] = (struct kvm_cpuid_entry2){.function = 1, .ebx = 0xff00abcd};
	t.entries[1] = (struct kvm_cpuid_entry2){.function = 0xb, .index = 1, .edx = 99};
	t.entries[2] = (struct kvm_cpuid_entry2){.function = 0x40000000};
	cpuid_patch(&t, 3, 4);
	ck_assert_uint_eq(t.entries[0].ebx, 0x0304abcd);
	ck_assert_uint_eq(t.entries[0].ecx >> 31, 1);
	ck_assert_uint_eq((t.entries[0].edx >> 28) & 1, 1);
	ck_assert_uint_eq(t.entries[1].edx, 3);
	ck_assert_uint_eq(t.entries[2].eax, 0x40000001);
	ck_assert_int_eq(memcmp(&t.entries[2].ebx, "KVMK", 4), 0);
	ck_assert_int_eq(memcmp(&t.entries[2].ecx, "VMKV", 4), 0);
}
END_TEST

START_TEST(test_boot_msrs)
{
	struct kvm_msr_entry e[MSRS_BOOT_MAX];
	unsigned n = msrs_boot_fill(e, MSRS_BOOT_MAX);
	int misc = 0;

	ck_assert_uint_ge(n, 8);
	for (unsigned i = 0; i < n; i++)
		misc |= e[i].index == 0x1a0 && e[i].data == 1;
	ck_assert(misc);
	ck_assert_uint_eq(msrs_boot_fill(e, 2), 2);
}
END_TEST

static Suite *boot_suite(void)
{
	Suite *s = suite_create("vmm-boot");
	TCase *tc = tcase_create("builders");

	tcase_add_test(tc, test_e820_low_ram_only);
	tcase_add_test(tc, test_e820_high_ram_and_pmem);
	tcase_add_test(tc, test_e820_rejects_bad_input);
	tcase_add_test(tc, test_boot_params_for_elf);
	tcase_add_test(tc, test_boot_params_for_bzimage_copies_setup_header);
	tcase_add_test(tc, test_mptable_checksums_and_entries);
	tcase_add_test(tc, test_mptable_rejects_bad_input);
	tcase_add_test(tc, test_cmdline_append);
	tcase_add_test(tc, test_memslot_split);
	tcase_add_test(tc, test_longmode_tables);
	tcase_add_test(tc, test_longmode_registers);
	tcase_add_test(tc, test_cpuid_patch_per_vcpu);
	tcase_add_test(tc, test_boot_msrs);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(boot_suite());
}
