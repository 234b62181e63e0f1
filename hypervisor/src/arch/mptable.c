/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <string.h>

#include "arch/layout.h"
#include "arch/mptable.h"
#include "cc/macro.h"

#define MP_SPEC_REV	4
#define MP_APIC_VERSION 0x14
#define MP_IOAPIC_VER	0x11
#define MP_CPU_EN	0x01
#define MP_CPU_BP	0x02
#define MP_ENTRY_CPU	0
#define MP_ENTRY_BUS	1
#define MP_ENTRY_IOAPIC 2
#define MP_ENTRY_IOINT	3
#define MP_ENTRY_LOCAL	4
#define MP_INT		0
#define MP_NMI		1
#define MP_EXTINT	3
#define MP_BUS_ISA	0
#define MP_CPU_SIG	0x600 /* family 6 */
#define MP_CPU_FEATURES 0x201 /* FPU, APIC */

struct mp_writer {
	uint8_t *buf;
	size_t size;
	size_t pos;
	int err;
};

static uint8_t *mp_take(struct mp_writer *w, size_t len)
{
	uint8_t *p;

	if (w->err || len > w->size - w->pos) {
		w->err = -ENOSPC;
		return NULL;
	}
	p = w->buf + w->pos;
	memset(p, 0, len);
	w->pos += len;
	return p;
}

static void mp_put16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, sizeof(v));
}

static void mp_put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

uint8_t mptable_checksum(const uint8_t *p, size_t len)
{
	uint8_t sum = 0;

	for (size_t i = 0; i < len; i++)
		sum = (uint8_t) (sum + p[i]);
	return sum;
}

static unsigned mp_add_cpus(struct mp_writer *w, unsigned n_cpus)
{
	for (unsigned i = 0; i < n_cpus; i++) {
		uint8_t *e = mp_take(w, 20);

		if (!e)
			return 0;
		e[0] = MP_ENTRY_CPU;
		e[1] = (uint8_t) i;
		e[2] = MP_APIC_VERSION;
		e[3] = MP_CPU_EN | (i == 0 ? MP_CPU_BP : 0);
		mp_put32(e + 4, MP_CPU_SIG);
		mp_put32(e + 8, MP_CPU_FEATURES);
	}
	return n_cpus;
}

static unsigned mp_add_irqs(struct mp_writer *w)
{
	unsigned n = 0;

	for (unsigned pin = 0; pin < MPTABLE_IOAPIC_PINS; pin++) {
		uint8_t *e = mp_take(w, 8);

		if (!e)
			return 0;
		e[0] = MP_ENTRY_IOINT;
		e[1] = MP_INT;
		/* flags 0: conforming polarity and trigger (ISA: active high, edge) */
		e[4] = MP_BUS_ISA;
		e[5] = (uint8_t) pin;
		e[6] = MPTABLE_IOAPIC_ID;
		e[7] = (uint8_t) pin;
		n++;
	}
	for (unsigned lint = 0; lint < 2; lint++) {
		uint8_t *e = mp_take(w, 8);

		if (!e)
			return 0;
		e[0] = MP_ENTRY_LOCAL;
		e[1] = lint == 0 ? MP_EXTINT : MP_NMI;
		e[4] = MP_BUS_ISA;
		e[6] = 0xff; /* every local APIC */
		e[7] = (uint8_t) lint;
		n++;
	}
	return n;
}

int mptable_build(uint8_t *buf, size_t size, uint64_t gpa, unsigned n_cpus, size_t *ret_len)
{
	struct mp_writer w = {.buf = buf, .size = size};
	uint8_t *fp, *hdr, *e;
	unsigned n_entries;
	size_t table_len;

	assert_return(buf && ret_len && n_cpus > 0 && n_cpus < MPTABLE_IOAPIC_ID, -EINVAL);
	assert_return(gpa + size <= LAYOUT_4G, -EINVAL);
	fp = mp_take(&w, 16);
	hdr = mp_take(&w, 44);
	if (!fp || !hdr)
		return -ENOSPC;
	n_entries = mp_add_cpus(&w, n_cpus);
	e = mp_take(&w, 8);
	if (e) {
		e[0] = MP_ENTRY_BUS;
		memcpy(e + 2, "ISA   ", 6);
	}
	e = mp_take(&w, 8);
	if (e) {
		e[0] = MP_ENTRY_IOAPIC;
		e[1] = MPTABLE_IOAPIC_ID;
		e[2] = MP_IOAPIC_VER;
		e[3] = MP_CPU_EN;
		mp_put32(e + 4, (uint32_t) LAYOUT_IOAPIC_GPA);
	}
	n_entries += 2 + mp_add_irqs(&w);
	if (w.err)
		return w.err;

	table_len = w.pos - 16;
	memcpy(hdr, "PCMP", 4);
	mp_put16(hdr + 4, (uint16_t) table_len);
	hdr[6] = MP_SPEC_REV;
	memcpy(hdr + 8, "CCVMM   ", 8);
	memcpy(hdr + 16, "CLEARCONTAIN", 12);
	mp_put16(hdr + 34, (uint16_t) n_entries);
	mp_put32(hdr + 36, (uint32_t) LAYOUT_LAPIC_GPA);
	hdr[7] = (uint8_t) (0 - mptable_checksum(hdr, table_len));

	memcpy(fp, "_MP_", 4);
	mp_put32(fp + 4, (uint32_t) (gpa + 16));
	fp[8] = 1; /* length in 16-byte units */
	fp[9] = MP_SPEC_REV;
	fp[10] = (uint8_t) (0 - mptable_checksum(fp, 16));
	*ret_len = w.pos;
	return 0;
}
