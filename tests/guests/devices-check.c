/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Lists the virtio-mmio devices the VMM declared on the kernel command line, as Linux finds
 * them: for each "virtio_mmio.device=<size>@0x<base>:<irq>" entry i, prints on COM1
 *   d<i>_base, d<i>_size, d<i>_irq, d<i>_magic, d<i>_version, d<i>_id, d<i>_feat0, d<i>_feat1
 * as "key=hex" lines and d<i>_cfg= the first 16 bytes of its config space (1-byte reads) as
 * 32 hex digits, then ndev= and "done". Touches no queue.
 */
#include "guest.h"
#include "virtio-guest.h"

#define MAX_DEVICES 32

#define CONFIG_SHOWN 16

struct entry {
	uint64_t size, base, irq;
};

/* "0x<hex>" at *p; 0 if absent. */
static uint64_t parse_hex(const char **p)
{
	const char *s = *p;
	uint64_t v = 0;

	if (s[0] != '0' || s[1] != 'x')
		return 0;
	for (s += 2; vg_hexval(*s) >= 0; s++)
		v = v << 4 | (uint64_t) vg_hexval(*s);
	*p = s;
	return v;
}

static uint64_t parse_dec(const char **p)
{
	const char *s = *p;
	uint64_t v = 0;

	for (; *s >= '0' && *s <= '9'; s++)
		v = v * 10 + (uint64_t) (*s - '0');
	*p = s;
	return v;
}

/* The next entry at or after *p; 0 when there is none. */
static int next_entry(const char **p, struct entry *e)
{
	static const char key[] = "virtio_mmio.device=";
	const char *s = *p;

	for (; *s; s++) {
		unsigned i = 0;

		while (key[i] && s[i] == key[i])
			i++;
		if (key[i])
			continue;
		s += i;
		e->size = parse_hex(&s);
		if (*s++ != '@')
			continue;
		e->base = parse_hex(&s);
		if (*s++ != ':')
			continue;
		e->irq = parse_dec(&s);
		*p = s;
		return 1;
	}
	*p = s;
	return 0;
}

static void put_key(unsigned i, const char *name)
{
	putc_serial('d');
	if (i >= 10)
		putc_serial((char) ('0' + i / 10));
	putc_serial((char) ('0' + i % 10));
	putc_serial('_');
	puts_serial(name);
	putc_serial('=');
}

static void put_val(unsigned i, const char *name, uint64_t v, int digits)
{
	put_key(i, name);
	puthex(v, digits);
	putc_serial('\n');
}

static void report(unsigned i, const struct entry *e)
{
	uint64_t b = e->base;

	put_val(i, "base", b, 8);
	put_val(i, "size", e->size, 4);
	put_val(i, "irq", e->irq, 2);
	put_val(i, "magic", mmio_read32(b + VG_R_MAGIC), 8);
	put_val(i, "version", mmio_read32(b + VG_R_VERSION), 8);
	put_val(i, "id", mmio_read32(b + VG_R_DEVICE_ID), 8);
	mmio_write32(b + VG_R_DEV_FEAT_SEL, 0);
	put_val(i, "feat0", mmio_read32(b + VG_R_DEV_FEAT), 8);
	mmio_write32(b + VG_R_DEV_FEAT_SEL, 1);
	put_val(i, "feat1", mmio_read32(b + VG_R_DEV_FEAT), 8);
	put_key(i, "cfg");
	for (unsigned k = 0; k < CONFIG_SHOWN; k++)
		puthex(*(volatile uint8_t *) (b + VG_R_CONFIG + k), 2);
	putc_serial('\n');
}

void guest_main(const uint8_t *bp)
{
	const char *p = (const char *) (uint64_t) rd32(bp + 0x228);
	struct entry e;
	unsigned n = 0;

	while (n < MAX_DEVICES && next_entry(&p, &e))
		report(n++, &e);
	putkv("ndev", n, 2);
	puts_serial("done\n");
}
