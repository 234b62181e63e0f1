/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The filler of the host-wide kernel pages file (cc/kernel-pages-file.h): a small process of
 * its own that holds the file open for writing, so that no VMM ever does. A VMM sends it fill
 * requests (struct kernel_pages_fill_req, one per SOCK_SEQPACKET message) on a channel and
 * reads one answer (kernel_pages_fill_ans) for each. It serves until the VMM closes the
 * channel (after its share), a deadline or a number of fills; it never maps guest memory and
 * trusts nothing a request says: each is checked, and only a slot never filled is written.
 */

#include <stdint.h>
#include <sys/types.h>

/* Time a filler serves at most: the VMM gives up sharing 60 s after its setup. */
#define KERNEL_PAGES_FILLER_DEADLINE_MS 90000u
/* Wait for the file's lock: other fillers hold it for one fill each. */
#define KERNEL_PAGES_FILLER_LOCK_TIMEOUT_MS 3000u

/*
 * Serve fill requests on chan_fd for the file open for writing at rw_fd (regions of region
 * bytes), answering each, for up to deadline_ms and max_fills fills (requests past that are
 * refused, -EDQUOT). The file's lock is waited for KERNEL_PAGES_FILLER_LOCK_TIMEOUT_MS, once:
 * after a wait that timed out, later requests only try it. 0 when the peer closed the channel;
 * -ETIMEDOUT at the deadline; -errno.
 */
int kernel_pages_filler_serve(int rw_fd, uint64_t region, int chan_fd, unsigned deadline_ms,
			      uint64_t max_fills);

/*
 * Open (create) the file at path for the kernel file open at kernel_fd
 * (kernel_pages_file_open()) and start its filler: a process of its own (not dumpable, with
 * only stderr, the file and its end of the channel open), serving for up to deadline_ms and
 * one fill per page of the kernel. ret_pid: the caller's child, to reap, its PID there; NULL:
 * forked twice, nobody's child to reap. *ret_ro: the file, read-only; *ret_chan: the VMM's
 * end of the channel. Both close-on-exec. The caller never holds the file open for writing
 * after this returns. 0 or -errno.
 */
int kernel_pages_filler_spawn(const char *path, int kernel_fd, unsigned deadline_ms, pid_t *ret_pid,
			      int *ret_ro, int *ret_chan);
