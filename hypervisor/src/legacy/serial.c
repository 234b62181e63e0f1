/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "legacy/serial.h"

#define UART_RBR_THR  0
#define UART_IER      1
#define UART_IIR      2
#define UART_LCR      3
#define UART_MCR      4
#define UART_LSR      5
#define UART_MSR      6
#define UART_SCR      7
#define UART_LCR_DLAB 0x80
#define UART_LSR_THRE 0x20
#define UART_LSR_TEMT 0x40
#define UART_IIR_NONE 0x01
#define UART_IIR_THRI 0x02
#define UART_IER_THRI 0x02
#define UART_MSR_IDLE 0xb0 /* DCD, DSR, CTS */
#define UART_MCR_LOOP 0x10

void serial8250_init(struct serial8250 *s, int out_fd)
{
	memset(s, 0, sizeof(*s));
	s->out_fd = out_fd;
}

void serial8250_set_irq(struct serial8250 *s, struct irq_line irq)
{
	s->irq = irq;
	s->has_irq = true;
}

/* The THR is empty again (always at once): interrupt if the guest asked for it. */
static void serial8250_thre(struct serial8250 *s)
{
	if (!(s->ier & UART_IER_THRI))
		return;
	s->thre_pending = true;
	/* KVM_IRQ_LINE fails only for a VM going away: nothing worth stopping for. */
	if (s->has_irq)
		(void) irq_line_trigger(&s->irq);
}

static uint8_t serial8250_reg_read(struct serial8250 *s, uint64_t off)
{
	int dlab = s->lcr & UART_LCR_DLAB;

	switch (off) {
	case UART_RBR_THR:
		return dlab ? s->dll : 0;
	case UART_IER:
		return dlab ? s->dlm : s->ier;
	case UART_IIR:
		if (s->thre_pending && (s->ier & UART_IER_THRI)) {
			s->thre_pending = false;
			return UART_IIR_THRI;
		}
		return UART_IIR_NONE;
	case UART_LCR:
		return s->lcr;
	case UART_MCR:
		return s->mcr;
	case UART_LSR:
		return UART_LSR_THRE | UART_LSR_TEMT;
	case UART_MSR:
		/* In loopback mode the modem inputs follow the outputs: RTS->CTS, DTR->DSR,
		 * OUT1->RI, OUT2->DCD (Linux's 8250 probe checks this). */
		if (s->mcr & UART_MCR_LOOP)
			return (uint8_t) ((s->mcr & 0x02) << 3 | (s->mcr & 0x01) << 5 |
					  (s->mcr & 0x04) << 4 | (s->mcr & 0x08) << 4);
		return UART_MSR_IDLE;
	default:
		return s->scr;
	}
}

static void serial8250_tx(struct serial8250 *s, uint8_t c)
{
	s->tx_bytes++;
	if (s->out_fd < 0)
		return;
	while (write(s->out_fd, &c, 1) < 0 && errno == EINTR)
		;
}

static void serial8250_reg_write(struct serial8250 *s, uint64_t off, uint8_t v)
{
	int dlab = s->lcr & UART_LCR_DLAB;

	switch (off) {
	case UART_RBR_THR:
		if (dlab)
			s->dll = v;
		else {
			if (!(s->mcr & UART_MCR_LOOP))
				serial8250_tx(s, v);
			serial8250_thre(s);
		}
		break;
	case UART_IER:
		if (dlab) {
			s->dlm = v;
		} else {
			uint8_t old = s->ier;

			s->ier = v & 0x0f;
			if (!(s->ier & UART_IER_THRI))
				s->thre_pending = false;
			else if (!(old & UART_IER_THRI))
				serial8250_thre(s);
		}
		break;
	case UART_LCR:
		s->lcr = v;
		break;
	case UART_MCR:
		s->mcr = v & 0x1f;
		break;
	case UART_SCR:
		s->scr = v;
		break;
	default:
		break; /* FCR, LSR, MSR: ignored */
	}
}

static void serial8250_read(void *opaque, uint64_t off, void *data, uint32_t len)
{
	uint8_t *out = data;

	for (uint32_t i = 0; i < len; i++)
		out[i] = serial8250_reg_read(opaque, off + i);
}

static void serial8250_write(void *opaque, uint64_t off, const void *data, uint32_t len)
{
	const uint8_t *in = data;

	for (uint32_t i = 0; i < len; i++)
		serial8250_reg_write(opaque, off + i, in[i]);
}

const struct iobus_ops serial8250_iobus_ops = {
	.read = serial8250_read,
	.write = serial8250_write,
};
