/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent.h"
#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "cc/spawn.h"

int agent_send_error(int fd, int code, const char *msg)
{
	uint8_t buf[4 + AGENT_ERROR_MSG_MAX];
	size_t len;
	int r;

	r = agent_error_encode(buf, sizeof(buf), code, msg, &len);
	if (r < 0)
		return r;
	return agent_send(fd, AGENT_ERROR, buf, len);
}

int agent_run(char *const argv[], char **ret_out, size_t max)
{
	struct spawn_req req = {.path = argv[0], .argv = argv, .out_max = max};
	_cleanup_free_ char *out = NULL;
	int r, status;

	r = spawn_run(&req, &status, ret_out ? &out : NULL, NULL);
	if (r < 0)
		return r;
	if (ret_out)
		*ret_out = TAKE_PTR(out);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -EIO;
}
