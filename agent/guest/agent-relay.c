/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The stdio relay of an EXEC request: host frames to the command's stdin (or pty), its
 * stdout/stderr to host frames, until it exits; then EXIT with its code.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "agent.h"
#include "cc/cleanup.h"
#include "cc/log.h"

#define RELAY_CHUNK 32768

struct relay {
	int fd;
	struct agent_reader *rd;
	struct agent_child *c;
	uint8_t *pending; /* stdin bytes not yet written (from one STDIN frame) */
	size_t pending_len, pending_off;
	bool stdin_eof; /* the host's stdin ended: close ours once pending is written */
	bool exited;
	int code; /* once exited */
};

static int relay_set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

static void relay_close_stdin(struct relay *rl)
{
	/* A pty has no separate stdin to close: the host's EOF is simply not forwarded. */
	if (!rl->c->tty)
		rl->c->in = safe_close(rl->c->in);
	else
		rl->c->in = -1;
}

/* Output fd → frames. 0 while open, 1 at its end. */
static int relay_output(struct relay *rl, int *fdp, uint32_t type, uint8_t *buf)
{
	ssize_t n = read(*fdp, buf, RELAY_CHUNK);
	int r;

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n <= 0) {
		/* EOF, or EIO on a pty whose slave side is all closed. */
		if (*fdp == rl->c->in)
			rl->c->in = -1;
		*fdp = safe_close(*fdp);
		return 1;
	}
	r = agent_send(rl->fd, type, buf, (size_t) n);
	return r < 0 ? r : 0;
}

/* Write what is pending to the command's stdin. */
static int relay_stdin_flush(struct relay *rl)
{
	while (rl->pending_off < rl->pending_len && rl->c->in >= 0) {
		ssize_t n = write(rl->c->in, rl->pending + rl->pending_off,
				  rl->pending_len - rl->pending_off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n < 0) {
			/* The command closed its stdin (EPIPE): drop the rest, as a pipe would. */
			relay_close_stdin(rl);
			break;
		}
		rl->pending_off += (size_t) n;
	}
	rl->pending_off = rl->pending_len = 0;
	if (rl->stdin_eof && rl->c->in >= 0)
		relay_close_stdin(rl);
	return 0;
}

/* Handle the host's frames already buffered, while stdin can take them. */
static int relay_frames(struct relay *rl)
{
	struct agent_frame f;
	uint16_t rows, cols;
	int r;

	while (rl->pending_len == 0) {
		r = agent_reader_next(rl->rd, &f);
		if (r <= 0)
			return r;
		switch (f.type) {
		case AGENT_STDIN:
			if (rl->stdin_eof)
				return -EBADMSG;
			if (rl->c->in < 0)
				break;
			memcpy(rl->pending, f.payload, f.len);
			rl->pending_len = f.len;
			rl->pending_off = 0;
			r = relay_stdin_flush(rl);
			if (r < 0)
				return r;
			break;
		case AGENT_STDIN_EOF:
			if (rl->stdin_eof)
				return -EBADMSG;
			rl->stdin_eof = true;
			if (rl->c->in >= 0)
				relay_close_stdin(rl);
			break;
		case AGENT_WINCH:
			r = agent_winch_decode(&f, &rows, &cols);
			if (r < 0)
				return r;
			if (rl->c->tty && rl->c->out >= 0) {
				struct winsize ws = {.ws_row = rows, .ws_col = cols};

				(void) ioctl(rl->c->out, TIOCSWINSZ, &ws);
			}
			break;
		default:
			return -EBADMSG;
		}
	}
	return 0;
}

/* The command ended: systemd (its parent) says how. */
static void relay_reap(struct relay *rl)
{
	rl->code = agent_unit_finish(rl->c->unit);
	rl->exited = true;
	rl->c->pidfd = safe_close(rl->c->pidfd);
}

/* After the exit: send what the output fds still hold, without waiting for writers that
 * outlive the command (its background children). */
