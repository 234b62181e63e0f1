/* SPDX-License-Identifier: Apache-2.0 */
/*
 * EXEC on the host: send the request, then relay the caller's stdin to the agent and the
 * agent's STDOUT/STDERR frames to the caller until EXIT or ERROR. The socket is non-blocking
 * and host → guest bytes wait in a one-frame buffer, so we always keep reading the guest's
 * output (a command that does not read its stdin cannot deadlock the pair).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agent-client.h"
#include "agent-io.h"
#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "cc/tty.h"

#define CLIENT_CHUNK 32768

struct client {
	int fd;
	const struct agent_client_stdio *io;
	struct agent_reader rd;
	uint8_t out[AGENT_HEADER_SIZE + CLIENT_CHUNK];
	size_t out_len, out_off;
	bool in_eof;
	bool drop_out, drop_err; /* the caller's stdout/stderr went away: discard */
	bool done;
	int signal; /* the terminating signal that interrupted us, 0 if none */
	int code;
	char *msg;
};

/* Queue one frame for the agent (the buffer must be empty). */
static int client_queue(struct client *c, uint32_t type, const void *p, size_t len)
{
	int r = agent_frame_header(c->out, type, len);

	if (r < 0)
		return r;
	if (len > 0)
		memcpy(c->out + AGENT_HEADER_SIZE, p, len);
	c->out_len = AGENT_HEADER_SIZE + len;
	c->out_off = 0;
	return 0;
}

static int client_flush(struct client *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n < 0)
			return -errno;
		c->out_off += (size_t) n;
	}
	c->out_off = c->out_len = 0;
	return 0;
}

static int client_read_stdin(struct client *c)
{
	uint8_t buf[CLIENT_CHUNK];
	ssize_t n = read(c->io->in, buf, sizeof(buf));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n <= 0) {
		/* EOF, or an error (EIO on a hung-up terminal): the command's stdin ends. */
		c->in_eof = true;
		return client_queue(c, AGENT_STDIN_EOF, NULL, 0);
	}
	return client_queue(c, AGENT_STDIN, buf, (size_t) n);
}

static void client_output(bool *drop, int fd, const struct agent_frame *f)
{
	if (*drop)
		return;
	if (loop_write(fd, f->payload, f->len) < 0)
		*drop = true;
}

static int client_frames(struct client *c)
{
	struct agent_frame f;
	int r;

	while (!c->done) {
		r = agent_reader_next(&c->rd, &f);
		if (r <= 0)
			return r;
		switch (f.type) {
		case AGENT_STDOUT:
			client_output(&c->drop_out, c->io->out, &f);
			break;
		case AGENT_STDERR:
			client_output(&c->drop_err, c->io->err, &f);
			break;
		case AGENT_EXIT:
			r = agent_exit_decode(&f, &c->code);
			if (r < 0)
				return r;
			c->done = true;
			break;
		case AGENT_ERROR:
			r = agent_error_decode(&f, &c->code, &c->msg);
			if (r < 0)
				return r;
			c->done = true;
			break;
		default:
			return -EBADMSG;
		}
	}
	return 0;
}

static int client_winch(struct client *c)
{
	struct winsize ws;
	uint8_t p[4];

	if (ioctl(c->io->out, TIOCGWINSZ, &ws) < 0 && ioctl(c->io->in, TIOCGWINSZ, &ws) < 0)
		return 0;
	agent_winch_encode(p, ws.ws_row, ws.ws_col);
	/* Rare and small: sent in place, after the frame in flight. */
	return client_queue(c, AGENT_WINCH, p, sizeof(p));
}

/* Records a terminating signal in c->signal; SIGWINCH sets *winch. */
static void client_signal(struct client *c, int sfd, bool *winch)
{
	struct signalfd_siginfo si;
	ssize_t n = read(sfd, &si, sizeof(si));

	if (n != sizeof(si))
		return;
	if (si.ssi_signo == SIGWINCH)
		*winch = true;
	else
		c->signal = (int) si.ssi_signo;
}

