/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

#include <stdint.h>

/* CLOCK_MONOTONIC in milliseconds: deadlines and durations. */
int64_t now_monotonic_ms(void);
