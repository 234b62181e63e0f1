/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <string.h>

#include "cc/macro.h"
#include "iobus.h"

void iobus_init(struct iobus *bus)
{
	memset(bus, 0, sizeof(*bus));
}

int iobus_register(struct iobus *bus, uint64_t base, uint64_t len, const struct iobus_ops *ops,
		   void *opaque)
{
	uint64_t end;

	assert_return(bus && ops, -EINVAL);
	if (len == 0 || add_overflows_u64(base, len, &end))
		return -EINVAL;
	for (unsigned i = 0; i < bus->n_ranges; i++) {
		const struct iobus_range *r = &bus->ranges[i];
		if (base < r->base + r->len && r->base < end)
			return -EEXIST;
	}
	if (bus->n_ranges >= IOBUS_MAX_RANGES)
		return -ENOSPC;
	bus->ranges[bus->n_ranges++] =
		(struct iobus_range){.base = base, .len = len, .ops = ops, .opaque = opaque};
	return 0;
}

bool iobus_dispatch(const struct iobus *bus, uint64_t addr, void *data, uint32_t len, bool is_write)
{
	for (unsigned i = 0; i < bus->n_ranges; i++) {
		const struct iobus_range *r = &bus->ranges[i];
		uint64_t off;

		if (addr < r->base || addr - r->base >= r->len)
			continue;
		off = addr - r->base;
		if (len > r->len - off)
			break;
		if (is_write) {
			if (r->ops->write)
				r->ops->write(r->opaque, off, data, len);
		} else if (r->ops->read) {
			r->ops->read(r->opaque, off, data, len);
		} else {
			memset(data, 0xff, len);
		}
		return true;
	}
	if (!is_write)
		memset(data, 0xff, len);
	return false;
}
