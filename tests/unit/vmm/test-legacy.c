/* SPDX-License-Identifier: Apache-2.0 */
/* Legacy devices through their iobus handlers: 8250, i8042, PCI host bridge, boot markers. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch/layout.h"
#include "cctest.h"
#include "base/iobus.h"
#include "legacy/bootmarker.h"
#include "legacy/i8042.h"
#include "legacy/serial.h"
#include "pci/hostbridge.h"

static uint8_t rd8(struct iobus *bus, uint64_t port)
{
	uint8_t v = 0;

	(void) iobus_dispatch(bus, port, &v, 1, false);
	return v;
}

static uint32_t rd32(struct iobus *bus, uint64_t port)
{
	uint32_t v = 0;

	(void) iobus_dispatch(bus, port, &v, 4, false);
	return v;
}

static void wr8(struct iobus *bus, uint64_t port, uint8_t v)
{
	(void) iobus_dispatch(bus, port, &v, 1, true);
}

static void wr32(struct iobus *bus, uint64_t port, uint32_t v)
{
	(void) iobus_dispatch(bus, port, &v, 4, true);
}

static int serial_irq_count;

static int serial_irq_fake(void *opaque)
{
	(void) opaque;
	serial_irq_count++;
	return 0;
}

static const struct irq_line_ops serial_irq_fake_ops = {.trigger = serial_irq_fake};

/* THRE interrupts as Linux's interrupt-driven tty output and its THRE test use them. */
START_TEST(test_serial_thre_interrupt)
{
	struct serial8250 s;
	struct iobus bus;

	serial_irq_count = 0;
	iobus_init(&bus);
	serial8250_init(&s, -1);
	serial8250_set_irq(&s, (struct irq_line){.ops = &serial_irq_fake_ops, .gsi = 4});
	ASSERT_OK(iobus_register(&bus, PORT_COM1, SERIAL_PORTS, &serial8250_iobus_ops, &s));
	wr8(&bus, PORT_COM1, 'a'); /* IER.THRI off: no interrupt */
	ck_assert_int_eq(serial_irq_count, 0);
	ck_assert_uint_eq(rd8(&bus, PORT_COM1 + 2), 0x01);
	wr8(&bus, PORT_COM1 + 1, 0x02); /* enabling it with the THR empty raises it */
	ck_assert_int_eq(serial_irq_count, 1);
	ck_assert_uint_eq(rd8(&bus, PORT_COM1 + 2), 0x02);
	ck_assert_uint_eq(rd8(&bus, PORT_COM1 + 2), 0x01); /* reading IIR cleared it */
	wr8(&bus, PORT_COM1, 'b'); /* each byte sent empties the THR again */
	ck_assert_int_eq(serial_irq_count, 2);
	wr8(&bus, PORT_COM1 + 1, 0x00); /* disabling drops the pending interrupt */
	ck_assert_uint_eq(rd8(&bus, PORT_COM1 + 2), 0x01);
	wr8(&bus, PORT_COM1 + 1, 0x02); /* Linux's THRE test: re-enabling re-asserts it */
	ck_assert_int_eq(serial_irq_count, 3);
	ck_assert_uint_eq(rd8(&bus, PORT_COM1 + 2), 0x02);
	wr8(&bus, PORT_COM1 + 1, 0x02); /* already enabled: no new edge */
	ck_assert_int_eq(serial_irq_count, 3);
	ck_assert_uint_eq(s.tx_bytes, 2);
}
END_TEST

