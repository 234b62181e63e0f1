/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Raw image backend: a regular file (or a block device) read and written with
 * preadv/pwritev, flushed with fdatasync, discarded with fallocate(PUNCH_HOLE).
 *
 * The serial (GET_ID) is "cc-" followed by 16 hex digits of an FNV-1a hash of the file's
 * st_dev and st_ino: stable for one file across runs, different for two files, and it does not
 * leak the host path into the guest.
 */

#include <stdbool.h>

#include "blk/blk-backend.h"

/* Open path (O_RDONLY when read_only, else O_RDWR). Sizes are rounded down to 512 bytes. */
int blkbe_raw_open(const char *path, bool read_only, struct blk_backend **ret);
/* Same on an fd the caller already opened; the backend takes ownership of fd (even on error). */
int blkbe_raw_open_fd(int fd, bool read_only, struct blk_backend **ret);
