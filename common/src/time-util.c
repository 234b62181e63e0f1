/* SPDX-License-Identifier: Apache-2.0 */
#include <time.h>

#include "cc/time-util.h"

int64_t now_monotonic_ms(void)
{
	struct timespec ts;

	(void) clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
