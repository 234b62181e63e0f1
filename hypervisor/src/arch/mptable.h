/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The Intel MultiProcessor table (MP spec 1.4), so that Linux finds the CPUs, the IOAPIC and
 * the interrupt routing without ACPI: a floating pointer ("_MP_") followed by the
 * configuration table ("PCMP") with one processor entry per vCPU (APIC ID = vCPU index; vCPU
 * 0 is the boot processor), one ISA bus, the IOAPIC, an identity route of ISA IRQs 0-15 to
 * IOAPIC pins 0-15 plus the listed extra pins (virtio-mmio GSIs 16-23), and the local
 * ExtINT/NMI lines.
 */

#include <stddef.h>
#include <stdint.h>

#define MPTABLE_IOAPIC_ID   0x0f /* above every vCPU APIC ID (VM_MAX_CPUS <= 15) */
#define MPTABLE_IOAPIC_PINS 24

/* Builds the table into buf (to be placed at gpa). -ENOSPC if buf is too small. */
int mptable_build(uint8_t *buf, size_t size, uint64_t gpa, unsigned n_cpus, size_t *ret_len);

/* Sum of bytes, for checking: a valid table sums to 0 (mod 256). */
uint8_t mptable_checksum(const uint8_t *p, size_t len);
