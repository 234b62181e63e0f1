/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Host side of the agent protocol (library ccagentclient), for the `enter` and `stop`
 * entrypoints. The guest is untrusted: every frame it sends is checked, and a broken
 * frame ends the request with -EBADMSG. Errors come back as negative errnos with a struct
 * cc_error (cc/error.h) whose message is for the user (to print after "enter: " / "stop: ").
 */

#include <stdbool.h>

#include "cc/error.h"

/*
 * Connect to the pod's agent through the VMM's vsock socket (`<pod>/cc/vsock`): the
 * `CONNECT <port>\n` / `OK <n>\n` handshake of docs/vsock.md, within timeout_ms. The socket
 * is resolved with beneath_open() (cc/beneath.h), following one relative link at the last
 * component only (cc/vsock -> vm/vsock; the jailed VMM writes in cc/vm), and must be a socket.
 */
int agent_client_connect(const char *vsock_path, unsigned port, int timeout_ms, int *ret_fd,
			 struct cc_error *err);

struct agent_client_stdio {
	int in, out, err; /* usually 0, 1, 2 */
	/* Use a pty in the guest: raw mode on in (a tty) while the command runs, window size
	 * from out (or in), SIGWINCH forwarded. */
	bool tty;
};

/*
 * Run argv in app's context and relay stdio. Returns 0 with the command's exit code (0..255),
 * or a negative errno with *err. A command that could not start is -EIO with the agent's
 * message and its code as err->status (and *ret_code: 125, 126/127 for a command that cannot be
 * run or is not found, or systemd's own, e.g. 200 CHDIR or 203 EXEC); an interrupted one is -EINTR
 * with 128 + the signal there.
 */
int agent_client_exec(int fd, const char *app, char *const argv[], size_t argc,
		      const struct agent_client_stdio *io, int *ret_code, struct cc_error *err);

/* Ask the agent to stop the pod; returns once it accepted (within timeout_ms). */
int agent_client_stop(int fd, int timeout_ms, struct cc_error *err);
