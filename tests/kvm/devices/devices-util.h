/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Helpers for the device tests: reading what the devices-check guest printed (see
 * tests/guests/devices-check.c), one-line errors, and a running VMM's fds.
 */

#include <stdint.h>
#include <sys/types.h>

#include "vmm-run.h"

#define DEV_CFG_SHOWN 16

/* Value of "d<i>_<name>=hex" in out, or -1. */
long long dev_kv(const char *out, unsigned i, const char *name);
/* The first DEV_CFG_SHOWN bytes of device i's config space, as the guest read them. */
void dev_cfg(const char *out, unsigned i, uint8_t ret[DEV_CFG_SHOWN]);
/* Window i is a virtio-mmio v2 device 'id' at 0xd0000000 + i * 0x1000 with the i-th GSI,
 * offering VERSION_1. */
void dev_assert_window(const char *out, unsigned i, uint32_t id);

/* res: exit 'status', one line on stderr starting with "cc-vmm: " and containing 'what'. */
void dev_assert_one_line_error(const struct vmm_result *res, int status, const char *what);
