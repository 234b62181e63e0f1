/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * cc-vmm's limits that its callers size a VM against (the stage1 includes this header, so
 * one number rules both: docs/stage1.md "VM sizing"). Plain constants, no other include.
 */

/* vCPUs per VM: APIC IDs 0-13, the IOAPIC has ID 15 (arch/mptable.h). */
#define VM_MAX_CPUS 14
