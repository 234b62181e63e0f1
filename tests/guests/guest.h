/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Helpers for the freestanding test guests (no libc). Output goes to COM1 (the VMM's debug
 * 8250), one VM exit per byte, so guests print little.
 */

#include <stdint.h>

#define COM1	    0x3f8
#define BOOT_MARKER 0x0cc0
#define I8042_CMD   0x64

extern uint64_t entry_rsi, entry_rflags;
extern const char ap_trampoline[], ap_trampoline_end[];

void guest_main(const uint8_t *bp);

static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint8_t inb(uint16_t port)
{
	uint8_t v;

	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void outl(uint16_t port, uint32_t v)
{
	__asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint32_t inl(uint16_t port)
{
	uint32_t v;

	__asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline uint32_t mmio_read32(uint64_t addr)
{
	return *(volatile uint32_t *) addr;
}

static inline void mmio_write32(uint64_t addr, uint32_t v)
{
	*(volatile uint32_t *) addr = v;
}

static inline void halt_forever(void)
{
	for (;;)
		__asm__ volatile("cli; hlt");
}

static inline void i8042_reset(void)
{
	outb(I8042_CMD, 0xfe);
	halt_forever();
}

void putc_serial(char c);
void puts_serial(const char *s);
void puthex(uint64_t v, int digits);
/* "key=hex\n" */
void putkv(const char *key, uint64_t v, int digits);
uint64_t rd64(const void *p);
uint32_t rd32(const void *p);
uint16_t rd16(const void *p);
void *memset(void *d, int c, unsigned long n);
void *memcpy(void *d, const void *s, unsigned long n);
