/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The jailed VMM's stdio: three pipes that a relay process, forked from run, copies to and
 * from run's own stdin, stdout and stderr (rkt's: a terminal, a file, /dev/null, a journal
 * socket). The VMM then holds no fd on an inode of the host's (a pty, a log file), which its
 * capabilities in its user namespace could otherwise chmod or chown where host ids are mapped
 * (docs/threat-model.md). The relay holds nothing else (every other fd closed), runs as
 * STDIO_RELAY_ID with no_new_privs, not dumpable, ignoring run's terminal and stop signals;
 * what run's stdin gives waits while the VMM does not read (the VMM's output flows on); it copies
 * bytes
 * as they come (a raw terminal stays raw), and exits once the VMM's stdout and stderr are both
 * closed, their last bytes written: stdio_relay_finish() waits for that, so run's own last
 * lines come after the VMM's.
 */

#include <sys/types.h>

/* The relay's uid and gid: 0x7fefffff, right below the VMMs' (vmm-jail.h), no user's. */
#define STDIO_RELAY_ID 2146435071u

struct stdio_relay {
	pid_t pid;
	int vmm_fds[3]; /* what the VMM gets as 0, 1, 2: the stdin pipe's read end, the others'
			   write ends; run closes them once the VMM has them */
};

/* Start the relay. Returns 0 or a negative errno (nothing left: no pipe, no process). */
int stdio_relay_start(struct stdio_relay *r);

/* Close run's copies of the VMM's ends. */
void stdio_relay_release(struct stdio_relay *r);

/* After the VMM is gone: release, then wait for the relay to drain and exit. */
void stdio_relay_finish(struct stdio_relay *r);
