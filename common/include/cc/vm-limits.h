/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The limits of a VM that cc-vmm and its callers must agree on (the stage1 sizes VMs against
 * them, cc-vmm refuses more: docs/stage1.md "VM sizing"). In common/ because both layers use
 * them and neither may include the other. Plain constants, no other include.
 */

/* vCPUs per VM: APIC IDs 0-13, the IOAPIC has ID 15 (arch/mptable.h). */
#define VM_MAX_CPUS 14
