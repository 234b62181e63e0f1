/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Capabilities. After the sandbox the VMM holds none, except what the 9p server needs on the
 * main thread to serve a pod's files, which belong to many uids (docs/9p.md "Capabilities"):
 *
 *   a read-write export:  CAP_CHOWN, CAP_DAC_OVERRIDE, CAP_FOWNER, CAP_FSETID
 *   read-only exports only: CAP_DAC_READ_SEARCH
 *
 * vCPU threads drop even those. The bounding, inheritable and ambient sets are emptied.
 */

#include <linux/capability.h>
#include <stdbool.h>
#include <stdint.h>

#define SANDBOX_CAP(c) (UINT64_C(1) << (c))

/* The capabilities the main thread keeps for the given 9p exports. */
uint64_t sandbox_caps_for_9p(bool any_rw, bool any_ro);

/*
 * The calling thread keeps exactly 'keep' (effective and permitted); inheritable and ambient
 * are cleared, and with 'bounding' the bounding set too (when the thread may: CAP_SETPCAP;
 * without it the thread had no capabilities to begin with and no_new_privs keeps it so).
 */
int sandbox_caps_apply(uint64_t keep, bool bounding);
