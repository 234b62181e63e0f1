/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * In-memory block backend, for unit tests and fuzzing: a zero-filled heap buffer. It checks
 * every range itself (-ERANGE), so a device-model bug that reaches it out of bounds shows up
 * as an error rather than memory corruption. blkbe_mem_fail() makes the next operations fail,
 * to test the device's error path.
 */

#include <stdbool.h>
#include <stddef.h>

#include "blk/blk-backend.h"

int blkbe_mem_new(uint64_t size, bool read_only, const char *serial, struct blk_backend **ret);
/* The backing buffer (size bytes). */
uint8_t *blkbe_mem_data(struct blk_backend *be);
/* Every later operation fails with -err (0 restores normal operation). */
void blkbe_mem_fail(struct blk_backend *be, int err);
/* How many flushes and discards the backend saw. */
unsigned blkbe_mem_flushes(struct blk_backend *be);
unsigned blkbe_mem_discards(struct blk_backend *be);
