/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Guest physical memory map (x86_64). Everything below 1 MiB is boot data written by the VMM;
 * the kernel goes at 1 MiB or above. RAM stops at 3 GiB and continues at 4 GiB, leaving a
 * 1 GiB MMIO hole for the virtio-mmio windows, the IOAPIC and the local APICs. The pmem image
 * goes above all RAM: it starts on a 128 MiB boundary (a memory section) and ends on a 2 MiB
 * one (a subsection, the granule of memremap_pages() and DAX), so that the guest's struct pages
 * for it (64 bytes per 4 KiB page, in guest RAM) cover the image and no padding.
 *
 *   0x00000500  GDT (null, null, code64 0x10, data 0x18, TSS 0x20)
 *   0x00000600  64-bit TSS (TR)
 *   0x00007000  boot_params (the zero page)
 *   0x00009000  PML4, 0xa000 PDPT, 0xb000-0xefff four PDs: 4 GiB identity map, 2 MiB pages
 *   0x00020000  kernel command line
 *   0x0009fc00  MP floating pointer and MP configuration table (EBDA, reserved in e820)
 *   0x000f0000  BIOS area (reserved in e820, empty)
 *   0x00100000  kernel (vmlinux: at its p_paddr, usually 16 MiB)
 *   0xc0000000  MMIO hole: 0xd0000000 virtio-mmio windows, 0xfec00000 IOAPIC,
 *               0xfee00000 LAPIC
 *   0x100000000 RAM above 3 GiB, then pmem
 */

#define LAYOUT_GDT_GPA		0x500ull
#define LAYOUT_TSS_GPA		0x600ull
#define LAYOUT_TSS_SIZE		0x68ull
#define LAYOUT_ZERO_PAGE_GPA	0x7000ull
#define LAYOUT_PML4_GPA		0x9000ull
#define LAYOUT_PDPT_GPA		0xa000ull
#define LAYOUT_PD_GPA		0xb000ull /* 4 pages */
#define LAYOUT_CMDLINE_GPA	0x20000ull
#define LAYOUT_CMDLINE_MAX	4096u
#define LAYOUT_EBDA_GPA		0x9fc00ull
#define LAYOUT_EBDA_END		0xa0000ull
#define LAYOUT_BIOS_GPA		0xf0000ull
#define LAYOUT_BIOS_END		0x100000ull
#define LAYOUT_HIGH_MEM_GPA	0x100000ull
#define LAYOUT_MMIO_HOLE_GPA	0xc0000000ull
#define LAYOUT_4G		0x100000000ull
#define LAYOUT_VIRTIO_MMIO_GPA	0xd0000000ull
#define LAYOUT_VIRTIO_MMIO_STEP 0x1000ull
#define LAYOUT_IOAPIC_GPA	0xfec00000ull
#define LAYOUT_LAPIC_GPA	0xfee00000ull
#define LAYOUT_KVM_IDMAP_GPA	0xfeffc000ull /* KVM_SET_IDENTITY_MAP_ADDR, one page */
#define LAYOUT_KVM_TSS_GPA	0xfeffd000ull /* KVM_SET_TSS_ADDR, three pages */
#define LAYOUT_PMEM_ALIGN	0x8000000ull  /* where the pmem region starts */
#define LAYOUT_PMEM_SIZE_ALIGN	0x200000ull   /* what its size is rounded up to */

/* Boot selectors (Linux's __BOOT_CS / __BOOT_DS) and the TSS selector. */
#define LAYOUT_SEL_CS64 0x10
#define LAYOUT_SEL_DS	0x18
#define LAYOUT_SEL_TSS	0x20

/* Legacy ports. */
#define PORT_COM1	   0x3f8
#define PORT_I8042_DATA	   0x60
#define PORT_I8042_CMD	   0x64
#define PORT_PCI_CONF_ADDR 0xcf8
#define PORT_PCI_CONF_DATA 0xcfc
#define PORT_BOOT_MARKER   0x0cc0
#define IRQ_COM1	   4
