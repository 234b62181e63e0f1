/* SPDX-License-Identifier: Apache-2.0 */
#include <string.h>

#include "legacy/i8042.h"

#define I8042_OFF_DATA	  0
#define I8042_OFF_CMD	  4
#define I8042_STR_OBF	  0x01
#define I8042_STR_SYSFLAG 0x04
#define I8042_CMD_RCTR	  0x20
#define I8042_CMD_WCTR	  0x60
#define I8042_CMD_AUX_DIS 0xa7
#define I8042_CMD_AUX_EN  0xa8
#define I8042_CMD_AUX_TST 0xa9
#define I8042_CMD_SELFTST 0xaa
#define I8042_CMD_KBD_TST 0xab
#define I8042_CMD_KBD_DIS 0xad
#define I8042_CMD_KBD_EN  0xae
#define I8042_CMD_WOUT	  0xd1
#define I8042_CMD_RESET	  0xfe
#define I8042_CTR_DEFAULT 0x30 /* keyboard and aux clocks disabled, no interrupts */

void i8042_init(struct i8042 *k, i8042_reset_fn reset, void *userdata)
{
	memset(k, 0, sizeof(*k));
	k->ctr = I8042_CTR_DEFAULT;
	k->reset = reset;
	k->userdata = userdata;
}

static void i8042_put(struct i8042 *k, uint8_t v)
{
	k->out = v;
	k->out_full = true;
}

static void i8042_command(struct i8042 *k, uint8_t cmd)
{
	switch (cmd) {
	case I8042_CMD_RCTR:
		i8042_put(k, k->ctr);
		break;
	case I8042_CMD_WCTR:
	case I8042_CMD_WOUT:
		k->pending = cmd;
		break;
	case I8042_CMD_SELFTST:
		i8042_put(k, 0x55);
		break;
	case I8042_CMD_KBD_TST:
	case I8042_CMD_AUX_TST:
		i8042_put(k, 0x00);
		break;
	case I8042_CMD_RESET:
		if (k->reset)
			k->reset(k->userdata);
		break;
	default:
		break; /* enable/disable ports and anything else: nothing attached */
	}
}

static void i8042_data_write(struct i8042 *k, uint8_t v)
{
	if (k->pending == I8042_CMD_WCTR)
		k->ctr = v;
	else if (k->pending == I8042_CMD_WOUT && !(v & 0x01) && k->reset)
		k->reset(k->userdata); /* output port bit 0 low: CPU reset */
	k->pending = 0;
}

static void i8042_read(void *opaque, uint64_t off, void *data, uint32_t len)
{
	struct i8042 *k = opaque;
	uint8_t v = 0xff;

	if (off == I8042_OFF_DATA) {
		v = k->out;
		k->out_full = false;
	} else if (off == I8042_OFF_CMD) {
		v = I8042_STR_SYSFLAG | (k->out_full ? I8042_STR_OBF : 0);
	}
	memset(data, v, len);
}

static void i8042_write(void *opaque, uint64_t off, const void *data, uint32_t len)
{
	struct i8042 *k = opaque;
	uint8_t v = *(const uint8_t *) data;

	if (len < 1)
		return;
	if (off == I8042_OFF_CMD)
		i8042_command(k, v);
	else if (off == I8042_OFF_DATA)
		i8042_data_write(k, v);
}

const struct iobus_ops i8042_iobus_ops = {
	.read = i8042_read,
	.write = i8042_write,
};