static int relay_drain(struct relay *rl, uint8_t *buf)
{
	int r;

	for (int i = 0; i < 2; i++) {
		int *fdp = i == 0 ? &rl->c->out : &rl->c->err;
		uint32_t type = i == 0 ? AGENT_STDOUT : AGENT_STDERR;

		while (*fdp >= 0) {
			struct pollfd p = {.fd = *fdp, .events = POLLIN};

			if (poll(&p, 1, 0) <= 0)
				break;
			r = relay_output(rl, fdp, type, buf);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

static int relay_loop(struct relay *rl, uint8_t *buf)
{
	for (;;) {
		struct pollfd p[4];
		int n = 0, ihost = -1, iin = -1, iout = -1, ierr = -1, ipid = -1, r;

		if (rl->exited)
			return 0;
		if (rl->pending_len == 0) {
			ihost = n;
			p[n++] = (struct pollfd){.fd = rl->fd, .events = POLLIN};
		} else if (rl->c->in >= 0 && !rl->c->tty) {
			iin = n;
			p[n++] = (struct pollfd){.fd = rl->c->in, .events = POLLOUT};
		}
		if (rl->c->out >= 0) {
			iout = n;
			p[n++] = (struct pollfd){
				.fd = rl->c->out,
				.events = POLLIN | (rl->pending_len && rl->c->tty ? POLLOUT : 0)};
		}
		if (rl->c->err >= 0) {
			ierr = n;
			p[n++] = (struct pollfd){.fd = rl->c->err, .events = POLLIN};
		}
		ipid = n;
		p[n++] = (struct pollfd){.fd = rl->c->pidfd, .events = POLLIN};
		if (rl->c->pidfd < 0) {
			/* It ended before we could watch it: relay what it wrote. */
			relay_reap(rl);
			return 0;
		}

		if (poll(p, (nfds_t) n, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (iout >= 0 && (p[iout].revents & (POLLIN | POLLHUP | POLLERR))) {
			r = relay_output(rl, &rl->c->out, AGENT_STDOUT, buf);
			if (r < 0)
				return r;
		}
		if (ierr >= 0 && (p[ierr].revents & (POLLIN | POLLHUP | POLLERR))) {
			r = relay_output(rl, &rl->c->err, AGENT_STDERR, buf);
			if (r < 0)
				return r;
		}
		if ((iin >= 0 && p[iin].revents) ||
		    (iout >= 0 && rl->pending_len && (p[iout].revents & POLLOUT))) {
			r = relay_stdin_flush(rl);
			if (r < 0)
				return r;
		}
		if (ihost >= 0 && p[ihost].revents) {
			r = agent_reader_fill(rl->rd, rl->fd);
			if (r < 0 && r != -EAGAIN)
				return r;
			if (rl->rd->eof)
				return -ECONNRESET;
		}
		r = relay_frames(rl);
		if (r < 0)
			return r;
		if (p[ipid].revents & POLLIN)
			relay_reap(rl);
	}
}

int agent_relay(int fd, struct agent_reader *rd, struct agent_child *c)
{
	_cleanup_free_ uint8_t *buf = malloc(RELAY_CHUNK);
	_cleanup_free_ uint8_t *pending = malloc(AGENT_PAYLOAD_MAX);
	struct relay rl = {.fd = fd, .rd = rd, .c = c, .pending = pending};
	uint8_t code[4];
	int r;

	if (!buf || !pending)
		return -ENOMEM;
	for (int i = 0; i < 3; i++) {
		int f = i == 0 ? c->in : i == 1 ? c->out : c->err;

		if (f >= 0) {
			r = relay_set_nonblock(f);
			if (r < 0)
				return r;
		}
	}
	/* Frames that came with the request. */
	r = relay_frames(&rl);
	if (r >= 0)
		r = relay_loop(&rl, buf);
	if (r < 0) {
		/* The host broke the protocol or went away: the command goes too. */
		/* The command and everything it started: its unit. */
		if (!rl.exited)
			agent_unit_kill(c->unit);
		c->pidfd = safe_close(c->pidfd);
		return r;
	}
	r = relay_drain(&rl, buf);
	if (r < 0)
		return r;
	agent_u32_encode(code, (uint32_t) rl.code);
	return agent_send(fd, AGENT_EXIT, code, sizeof(code));
}
