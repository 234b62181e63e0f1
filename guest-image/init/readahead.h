/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Set read_ahead_kb to kib for every backing device in bdi_dir (normally /sys/class/bdi)
 * whose name starts with prefix. Returns the number of devices set, or a negative errno:
 * that of opening bdi_dir, or the first failed write (the others are still tried).
 */
int readahead_set(const char *bdi_dir, const char *prefix, unsigned kib);
