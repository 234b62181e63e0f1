/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <string.h>

#include "cc/macro.h"
#include "gmem.h"

void gmem_init(struct gmem *gm)
{
	memset(gm, 0, sizeof(*gm));
}

int gmem_add_region(struct gmem *gm, uint64_t gpa, uint64_t size, void *hva, uint32_t flags)
{
	uint64_t end;

	assert_return(gm && hva, -EINVAL);
	if (size == 0 || add_overflows_u64(gpa, size, &end))
		return -EINVAL;
	for (unsigned i = 0; i < gm->n_regions; i++) {
		const struct gmem_region *r = &gm->regions[i];
		if (gpa < r->gpa + r->size && r->gpa < end)
			return -EEXIST;
	}
	if (gm->n_regions >= GMEM_MAX_REGIONS)
		return -ENOSPC;
	gm->regions[gm->n_regions++] =
		(struct gmem_region){.gpa = gpa, .size = size, .hva = hva, .flags = flags};
	return 0;
}

static const struct gmem_region *gmem_find(const struct gmem *gm, uint64_t gpa, uint64_t len)
{
	uint64_t end;

	if (add_overflows_u64(gpa, len, &end))
		return NULL;
	for (unsigned i = 0; i < gm->n_regions; i++) {
		const struct gmem_region *r = &gm->regions[i];
		/* r->gpa + r->size cannot overflow: checked in gmem_add_region(). */
		if (gpa >= r->gpa && end <= r->gpa + r->size)
			return r;
	}
	return NULL;
}

int gmem_ptr(const struct gmem *gm, uint64_t gpa, uint64_t len, void **ret_hva)
{
	const struct gmem_region *r = gmem_find(gm, gpa, len);

	if (!r)
		return -EFAULT;
	*ret_hva = (uint8_t *) r->hva + (gpa - r->gpa);
	return 0;
}

int gmem_ptr_rw(const struct gmem *gm, uint64_t gpa, uint64_t len, void **ret_hva)
{
	const struct gmem_region *r = gmem_find(gm, gpa, len);

	if (!r || (r->flags & GMEM_READONLY))
		return -EFAULT;
	*ret_hva = (uint8_t *) r->hva + (gpa - r->gpa);
	return 0;
}

/* Largest chunk starting at gpa that lies inside one region, at most len. */
static const struct gmem_region *gmem_chunk(const struct gmem *gm, uint64_t gpa, size_t len,
					    size_t *ret_chunk)
{
	for (unsigned i = 0; i < gm->n_regions; i++) {
		const struct gmem_region *r = &gm->regions[i];
		if (gpa >= r->gpa && gpa - r->gpa < r->size) {
			uint64_t room = r->size - (gpa - r->gpa);
			*ret_chunk = room < len ? (size_t) room : len;
			return r;
		}
	}
	return NULL;
}

int gmem_read(const struct gmem *gm, uint64_t gpa, void *buf, size_t len)
{
	uint8_t *out = buf;
	uint64_t end;

	if (add_overflows_u64(gpa, len, &end))
		return -EFAULT;
	while (len > 0) {
		size_t chunk;
		const struct gmem_region *r = gmem_chunk(gm, gpa, len, &chunk);

		if (!r)
			return -EFAULT;
		memcpy(out, (const uint8_t *) r->hva + (gpa - r->gpa), chunk);
		out += chunk;
		gpa += chunk;
		len -= chunk;
	}
	return 0;
}

int gmem_write(const struct gmem *gm, uint64_t gpa, const void *buf, size_t len)
{
	const uint8_t *in = buf;
	uint64_t end;

	if (add_overflows_u64(gpa, len, &end))
		return -EFAULT;
	while (len > 0) {
		size_t chunk;
		const struct gmem_region *r = gmem_chunk(gm, gpa, len, &chunk);

		if (!r || (r->flags & GMEM_READONLY))
			return -EFAULT;
		memcpy((uint8_t *) r->hva + (gpa - r->gpa), in, chunk);
		in += chunk;
		gpa += chunk;
		len -= chunk;
	}
	return 0;
}

#define GMEM_DEFINE_SCALAR(bits)                                                        \
	int gmem_read_u##bits(const struct gmem *gm, uint64_t gpa, uint##bits##_t *ret) \
	{                                                                               \
		return gmem_read(gm, gpa, ret, sizeof(*ret));                           \
	}                                                                               \
	int gmem_write_u##bits(const struct gmem *gm, uint64_t gpa, uint##bits##_t v)   \
	{                                                                               \
		return gmem_write(gm, gpa, &v, sizeof(v));                              \
	}

GMEM_DEFINE_SCALAR(16)
GMEM_DEFINE_SCALAR(32)
GMEM_DEFINE_SCALAR(64)
