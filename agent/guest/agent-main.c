/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cc-agent: the pod's control agent in the guest (cc-agent.service). Listens on vsock port
 * AGENT_PORT; one process per connection. Requests (agent-proto.h): EXEC runs a command in
 * an app's context with its stdio relayed (`enter`), STOP stops every app unit (`stop`).
 * The host is the only peer (vsock from the guest's view); its frames are still checked.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/vm_sockets.h>

#include "agent.h"
#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "cc/log.h"

#define AGENT_REQUEST_TIMEOUT_MS 30000
#define AGENT_APPS_MAX		 1024

/* systemctl --no-block stop <every app>.service: SIGTERM, TimeoutStopSec, SIGKILL and the
 * post-stop commands are systemd's; cc-app-exit then ends the pod. */
static int agent_stop(struct cc_error *err)
{
	_cleanup_free_ char *apps = NULL;
	char **argv;
	size_t n = 0;
	char *save = NULL;
	int r;

	r = read_full_file(AGENT_APPS_FILE, 1024 * 1024, &apps, NULL);
	if (r < 0)
		return cc_error_set(err, r, "cannot read %s: %m", AGENT_APPS_FILE);
	argv = calloc(AGENT_APPS_MAX + 4, sizeof(char *));
	if (!argv)
		return cc_error_set(err, -ENOMEM, "%m");
	argv[n++] = (char *) AGENT_SYSTEMCTL;
	argv[n++] = (char *) "--no-block";
	argv[n++] = (char *) "stop";
	for (char *a = strtok_r(apps, "\n", &save); a; a = strtok_r(NULL, "\n", &save)) {
		if (a[0] == '\0')
			continue;
		if (!agent_app_name_is_valid(a) || n == AGENT_APPS_MAX + 3) {
			r = cc_error_set(err, -EBADMSG, "bad app list in %s", AGENT_APPS_FILE);
			break;
		}
		if (asprintf(&argv[n], "%s.service", a) < 0) {
			r = cc_error_set(err, -ENOMEM, "%m");
			break;
		}
		n++;
	}
	if (r >= 0 && n == 3)
		r = cc_error_set(err, -EBADMSG, "no apps in %s", AGENT_APPS_FILE);
	if (r >= 0) {
		r = agent_run(argv, NULL, 0);
		if (r > 0)
			r = cc_error_set(err, -EIO, "systemctl stop failed with status %d", r);
		else if (r < 0)
			r = cc_error_set(err, r, "cannot run systemctl: %m");
	}
	for (size_t i = 3; i < n; i++)
		free(argv[i]);
	free(argv);
	return r;
}

static int agent_handle_exec(int fd, struct agent_reader *rd, const struct agent_frame *f)
{
	struct cc_error err = {};
	struct agent_exec e = {};
	struct agent_child c = {.in = -1, .out = -1, .err = -1, .pidfd = -1};
	int r;

	r = agent_exec_decode(f->payload, f->len, &e);
	if (r < 0)
		return agent_send_error(fd, AGENT_CODE_SETUP,
					r == -EPROTONOSUPPORT ? "unsupported protocol version"
							      : "malformed EXEC request");
	r = agent_spawn(&e, &c, &err);
	if (r < 0) {
		log_debug("exec %s in %s: %s", e.argv[0], e.app, err.msg);
		agent_exec_done(&e);
		return agent_send_error(fd, err.status, err.msg);
	}
	agent_exec_done(&e);
	r = agent_relay(fd, rd, &c);
	agent_child_close(&c);
	return r;
}

static int agent_handle_stop(int fd, const struct agent_frame *f)
{
	struct cc_error err = {};
	uint32_t version;
	int r;

	if (agent_u32_decode(f, &version) < 0 || version != AGENT_VERSION)
		return agent_send_error(fd, AGENT_CODE_SETUP, "unsupported protocol version");
	r = agent_stop(&err);
	if (r < 0) {
		log_error("stop: %s", err.msg);
		return agent_send_error(fd, 1, err.msg);
	}
	log_info("stop: every app unit is stopping");
	return agent_send(fd, AGENT_ACCEPTED, NULL, 0);
}

static int agent_handle(int fd)
{
	struct agent_reader rd;
	struct agent_frame f;
	int r;

	r = agent_reader_init(&rd);
	if (r < 0)
		return r;
	r = agent_reader_wait(&rd, fd, AGENT_REQUEST_TIMEOUT_MS, &f);
	if (r == -EBADMSG)
		r = agent_send_error(fd, AGENT_CODE_SETUP, "malformed request");
	else if (r >= 0 && f.type == AGENT_EXEC)
		r = agent_handle_exec(fd, &rd, &f);
	else if (r >= 0 && f.type == AGENT_STOP)
		r = agent_handle_stop(fd, &f);
	else if (r >= 0)
		r = agent_send_error(fd, AGENT_CODE_SETUP, "unexpected request");
	agent_reader_done(&rd);
	return r;
}

static int agent_listen(unsigned port)
{
	struct sockaddr_vm sa = {
		.svm_family = AF_VSOCK,
		.svm_port = port,
		.svm_cid = VMADDR_CID_ANY,
	};
	int fd;

	fd = socket(AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return log_error_errno(errno, "Failed to create the vsock socket: %m");
	if (bind(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0 || listen(fd, 16) < 0) {
		int r = log_error_errno(errno, "Failed to listen on vsock port %u: %m", port);

		safe_close(fd);
		return r;
	}
	return fd;
}

int main(int argc, char **argv)
{
	_cleanup_close_ int lfd = -EBADF;

	log_set_prefix("cc-agent");
	if (argc != 1) {
		log_error("Usage: %s (no arguments; runs as cc-agent.service)", argv[0]);
		return EXIT_FAILURE;
	}
	/* Connection processes are reaped by the kernel; a dead host never kills us. */
	(void) signal(SIGCHLD, SIG_IGN);
	(void) signal(SIGPIPE, SIG_IGN);
	lfd = agent_listen(AGENT_PORT);
	if (lfd < 0)
		return EXIT_FAILURE;
	log_info("Listening on vsock port %u.", AGENT_PORT);

	for (;;) {
		int cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		pid_t pid;

		if (cfd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			log_error_errno(errno, "accept failed: %m");
			sleep(1);
			continue;
		}
		pid = fork();
		if (pid == 0) {
			int r;

			lfd = safe_close(lfd);
			(void) signal(SIGCHLD, SIG_DFL);
			r = agent_handle(cfd);
			if (r < 0)
				log_debug_errno(r, "Connection ended: %m");
			_exit(r < 0 ? EXIT_FAILURE : EXIT_SUCCESS);
		}
		if (pid < 0)
			log_error_errno(errno, "Failed to fork for a connection: %m");
		safe_close(cfd);
	}
}
