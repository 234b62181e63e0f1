/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * 64-bit direct entry: the identity page tables (2 MiB pages: 1 GiB pages triple-fault under
 * some shadow MMUs), the GDT with the boot selectors and a 64-bit TSS, and the register state
 * Linux's 64-bit boot protocol expects (paging on, CS = __BOOT_CS long mode, DS/ES/SS =
 * __BOOT_DS, interrupts off, %rsi = boot_params).
 */

#include <linux/kvm.h>
#include <stdint.h>

#include "base/gmem.h"

#define LONGMODE_MAP_SIZE 0x100000000ull /* identity-mapped: the first 4 GiB */

/* Page tables, GDT and TSS into guest memory (see arch/layout.h). */
int longmode_tables_write(const struct gmem *gm);

/* Fills sregs (read from KVM first, so unknown fields keep their values). */
void longmode_sregs_setup(struct kvm_sregs *sregs);
void longmode_regs_setup(struct kvm_regs *regs, uint64_t entry_gpa, uint64_t zero_page_gpa);
void longmode_fpu_setup(struct kvm_fpu *fpu);
