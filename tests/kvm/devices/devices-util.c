/* SPDX-License-Identifier: Apache-2.0 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "devices-util.h"

/* The GSIs cc-vmm gives its device windows, in order (src/vm/devices.c). */
static const uint32_t dev_gsis[] = {5, 6, 7, 9, 10, 11, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23};

long long dev_kv(const char *out, unsigned i, const char *name)
{
	char key[64];

	snprintf(key, sizeof(key), "d%u_%s", i, name);
	return vmm_kv(out, key);
}

static int dev_hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

void dev_cfg(const char *out, unsigned i, uint8_t ret[DEV_CFG_SHOWN])
{
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), "\nd%u_cfg=", i);
	p = strstr(out, key);
	ck_assert_msg(p, "no %s in: %s", key + 1, out);
	p += strlen(key);
	for (unsigned k = 0; k < DEV_CFG_SHOWN; k++) {
		int hi = dev_hex(p[2 * k]), lo = dev_hex(p[2 * k + 1]);

		ck_assert_msg(hi >= 0 && lo >= 0, "bad config bytes for device %u: %s", i, p);
		ret[k] = (uint8_t) (hi << 4 | lo);
	}
}

void dev_assert_window(const char *out, unsigned i, uint32_t id)
{
	ck_assert_uint_lt(i, sizeof(dev_gsis) / sizeof(dev_gsis[0]));
	ck_assert_int_eq(dev_kv(out, i, "base"), 0xd0000000ll + i * 0x1000ll);
	ck_assert_int_eq(dev_kv(out, i, "size"), 0x200);
	ck_assert_int_eq(dev_kv(out, i, "irq"), dev_gsis[i]);
	ck_assert_int_eq(dev_kv(out, i, "magic"), 0x74726976);
	ck_assert_int_eq(dev_kv(out, i, "version"), 2);
	ck_assert_msg(dev_kv(out, i, "id") == id, "device %u: id %lld, expected %u", i,
		      dev_kv(out, i, "id"), id);
	ck_assert_int_eq(dev_kv(out, i, "feat1") & 1, 1); /* VERSION_1 */
}

void dev_assert_one_line_error(const struct vmm_result *res, int status, const char *what)
{
	const char *nl = strchr(res->err, '\n');

	ck_assert_msg(res->status == status, "exit %d, expected %d; stderr: %s", res->status,
		      status, res->err);
	ck_assert_msg(strncmp(res->err, "cc-vmm: ", 8) == 0, "stderr: %s", res->err);
	ck_assert_msg(nl && nl[1] == '\0', "expected one line, got: %s", res->err);
	ck_assert_msg(strstr(res->err, what), "expected '%s' in: %s", what, res->err);
	ck_assert_str_eq(res->out, "");
}
