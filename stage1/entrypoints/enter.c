/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cc-stage1-enter: the stage1 `enter` entrypoint (/cc/enter in the stage1 ACI).
 *
 *   enter --pid=N --appname=X -- CMD [ARGS...]
 *
 * rkt execs it with the pod dir as cwd (from the tree-store copy of the stage1: nothing is
 * looked up relative to argv[0]). CMD runs in app X's context in the guest, through the
 * pod's agent on vsock (<pod>/cc/vsock, port 1024); stdin/stdout/stderr are relayed, with a
 * pty when our stdin and stdout are terminals. Exit status: CMD's; 126 when CMD cannot be
 * executed, 127 when it is not found; 125 for enter's own errors (usage, pod not running,
 * agent unreachable), each with one line "enter: <message>" on stderr.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "agent-client.h"
#include "agent-proto.h"
#include "cc/cleanup.h"
#include "stage1/flags.h"

#define ENTER_VSOCK		 "cc/vsock"
#define ENTER_CONNECT_TIMEOUT_MS 10000
#define ENTER_FAILED		 125

static int fail(const char *msg)
{
	fprintf(stderr, "enter: %s\n", msg);
	return ENTER_FAILED;
}

int main(int argc, char **argv)
{
	_cleanup_close_ int fd = -EBADF;
	struct cc_error err = {};
	struct enter_flags f;
	struct agent_client_stdio io = {.in = 0, .out = 1, .err = 2};
	int code = ENTER_FAILED, r;

	r = enter_flags_parse(argc, argv, &f, &err);
	if (r < 0)
		return fail(cc_error_message(&err));
	if (kill(f.pid, 0) < 0 && errno == ESRCH) {
		fprintf(stderr, "enter: the pod is not running (no process %d)\n", (int) f.pid);
		return ENTER_FAILED;
	}
	r = agent_client_connect(ENTER_VSOCK, AGENT_PORT, ENTER_CONNECT_TIMEOUT_MS, &fd, &err);
	if (r < 0)
		return fail(cc_error_message(&err));

	io.tty = isatty(io.in) && isatty(io.out);
	r = agent_client_exec(fd, f.app_name, f.cmd, f.n_cmd, &io, &code, &err);
	if (r < 0) {
		fprintf(stderr, "enter: %s\n", cc_error_message(&err));
		return err.status ? err.status : ENTER_FAILED;
	}
	return code;
}
