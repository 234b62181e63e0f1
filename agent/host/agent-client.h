/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Host side of the agent protocol (library ccagentclient), for the `enter` and `stop`
 * entrypoints. The guest is untrusted: every frame it sends is checked, and a broken
 * frame ends the request with -EBADMSG. Errors come back as negative errnos with a message
 * for the user in *ret_msg (to print after "enter: " / "stop: ").
 */

#include <stdbool.h>

/*
 * Connect to the pod's agent through the VMM's vsock socket (`<pod>/cc/vsock`): the
 * `CONNECT <port>\n` / `OK <n>\n` handshake of docs/vsock.md, within timeout_ms. The socket
 * is resolved with beneath_open() (cc/beneath.h), following one relative link at the last
 * component only (cc/vsock -> vm/vsock; the jailed VMM writes in cc/vm), and must be a socket.
 */
int agent_client_connect(const char *vsock_path, unsigned port, int timeout_ms, int *ret_fd,
			 char **ret_msg);

struct agent_client_stdio {
	int in, out, err; /* usually 0, 1, 2 */
	/* Use a pty in the guest: raw mode on in (a tty) while the command runs, window size
	 * from out (or in), SIGWINCH forwarded. */
	bool tty;
};

/*
 * Run argv in app's context and relay stdio. Returns 0 with the command's exit code (0..255,
 * or the 125/126/127 the agent reports for a command that could not start, with *ret_msg
 * set), or a negative errno with *ret_msg.
 */
int agent_client_exec(int fd, const char *app, char *const argv[], size_t argc,
		      const struct agent_client_stdio *io, int *ret_code, char **ret_msg);

/* Ask the agent to stop the pod; returns once it accepted (within timeout_ms). */
int agent_client_stop(int fd, int timeout_ms, char **ret_msg);
