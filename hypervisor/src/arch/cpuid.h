/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Per-vCPU CPUID and boot MSRs. The CPUID table starts as KVM_GET_SUPPORTED_CPUID (which
 * carries KVM's paravirt leaves 0x40000000/0x40000001 with kvm-clock) and is patched per vCPU:
 * the initial APIC ID and logical CPU count in leaf 1, the x2APIC ID in leaves 0xb/0x1f, the
 * hypervisor bit, and the KVM signature.
 */

#include <linux/kvm.h>
#include <stdint.h>

#define CPUID_MAX_ENTRIES 256
#define MSRS_BOOT_MAX	  16

/* Laid out as struct kvm_cpuid2 with room for its flexible array. */
struct cpuid_table {
	uint32_t nent;
	uint32_t padding;
	struct kvm_cpuid_entry2 entries[CPUID_MAX_ENTRIES];
};

/* Laid out as struct kvm_msrs with room for its flexible array. */
struct msr_table {
	uint32_t nmsrs;
	uint32_t pad;
	struct kvm_msr_entry entries[MSRS_BOOT_MAX];
};

void cpuid_patch(struct cpuid_table *t, unsigned apic_id, unsigned n_cpus);

/* The MSRs Linux's 64-bit entry expects; returns how many entries were filled. */
unsigned msrs_boot_fill(struct kvm_msr_entry *e, unsigned max);
