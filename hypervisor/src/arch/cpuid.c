/* SPDX-License-Identifier: Apache-2.0 */
#include <string.h>

#include "arch/cpuid.h"

#define CPUID_1_ECX_HYPERVISOR (1u << 31)
#define CPUID_1_EDX_HTT	       (1u << 28)
#define KVM_CPUID_SIGNATURE    0x40000000u
#define KVM_CPUID_FEATURES     0x40000001u

#define MSR_IA32_TSC		0x10
#define MSR_IA32_SYSENTER_CS	0x174
#define MSR_IA32_SYSENTER_ESP	0x175
#define MSR_IA32_SYSENTER_EIP	0x176
#define MSR_IA32_MISC_ENABLE	0x1a0
#define MSR_MTRR_DEF_TYPE	0x2ff
#define MSR_STAR		0xc0000081
#define MSR_LSTAR		0xc0000082
#define MSR_CSTAR		0xc0000083
#define MSR_SYSCALL_MASK	0xc0000084
#define MSR_KERNEL_GS_BASE	0xc0000102
#define MISC_ENABLE_FAST_STRING 0x1
#define MTRR_ENABLE_WB		((1u << 11) | 6u)

void cpuid_patch(struct cpuid_table *t, unsigned apic_id, unsigned n_cpus)
{
	for (unsigned i = 0; i < t->nent && i < CPUID_MAX_ENTRIES; i++) {
		struct kvm_cpuid_entry2 *e = &t->entries[i];

		switch (e->function) {
		case 1:
			e->ebx = (e->ebx & 0xffff) | (n_cpus & 0xff) << 16 | (apic_id & 0xff) << 24;
			e->ecx |= CPUID_1_ECX_HYPERVISOR;
			if (n_cpus > 1)
				e->edx |= CPUID_1_EDX_HTT;
			break;
		case 0xb:
		case 0x1f:
			e->edx = apic_id;
			break;
		case KVM_CPUID_SIGNATURE:
			if (e->eax < KVM_CPUID_FEATURES)
				e->eax = KVM_CPUID_FEATURES;
			memcpy(&e->ebx, "KVMK", 4);
			memcpy(&e->ecx, "VMKV", 4);
			memcpy(&e->edx, "M\0\0\0", 4);
			break;
		default:
			break;
		}
	}
}

unsigned msrs_boot_fill(struct kvm_msr_entry *e, unsigned max)
{
	static const struct {
		uint32_t index;
		uint64_t data;
	} boot[] = {
		{MSR_IA32_SYSENTER_CS, 0},
		{MSR_IA32_SYSENTER_ESP, 0},
		{MSR_IA32_SYSENTER_EIP, 0},
		{MSR_STAR, 0},
		{MSR_CSTAR, 0},
		{MSR_KERNEL_GS_BASE, 0},
		{MSR_SYSCALL_MASK, 0},
		{MSR_LSTAR, 0},
		{MSR_IA32_TSC, 0},
		{MSR_IA32_MISC_ENABLE, MISC_ENABLE_FAST_STRING},
		{MSR_MTRR_DEF_TYPE, MTRR_ENABLE_WB},
	};
	unsigned n = 0;

	for (unsigned i = 0; i < sizeof(boot) / sizeof(boot[0]) && n < max; i++, n++)
		e[n] = (struct kvm_msr_entry){.index = boot[i].index, .data = boot[i].data};
	return n;
}
