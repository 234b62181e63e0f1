/* SPDX-License-Identifier: Apache-2.0 */
#include "virtio-guest.h"

#include "guest.h"

int vg_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

uint64_t vg_next_window(const char **p)
{
	static const char key[] = "virtio_mmio.device=";
	const char *s = *p;

	for (; *s; s++) {
		unsigned i = 0;
		uint64_t v = 0;

		while (key[i] && s[i] == key[i])
			i++;
		if (key[i])
			continue;
		s += i;
		while (*s && *s != '@')
			s++;
		if (s[0] != '@' || s[1] != '0' || s[2] != 'x')
			continue;
		for (s += 3; vg_hexval(*s) >= 0; s++)
			v = v << 4 | (uint64_t) vg_hexval(*s);
		*p = s;
		return v;
	}
	*p = s;
	return 0;
}

uint64_t vg_find_device(const char *cmdline, uint32_t id)
{
	const char *p = cmdline;
	uint64_t b;

	while ((b = vg_next_window(&p)) != 0)
		if (mmio_read32(b + VG_R_MAGIC) == 0x74726976 &&
		    mmio_read32(b + VG_R_VERSION) == 2 && mmio_read32(b + VG_R_DEVICE_ID) == id)
			return b;
	return 0;
}

uint32_t vg_rd(uint64_t base, uint32_t off)
{
	return mmio_read32(base + off);
}

void vg_wr(uint64_t base, uint32_t off, uint32_t v)
{
	mmio_write32(base + off, v);
}

static void vg_wr64(uint64_t base, uint32_t off, uint64_t v)
{
	vg_wr(base, off, (uint32_t) v);
	vg_wr(base, off + 4, (uint32_t) (v >> 32));
}

int vg_negotiate(uint64_t base)
{
	vg_wr(base, VG_R_STATUS, 0);
	vg_wr(base, VG_R_STATUS, 1);
	vg_wr(base, VG_R_STATUS, 1 | 2);
	vg_wr(base, VG_R_DEV_FEAT_SEL, 1);
	if (!(vg_rd(base, VG_R_DEV_FEAT) & 1))
		return 1;
	vg_wr(base, VG_R_DRV_FEAT_SEL, 0);
	vg_wr(base, VG_R_DRV_FEAT, 0);
	vg_wr(base, VG_R_DRV_FEAT_SEL, 1);
	vg_wr(base, VG_R_DRV_FEAT, 1);
	vg_wr(base, VG_R_STATUS, 1 | 2 | 8);
	return vg_rd(base, VG_R_STATUS) & 8 ? 0 : 2;
}

int vg_queue_setup(uint64_t base, unsigned q, struct vg_ring *r)
{
	vg_wr(base, VG_R_QUEUE_SEL, q);
	if (vg_rd(base, VG_R_QUEUE_READY) != 0 || vg_rd(base, VG_R_QUEUE_NUM_MAX) < VG_NUM)
		return 1;
	vg_wr(base, VG_R_QUEUE_NUM, VG_NUM);
	vg_wr64(base, VG_R_DESC_LO, (uint64_t) r->descs);
	vg_wr64(base, VG_R_DRIVER_LO, (uint64_t) &r->avail);
	vg_wr64(base, VG_R_DEVICE_LO, (uint64_t) &r->used);
	vg_wr(base, VG_R_QUEUE_READY, 1);
	return vg_rd(base, VG_R_QUEUE_READY) == 1 ? 0 : 2;
}

int vg_driver_ok(uint64_t base)
{
	vg_wr(base, VG_R_STATUS, 1 | 2 | 8 | 4);
	return vg_rd(base, VG_R_STATUS) == (1 | 2 | 8 | 4) ? 0 : 1;
}

int vg_setup(uint64_t base, struct vg_ring *rings, unsigned nq)
{
	int r = vg_negotiate(base);

	if (r)
		return r;
	for (unsigned q = 0; q < nq; q++)
		if (vg_queue_setup(base, q, &rings[q]))
			return 3;
	return vg_driver_ok(base) ? 4 : 0;
}

void vg_kick(uint64_t base, unsigned q, struct vg_ring *r, unsigned head)
{
	r->avail.ring[r->avail.idx % VG_NUM] = (uint16_t) head;
	__asm__ volatile("mfence" ::: "memory");
	r->avail.idx++;
	__asm__ volatile("mfence" ::: "memory");
	vg_wr(base, VG_R_QUEUE_NOTIFY, q);
}

void vg_post(uint64_t base, unsigned q, struct vg_ring *r, unsigned d, void *buf, uint32_t len,
	     int writable)
{
	r->descs[d] =
		(struct vg_desc){(uint64_t) buf, len, (uint16_t) (writable ? VG_DESC_WRITE : 0), 0};
	vg_kick(base, q, r, d);
}

int vg_wait_used(struct vg_ring *r, unsigned long max_spins)
{
	unsigned long spins = 0;
	int id;

	while (r->used.idx == r->seen && spins < max_spins) {
		__asm__ volatile("pause");
		spins++;
	}
	if (r->used.idx == r->seen)
		return -1;
	id = (int) r->used.ring[r->seen % VG_NUM].id;
	r->seen++;
	return id;
}

uint32_t vg_wait_isr(uint64_t base, uint32_t bits, unsigned long max_reads)
{
	uint32_t v = vg_rd(base, VG_R_ISR);

	for (unsigned long n = 1; !(v & bits) && n < max_reads; n++)
		v = vg_rd(base, VG_R_ISR);
	return v;
}

uint32_t vg_last_len(const struct vg_ring *r)
{
	return r->used.ring[(uint16_t) (r->seen - 1) % VG_NUM].len;
}
