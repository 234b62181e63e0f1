/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <string.h>

#include "arch/layout.h"
#include "arch/longmode.h"

#define PTE_P	 (1ull << 0)
#define PTE_RW	 (1ull << 1)
#define PTE_PS	 (1ull << 7)
#define PAGE_2M	 0x200000ull
#define CR0_PE	 (1ull << 0)
#define CR0_MP	 (1ull << 1)
#define CR0_ET	 (1ull << 4)
#define CR0_NE	 (1ull << 5)
#define CR0_WP	 (1ull << 16)
#define CR0_PG	 (1ull << 31)
#define CR4_PAE	 (1ull << 5)
#define EFER_LME (1ull << 8)
#define EFER_LMA (1ull << 10)

/* GDT descriptors: flat 64-bit code, flat data. */
#define GDT_CODE64 0x00af9b000000ffffull
#define GDT_DATA   0x00cf93000000ffffull

static uint64_t gdt_tss_low(uint64_t base, uint32_t limit)
{
	/* type 0x9 (available 64-bit TSS), present */
	return (limit & 0xffffull) | (base & 0xffffffull) << 16 | 0x89ull << 40 |
	       (uint64_t) ((limit >> 16) & 0xf) << 48 | ((base >> 24) & 0xffull) << 56;
}

int longmode_tables_write(const struct gmem *gm)
{
	uint64_t gdt[6] = {0, 0, GDT_CODE64, GDT_DATA, 0, 0};
	uint64_t pd[512];
	int r;

	gdt[4] = gdt_tss_low(LAYOUT_TSS_GPA, LAYOUT_TSS_SIZE - 1);
	gdt[5] = LAYOUT_TSS_GPA >> 32;
	r = gmem_write(gm, LAYOUT_GDT_GPA, gdt, sizeof(gdt));
	if (r < 0)
		return r;
	r = gmem_write_u64(gm, LAYOUT_PML4_GPA, LAYOUT_PDPT_GPA | PTE_P | PTE_RW);
	for (uint64_t i = 0; r >= 0 && i < 4; i++) {
		r = gmem_write_u64(gm, LAYOUT_PDPT_GPA + i * 8,
				   (LAYOUT_PD_GPA + i * 0x1000) | PTE_P | PTE_RW);
		for (uint64_t j = 0; j < 512; j++)
			pd[j] = (i << 30) + j * PAGE_2M + (PTE_P | PTE_RW | PTE_PS);
		if (r >= 0)
			r = gmem_write(gm, LAYOUT_PD_GPA + i * 0x1000, pd, sizeof(pd));
	}
	return r;
}

static void longmode_seg(struct kvm_segment *s, uint16_t sel, uint8_t type, int code64)
{
	*s = (struct kvm_segment){
		.base = 0,
		.limit = 0xffffffff,
		.selector = sel,
		.type = type,
		.present = 1,
		.dpl = 0,
		.db = code64 ? 0 : 1,
		.s = 1,
		.l = code64 ? 1 : 0,
		.g = 1,
	};
}

void longmode_sregs_setup(struct kvm_sregs *sregs)
{
	longmode_seg(&sregs->cs, LAYOUT_SEL_CS64, 0xb, 1);
	longmode_seg(&sregs->ds, LAYOUT_SEL_DS, 0x3, 0);
	sregs->es = sregs->ds;
	sregs->fs = sregs->ds;
	sregs->gs = sregs->ds;
	sregs->ss = sregs->ds;
	sregs->tr = (struct kvm_segment){
		.base = LAYOUT_TSS_GPA,
		.limit = LAYOUT_TSS_SIZE - 1,
		.selector = LAYOUT_SEL_TSS,
		.type = 0xb, /* busy 64-bit TSS */
		.present = 1,
	};
	sregs->ldt = (struct kvm_segment){.type = 0x2, .present = 1, .unusable = 1};
	sregs->gdt.base = LAYOUT_GDT_GPA;
	sregs->gdt.limit = 6 * 8 - 1;
	sregs->idt.base = 0;
	sregs->idt.limit = 0;
	sregs->cr0 = CR0_PE | CR0_MP | CR0_ET | CR0_NE | CR0_WP | CR0_PG;
	sregs->cr3 = LAYOUT_PML4_GPA;
	sregs->cr4 = CR4_PAE;
	sregs->efer = EFER_LME | EFER_LMA;
}

void longmode_regs_setup(struct kvm_regs *regs, uint64_t entry_gpa, uint64_t zero_page_gpa)
{
	memset(regs, 0, sizeof(*regs));
	regs->rflags = 0x2; /* reserved bit 1; IF clear */
	regs->rip = entry_gpa;
	regs->rsi = zero_page_gpa;
}

void longmode_fpu_setup(struct kvm_fpu *fpu)
{
	memset(fpu, 0, sizeof(*fpu));
	fpu->fcw = 0x37f;
	fpu->mxcsr = 0x1f80;
}
