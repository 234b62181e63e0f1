/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Minimal PCI configuration access (mechanism #1: address at 0xcf8, data at 0xcfc-0xcff)
 * with one device, a host bridge at 00:00.0 and nothing else. It exists because Linux 6.1
 * registers legacy pmem (e820 type 12) only from its PCI resource survey; with a host bridge
 * there, the survey runs and /dev/pmem0 appears. The bridge has no BARs; its config space is
 * read-only (writes are dropped), every other bus/device/function reads as absent (all-ones).
 */

#include <stdint.h>

#include "base/iobus.h"

#define PCI_HOST_VENDOR 0x1b36 /* generic "Red Hat, Inc." IDs used for virtual bridges */
#define PCI_HOST_DEVICE 0x0008 /* PCIe host bridge */

struct pci_host {
	uint32_t addr; /* last value written to 0xcf8 */
	uint8_t config[256];
};

void pci_host_init(struct pci_host *h);
/* Registered at 0xcf8 for 8 ports: offsets 0-3 address, 4-7 data. */
extern const struct iobus_ops pci_host_iobus_ops;
