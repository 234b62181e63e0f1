/* SPDX-License-Identifier: Apache-2.0 */
#include <string.h>

#include "pci/hostbridge.h"

#define PCI_ENABLE	    0x80000000u
#define PCI_CLASS_BRIDGE    0x06
#define PCI_SUBCLASS_HOST   0x00
#define PCI_CFG_VENDOR	    0x00
#define PCI_CFG_DEVICE	    0x02
#define PCI_CFG_CLASS_REV   0x08
#define PCI_CFG_HEADER_TYPE 0x0e

void pci_host_init(struct pci_host *h)
{
	uint16_t vendor = PCI_HOST_VENDOR, device = PCI_HOST_DEVICE;

	memset(h, 0, sizeof(*h));
	memcpy(h->config + PCI_CFG_VENDOR, &vendor, 2);
	memcpy(h->config + PCI_CFG_DEVICE, &device, 2);
	h->config[PCI_CFG_CLASS_REV + 2] = PCI_SUBCLASS_HOST;
	h->config[PCI_CFG_CLASS_REV + 3] = PCI_CLASS_BRIDGE;
	h->config[PCI_CFG_HEADER_TYPE] = 0;
}

static void pci_host_read(void *opaque, uint64_t off, void *data, uint32_t len)
{
	struct pci_host *h = opaque;
	uint8_t *out = data;

	if (off < 4) {
		uint32_t a = h->addr >> (off * 8);

		memcpy(data, &a, len <= 4 - off ? len : 4 - off);
		return;
	}
	memset(data, 0xff, len);
	/* bus 0, device 0, function 0 only */
	if ((h->addr & PCI_ENABLE) && (h->addr & 0x00fff800u) == 0 && !(h->addr & 0x700)) {
		uint32_t reg = (h->addr & 0xfc) + (uint32_t) (off - 4);

		for (uint32_t i = 0; i < len && reg + i < sizeof(h->config); i++)
			out[i] = h->config[reg + i];
	}
}

static void pci_host_write(void *opaque, uint64_t off, const void *data, uint32_t len)
{
	struct pci_host *h = opaque;

	/* Only whole 32-bit writes set the address; config writes are dropped. */
	if (off == 0 && len == 4)
		memcpy(&h->addr, data, 4);
}

const struct iobus_ops pci_host_iobus_ops = {
	.read = pci_host_read,
	.write = pci_host_write,
};