START_TEST(test_serial_transmits_and_is_always_ready)
{
	struct serial8250 s;
	struct iobus bus;
	int p[2];
	char out[8] = "";

	ck_assert_int_eq(pipe2(p, O_CLOEXEC | O_NONBLOCK), 0);
	iobus_init(&bus);
	serial8250_init(&s, p[1]);
	ASSERT_OK(iobus_register(&bus, PORT_COM1, SERIAL_PORTS, &serial8250_iobus_ops, &s));
	ck_assert_uint_eq(rd8(&bus, PORT_COM1 + 5) & 0x60, 0x60); /* THRE | TEMT */
	wr8(&bus, PORT_COM1, 'h');
	wr8(&bus, PORT_COM1 + 3, 0x80); /* DLAB: divisor latch, not output */
	wr8(&bus, PORT_COM1, 0x01);
	ck_assert_uint_eq(rd8(&bus, PORT_COM1), 0x01);
	wr8(&bus, PORT_COM1 + 3, 0x03);
	wr8(&bus, PORT_COM1, 'i');
	ck_assert_uint_eq(rd8(&bus, PORT_COM1 + 2), 0x01); /* no interrupt pending */
	wr8(&bus, PORT_COM1 + 7, 0x5a);
	ck_assert_uint_eq(rd8(&bus, PORT_COM1 + 7), 0x5a);
	/* loopback, as Linux's 8250 probe uses it: RTS|OUT2 -> CTS|DCD, and no output */
	wr8(&bus, PORT_COM1 + 4, 0x1a);
	ck_assert_uint_eq(rd8(&bus, PORT_COM1 + 6) & 0xf0, 0x90);
	wr8(&bus, PORT_COM1 + 4, 0x1f);
	ck_assert_uint_eq(rd8(&bus, PORT_COM1 + 6) & 0xf0, 0xf0);
	wr8(&bus, PORT_COM1, 'x');
	wr8(&bus, PORT_COM1 + 4, 0x00);
	ck_assert_uint_eq(rd8(&bus, PORT_COM1 + 6), 0xb0);
	ck_assert_int_eq(read(p[0], out, sizeof(out)), 2);
	ck_assert_int_eq(memcmp(out, "hi", 2), 0);
	ck_assert_uint_eq(s.tx_bytes, 2);
	close(p[0]);
	close(p[1]);
}
END_TEST

static int resets;

static void count_reset(void *userdata)
{
	(void) userdata;
	resets++;
}

START_TEST(test_i8042_reset_and_command_byte)
{
	struct i8042 k;
	struct iobus bus;

	resets = 0;
	iobus_init(&bus);
	i8042_init(&k, count_reset, NULL);
	ASSERT_OK(iobus_register(&bus, PORT_I8042_DATA, I8042_PORT_SPAN, &i8042_iobus_ops, &k));
	ck_assert_uint_eq(rd8(&bus, PORT_I8042_CMD) & 1, 0); /* output buffer empty */
	wr8(&bus, PORT_I8042_CMD, 0xaa);		     /* self test */
	ck_assert_uint_eq(rd8(&bus, PORT_I8042_CMD) & 1, 1);
	ck_assert_uint_eq(rd8(&bus, PORT_I8042_DATA), 0x55);
	ck_assert_uint_eq(rd8(&bus, PORT_I8042_CMD) & 1, 0);
	wr8(&bus, PORT_I8042_CMD, 0x60); /* write command byte */
	wr8(&bus, PORT_I8042_DATA, 0x47);
	wr8(&bus, PORT_I8042_CMD, 0x20);
	ck_assert_uint_eq(rd8(&bus, PORT_I8042_DATA), 0x47);
	ck_assert_int_eq(resets, 0);
	wr8(&bus, PORT_I8042_CMD, 0xfe);
	ck_assert_int_eq(resets, 1);
	wr8(&bus, PORT_I8042_CMD, 0xd1); /* output port, bit 0 low: reset too */
	wr8(&bus, PORT_I8042_DATA, 0x00);
	ck_assert_int_eq(resets, 2);
}
END_TEST

