/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * An interrupt line as a device sees it. With KVM the line is an irqfd (an eventfd bound to
 * a GSI of the in-kernel IOAPIC with KVM_IRQFD), so raising it from the event-loop thread does
 * not stop a vCPU. Unit tests plug in a fake that records calls.
 */

#include <stdint.h>

struct irq_line_ops {
	/* Edge-trigger the line once. Safe from any thread. */
	int (*trigger)(void *opaque);
};

struct irq_line {
	const struct irq_line_ops *ops;
	void *opaque;
	uint32_t gsi;
};

static inline int irq_line_trigger(struct irq_line *line)
{
	return line->ops->trigger(line->opaque);
}
