/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Linux capability names as systemd 252 knows them (CAP_CHOWN = 0 .. CAP_CHECKPOINT_RESTORE = 40).
 */

#include <stdint.h>

#define CAP_NAME_COUNT 41

/* The number of a capability given as "CAP_X" or "X", any case; -EINVAL if unknown. */
int cap_from_name(const char *name);
/* "CAP_X" for a number < CAP_NAME_COUNT. */
const char *cap_to_name(int cap);
/* appc's default set (the 14 capabilities an app gets without a capability isolator). */
uint64_t cap_default_set(void);