START_TEST(test_pci_host_bridge_config)
{
	struct pci_host h;
	struct iobus bus;
	uint8_t b;

	iobus_init(&bus);
	pci_host_init(&h);
	ASSERT_OK(iobus_register(&bus, PORT_PCI_CONF_ADDR, 8, &pci_host_iobus_ops, &h));
	wr32(&bus, PORT_PCI_CONF_ADDR, 0x80000000u);
	ck_assert_uint_eq(rd32(&bus, PORT_PCI_CONF_ADDR), 0x80000000u);
	ck_assert_uint_eq(rd32(&bus, PORT_PCI_CONF_DATA),
			  (uint32_t) PCI_HOST_DEVICE << 16 | PCI_HOST_VENDOR);
	wr32(&bus, PORT_PCI_CONF_ADDR, 0x80000008u);
	ck_assert_uint_eq(rd32(&bus, PORT_PCI_CONF_DATA) >> 16, 0x0600); /* host bridge class */
	b = rd8(&bus, PORT_PCI_CONF_DATA + 3);
	ck_assert_uint_eq(b, 0x06);
	/* config writes are dropped (no BARs to size) */
	wr32(&bus, PORT_PCI_CONF_ADDR, 0x80000010u);
	wr32(&bus, PORT_PCI_CONF_DATA, 0xffffffffu);
	ck_assert_uint_eq(rd32(&bus, PORT_PCI_CONF_DATA), 0);
	/* other devices, functions and buses are absent; disabled cycles read all-ones */
	wr32(&bus, PORT_PCI_CONF_ADDR, 0x80000800u);
	ck_assert_uint_eq(rd32(&bus, PORT_PCI_CONF_DATA), 0xffffffffu);
	wr32(&bus, PORT_PCI_CONF_ADDR, 0x80000100u);
	ck_assert_uint_eq(rd32(&bus, PORT_PCI_CONF_DATA), 0xffffffffu);
	wr32(&bus, PORT_PCI_CONF_ADDR, 0x80010000u);
	ck_assert_uint_eq(rd32(&bus, PORT_PCI_CONF_DATA), 0xffffffffu);
	wr32(&bus, PORT_PCI_CONF_ADDR, 0x00000000u);
	ck_assert_uint_eq(rd32(&bus, PORT_PCI_CONF_DATA), 0xffffffffu);
}
END_TEST

START_TEST(test_boot_markers_json_lines)
{
	struct bootmarker m;
	struct iobus bus;
	char buf[512] = "", line[96];
	int p[2];
	uint16_t wide = 0x0203;

	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	iobus_init(&bus);
	bootmarker_init(&m, p[1], bootmarker_now_ns());
	ASSERT_OK(iobus_register(&bus, PORT_BOOT_MARKER, 1, &bootmarker_iobus_ops, &m));
	wr8(&bus, PORT_BOOT_MARKER, 1);
	wr8(&bus, PORT_BOOT_MARKER, 0xc8);
	/* a 2-byte write spills past the one-port window: not a marker */
	ck_assert(!iobus_dispatch(&bus, PORT_BOOT_MARKER, &wide, 2, true));
	ck_assert_uint_eq(rd8(&bus, PORT_BOOT_MARKER), 0xff); /* write-only */
	wr8(&bus, PORT_BOOT_MARKER, 3);
	ck_assert_uint_eq(m.n, 3);
	ck_assert_int_eq(m.entries[0].code, 1);
	ck_assert_int_eq(m.entries[1].code, 200);
	ck_assert_int_eq(m.entries[2].code, 3);
	ck_assert_uint_ge(m.entries[2].ns, m.entries[0].ns);
	ck_assert_int_gt(read(p[0], buf, sizeof(buf) - 1), 0);
	ck_assert_ptr_nonnull(strstr(buf, "{\"code\":1,\"name\":\"init-start\",\"ns\":"));
	ck_assert_ptr_nonnull(strstr(buf, "{\"code\":200,\"name\":\"marker-200\",\"ns\":"));
	ck_assert_ptr_nonnull(strstr(buf, "{\"code\":3,\"name\":\"app-started\",\"ns\":"));
	ck_assert_int_eq(bootmarker_format(line, sizeof(line), 2, 123456), 45);
	ck_assert_str_eq(line, "{\"code\":2,\"name\":\"systemd-exec\",\"ns\":123456}\n");
	ck_assert_int_eq(bootmarker_format(line, 10, 2, 1), -ENOBUFS);
	bootmarker_done(&m);
	close(p[0]);
	close(p[1]);
}
END_TEST

static Suite *legacy_suite(void)
{
	Suite *s = suite_create("vmm-legacy");
	TCase *tc = tcase_create("devices");

	tcase_add_test(tc, test_serial_transmits_and_is_always_ready);
	tcase_add_test(tc, test_serial_thre_interrupt);
	tcase_add_test(tc, test_i8042_reset_and_command_byte);
	tcase_add_test(tc, test_pci_host_bridge_config);
	tcase_add_test(tc, test_boot_markers_json_lines);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(legacy_suite());
}