static int client_loop(struct client *c, int sfd)
{
	bool winch = false;
	int r;

	while (!c->done) {
		struct pollfd p[3];
		int n = 0, isock, iin = -1, isig;

		isock = n;
		p[n++] =
			(struct pollfd){.fd = c->fd, .events = POLLIN | (c->out_len ? POLLOUT : 0)};
		if (!c->in_eof && c->out_len == 0) {
			iin = n;
			p[n++] = (struct pollfd){.fd = c->io->in, .events = POLLIN};
		}
		isig = n;
		p[n++] = (struct pollfd){.fd = sfd, .events = POLLIN};

		if (winch && c->out_len == 0) {
			winch = false;
			r = client_winch(c);
			if (r < 0)
				return r;
			continue;
		}
		if (poll(p, (nfds_t) n, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (p[isig].revents & POLLIN) {
			client_signal(c, sfd, &winch);
			if (c->signal > 0)
				return -EINTR;
		}
		if (p[isock].revents & (POLLIN | POLLHUP | POLLERR)) {
			r = agent_reader_fill(&c->rd, c->fd);
			if (r < 0 && r != -EAGAIN)
				return r;
			r = client_frames(c);
			if (r < 0)
				return r;
			if (!c->done && c->rd.eof)
				return -ECONNRESET;
		}
		if (c->out_len > 0 && (p[isock].revents & POLLOUT)) {
			r = client_flush(c);
			if (r < 0 && r != -EPIPE)
				return r;
		}
		if (iin >= 0 && (p[iin].revents & (POLLIN | POLLHUP | POLLERR))) {
			r = client_read_stdin(c);
			if (r >= 0)
				r = client_flush(c);
			if (r < 0 && r != -EPIPE)
				return r;
		}
	}
	return 0;
}

static int client_send_request(int fd, const char *app, char *const argv[], size_t argc,
			       const struct agent_client_stdio *io)
{
	_cleanup_free_ uint8_t *buf = NULL;
	struct agent_exec e = {
		.app = (char *) app,
		.term = (char *) "",
		.tty = io->tty,
		.argc = argc,
		.argv = (char **) argv,
	};
	const char *term = getenv("TERM");
	struct winsize ws;
	size_t len;
	int r;

	if (io->tty) {
		if (ioctl(io->out, TIOCGWINSZ, &ws) == 0 || ioctl(io->in, TIOCGWINSZ, &ws) == 0) {
			e.rows = ws.ws_row;
			e.cols = ws.ws_col;
		}
		if (term && strlen(term) <= AGENT_TERM_MAX)
			e.term = (char *) term;
	}
	r = agent_exec_encode(&e, &buf, &len);
	if (r == -EINVAL && e.term[0] != '\0') {
		/* A TERM we cannot pass on: the guest's default instead. */
		e.term = (char *) "";
		r = agent_exec_encode(&e, &buf, &len);
	}
	if (r < 0)
		return r;
	return agent_send_raw(fd, buf, len);
}

int agent_client_exec(int fd, const char *app, char *const argv[], size_t argc,
		      const struct agent_client_stdio *io, int *ret_code, struct cc_error *err)
{
	_cleanup_free_ struct client *c = NULL;
	_cleanup_close_ int sfd = -EBADF;
	struct tty_raw tty = {.fd = -1};
	sigset_t mask, old;
	int r, fl;

	r = client_send_request(fd, app, argv, argc, io);
	if (r < 0)
		return cc_error_set(err, r, "%s",
				    r == -EINVAL  ? "invalid app name or command"
				    : r == -E2BIG ? "the command line is too long"
						  : strerror(-r));
	c = calloc(1, sizeof(*c));
	if (!c)
		return cc_error_set(err, -ENOMEM, "%m");
	*c = (struct client){.fd = fd, .io = io};
	r = agent_reader_init(&c->rd);
	if (r < 0)
		return cc_error_set(err, r, "%m");

	sigemptyset(&mask);
	sigaddset(&mask, SIGWINCH);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGQUIT);
	(void) sigprocmask(SIG_BLOCK, &mask, &old);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	fl = fcntl(fd, F_GETFL);
	if (sfd < 0 || fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0) {
		r = -errno;
	} else {
		if (io->tty)
			(void) tty_raw_enter(&tty, io->in);
		r = client_loop(c, sfd);
		tty_raw_leave(&tty);
	}
	(void) sigprocmask(SIG_SETMASK, &old, NULL);
	agent_reader_done(&c->rd);
	if (r < 0)
		c->msg = mfree(c->msg); /* an agent error read before the connection broke */

	if (r == -EINTR && c->signal > 0) {
		/* Closing the connection makes the agent kill the command. */
		*ret_code = 128 + c->signal;
		return cc_error_set_status(err, *ret_code, r, "interrupted by %s",
					   strsignal(c->signal));
	}
	if (r < 0)
		return cc_error_set(
			err, r, "%s",
			r == -EBADMSG ? "malformed data from the pod's agent"
			: r == -ECONNRESET
				? "the pod's agent closed the connection (the pod stopped?)"
				: strerror(-r));
	*ret_code = c->code;
	if (c->msg) {
		r = cc_error_set_status(err, c->code, -EIO, "%s", c->msg);
		free(c->msg);
		return r;
	}
	return 0;
}
