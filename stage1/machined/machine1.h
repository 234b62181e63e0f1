/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * systemd-machined's Manager (org.freedesktop.machine1) through sd-bus: the calls behind
 * cc-stage1-machined. Each opens the system bus ($DBUS_SYSTEM_BUS_ADDRESS, else the default)
 * and returns 0, -EOPNOTSUPP when there is no bus or no machined on it (nothing to report),
 * or another negative errno with one line in *err.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cc/error.h"
#include "machined.h"

/*
 * CreateMachine, where machined has systemd make the leader a scope of its own (with the
 * properties when memory_max and tasks_max are both set); where that fails (no systemd as
 * init), RegisterMachine, with the leader's own unit. *ret_scope: CreateMachine did it.
 */
int machine1_register(const struct machined_machine *m, bool *ret_scope, struct cc_error *err);
/* UnregisterMachine; 0 also when machined does not know the machine. */
int machine1_unregister(const char *name, struct cc_error *err);
