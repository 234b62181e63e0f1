/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Port and MMIO round trips: the PCI host bridge (address latch and config read), an
 * unclaimed port and MMIO address (all-ones), the first virtio-mmio window's magic, and the
 * boot-marker port (codes 1, 2, 3 and 0x42). Prints the values read, then resets.
 */
#include "guest.h"

void guest_main(const uint8_t *bp)
{
	(void) bp;
	outl(0xcf8, 0x80000000u);
	putkv("pci_addr", inl(0xcf8), 8);
	putkv("pci_id", inl(0xcfc), 8);
	outl(0xcf8, 0x80000008u);
	putkv("pci_class", inl(0xcfc), 8);
	outl(0xcf8, 0x80000800u); /* device 1: absent */
	putkv("pci_absent", inl(0xcfc), 8);
	putkv("port_unclaimed", inb(0x2f8), 2);
	mmio_write32(0xc0001000, 0x12345678);
	putkv("mmio_unclaimed", mmio_read32(0xc0001000), 8);
	putkv("virtio_magic", mmio_read32(0xd0000000), 8);
	putkv("virtio_version", mmio_read32(0xd0000004), 8);
	putkv("virtio_device", mmio_read32(0xd0000008), 8);
	outb(BOOT_MARKER, 1);
	outb(BOOT_MARKER, 2);
	outb(BOOT_MARKER, 3);
	outb(BOOT_MARKER, 0x42);
	puts_serial("done\n");
}
