/* SPDX-License-Identifier: Apache-2.0 */
#include "guest.h"

void putc_serial(char c)
{
	outb(COM1, (uint8_t) c);
}

void puts_serial(const char *s)
{
	while (*s)
		putc_serial(*s++);
}

void puthex(uint64_t v, int digits)
{
	for (int i = digits - 1; i >= 0; i--)
		putc_serial("0123456789abcdef"[(v >> (i * 4)) & 0xf]);
}

void putkv(const char *key, uint64_t v, int digits)
{
	puts_serial(key);
	putc_serial('=');
	puthex(v, digits);
	putc_serial('\n');
}

uint64_t rd64(const void *p)
{
	const volatile uint8_t *b = p;
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | b[i];
	return v;
}

uint32_t rd32(const void *p)
{
	const volatile uint8_t *b = p;

	return (uint32_t) b[0] | (uint32_t) b[1] << 8 | (uint32_t) b[2] << 16 |
	       (uint32_t) b[3] << 24;
}

uint16_t rd16(const void *p)
{
	const volatile uint8_t *b = p;

	return (uint16_t) (b[0] | b[1] << 8);
}

void *memset(void *d, int c, unsigned long n)
{
	volatile uint8_t *p = d;

	while (n--)
		*p++ = (uint8_t) c;
	return d;
}

void *memcpy(void *d, const void *s, unsigned long n)
{
	volatile uint8_t *p = d;
	const volatile uint8_t *q = s;

	while (n--)
		*p++ = *q++;
	return d;
}
