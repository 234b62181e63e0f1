/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/log.h"
#include "virtio/virtq.h"
#include "vsock/conn.h"

/* Control packets owed to the guest, sent in this order of priority. */
enum {
	CONN_PEND_RST = 1u << 0,
	CONN_PEND_REQUEST = 1u << 1,
	CONN_PEND_RESPONSE = 1u << 2,
	CONN_PEND_CREDIT_UPDATE = 1u << 3,
	CONN_PEND_CREDIT_REQUEST = 1u << 4,
	CONN_PEND_SHUTDOWN = 1u << 5,
};

static int conn_alloc(int fd, uint64_t guest_cid, uint32_t local_port, uint32_t peer_port,
		      struct vsock_conn **ret)
{
	struct vsock_conn *c;

	if (fd < 0)
		return -EBADF;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->fd = fd;
	c->guest_cid = guest_cid;
	c->local_port = local_port;
	c->peer_port = peer_port;
	*ret = c;
	return 0;
}

int vsock_conn_new_peer(int fd, uint64_t guest_cid, const struct vsock_hdr *req,
			struct vsock_conn **ret)
{
	struct vsock_conn *c;
	int r;

	r = conn_alloc(fd, guest_cid, req->dst_port, req->src_port, &c);
	if (r < 0)
		return r;
	c->state = VSOCK_CONN_PEER_INIT;
	c->pending = CONN_PEND_RESPONSE;
	c->peer_buf_alloc = req->buf_alloc;
	c->peer_fwd_cnt = req->fwd_cnt;
	*ret = c;
	return 0;
}

int vsock_conn_new_local(int fd, uint64_t guest_cid, uint32_t local_port, uint32_t peer_port,
			 uint64_t now_ns, struct vsock_conn **ret)
{
	struct vsock_conn *c;
	int r;

	r = conn_alloc(fd, guest_cid, local_port, peer_port, &c);
	if (r < 0)
		return r;
	c->state = VSOCK_CONN_LOCAL_INIT;
	c->pending = CONN_PEND_REQUEST;
	c->expiry_ns = now_ns + VSOCK_CONN_CONNECT_TIMEOUT_NS;
	*ret = c;
	return 0;
}

/* Free the (empty or abandoned) ring and give its bytes back to the budget. */
static void conn_ring_release(struct vsock_conn *c)
{
	if (!c->ring)
		return;
	free(c->ring);
	c->ring = NULL;
	c->ring_head = 0;
	c->ring_len = 0;
	if (c->budget)
		c->budget->used -= VSOCK_CONN_BUF_SIZE;
}

struct vsock_conn *vsock_conn_free(struct vsock_conn *c)
{
	if (!c)
		return NULL;
	safe_close(c->fd);
	conn_ring_release(c);
	free(c);
	return NULL;
}

void vsock_conn_kill(struct vsock_conn *c)
{
	if (c->state == VSOCK_CONN_DEAD || c->state == VSOCK_CONN_DYING)
		return;
	log_debug("vsock: reset %u <-> guest %u in state %s", c->local_port, c->peer_port,
		  vsock_conn_state_to_string(c->state));
	c->state = VSOCK_CONN_DYING;
	c->pending = CONN_PEND_RST;
	c->expiry_ns = 0;
	/* Reset: what the host has not taken is dropped, and the budget gets it back now. */
	conn_ring_release(c);
}

static void conn_die(struct vsock_conn *c)
{
	c->state = VSOCK_CONN_DEAD;
	c->pending = 0;
	c->expiry_ns = 0;
}

uint32_t vsock_conn_peer_credit(const struct vsock_conn *c)
{
	uint32_t in_flight = c->rx_cnt - c->peer_fwd_cnt;

	/* A guest that claims to have consumed more than we sent only stalls itself. */
	if (in_flight > c->peer_buf_alloc)
		return 0;
	return c->peer_buf_alloc - in_flight;
}

static bool conn_may_read(const struct vsock_conn *c)
{
	return c->state == VSOCK_CONN_ESTABLISHED && !c->host_eof &&
	       !(c->peer_shutdown & VSOCK_SHUTDOWN_RCV);
}

static void conn_check_credit_request(struct vsock_conn *c)
{
	if (conn_may_read(c) && c->rx_readable && vsock_conn_peer_credit(c) == 0 &&
	    !c->credit_requested) {
		c->pending |= CONN_PEND_CREDIT_REQUEST;
		c->credit_requested = true;
	}
}

static int conn_send(struct vsock_conn *c, const struct iovec *iov, unsigned n, size_t *ret_sent)
{
	struct msghdr mh = {.msg_iov = (struct iovec *) iov, .msg_iovlen = n};
	ssize_t k;

	k = sendmsg(c->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (k < 0) {
		*ret_sent = 0;
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	}
	*ret_sent = (size_t) k;
	return 0;
}

/* Once the guest's data is all out: half-close the host socket, or finish the connection. */
static void conn_apply_peer_shutdown(struct vsock_conn *c)
{
	if (c->state != VSOCK_CONN_ESTABLISHED || c->ring_len > 0 || c->reply_off < c->reply_len)
		return;
	if ((c->peer_shutdown & VSOCK_SHUTDOWN_BOTH) == VSOCK_SHUTDOWN_BOTH) {
		/* Both sides of the guest socket are closed: complete the close with an RST. */
		vsock_conn_kill(c);
		return;
	}
	if ((c->peer_shutdown & VSOCK_SHUTDOWN_SEND) && !c->wr_shut) {
		(void) shutdown(c->fd, SHUT_WR);
		c->wr_shut = true;
	}
}

static void conn_forwarded(struct vsock_conn *c, size_t n)
{
	c->fwd_cnt += (uint32_t) n;
	if (c->fwd_cnt - c->last_fwd_sent >= VSOCK_CONN_CREDIT_THRESHOLD)
		c->pending |= CONN_PEND_CREDIT_UPDATE;
}

/* Write the handshake reply and ring contents to the host. */
static void conn_flush_tx(struct vsock_conn *c)
{
	size_t sent;
	int r;

	if (c->state != VSOCK_CONN_ESTABLISHED)
		return;
	if (c->reply_off < c->reply_len) {
		struct iovec v = {c->reply + c->reply_off, (size_t) (c->reply_len - c->reply_off)};

		r = conn_send(c, &v, 1, &sent);
		if (r < 0)
			goto fail;
		c->reply_off += (uint8_t) sent;
		if (c->reply_off < c->reply_len)
			return;
	}
	while (c->ring_len > 0) {
		uint32_t first = MIN(c->ring_len, VSOCK_CONN_BUF_SIZE - c->ring_head);
		struct iovec v[2] = {
			{c->ring + c->ring_head, first},
			{c->ring, c->ring_len - first},
		};

		r = conn_send(c, v, c->ring_len > first ? 2 : 1, &sent);
		if (r < 0)
			goto fail;
		if (sent == 0)
			return;
		c->ring_head = (uint32_t) ((c->ring_head + sent) % VSOCK_CONN_BUF_SIZE);
		c->ring_len -= (uint32_t) sent;
		conn_forwarded(c, sent);
	}
	conn_ring_release(c);
	conn_apply_peer_shutdown(c);
	return;
fail:
	log_debug_errno(r, "vsock: write to host port %u failed: %m", c->local_port);
	vsock_conn_kill(c);
}

static int conn_ring_append(struct vsock_conn *c, const struct iovec *iov, unsigned n, size_t off,
			    size_t len)
{
	uint32_t tail, first;

	if (len == 0)
		return 0;
	if (len > VSOCK_CONN_BUF_SIZE - c->ring_len)
		return -ENOBUFS;
	if (!c->ring) {
		/* Charged before it exists: over budget, nothing is allocated. */
		if (c->budget &&
		    c->budget->max - MIN(c->budget->used, c->budget->max) < VSOCK_CONN_BUF_SIZE) {
			c->budget->refused++;
			return -ENOBUFS;
		}
		c->ring = malloc(VSOCK_CONN_BUF_SIZE);
		if (!c->ring)
			return -ENOMEM;
		if (c->budget)
			c->budget->used += VSOCK_CONN_BUF_SIZE;
	}
	tail = (c->ring_head + c->ring_len) % VSOCK_CONN_BUF_SIZE;
	first = MIN((uint32_t) len, VSOCK_CONN_BUF_SIZE - tail);
	(void) iov_to_buf(iov, n, off, c->ring + tail, first);
	(void) iov_to_buf(iov, n, off + first, c->ring, len - first);
	c->ring_len += (uint32_t) len;
	return 0;
}

static void conn_recv_rw(struct vsock_conn *c, const struct vsock_hdr *h, const struct iovec *iov,
			 unsigned n, size_t off)
{
	struct iovec slice[VSOCK_IOV_MAX];
	size_t covered, sent = 0;
	unsigned ns;
	int r;

	if (h->len == 0)
		return;
	if ((c->peer_shutdown & VSOCK_SHUTDOWN_SEND) || c->wr_shut) {
		log_debug("vsock: data after SEND shutdown on %u", c->local_port);
		vsock_conn_kill(c);
		return;
	}
	/* The guest may have at most buf_alloc bytes in flight: more is a credit violation. */
	if (c->tx_cnt - c->fwd_cnt + h->len > VSOCK_CONN_BUF_SIZE) {
		log_debug("vsock: guest %u exceeded its credit", c->peer_port);
		vsock_conn_kill(c);
		return;
	}
	c->tx_cnt += h->len;
	if (c->ring_len == 0 && c->reply_off == c->reply_len) {
		ns = vsock_iov_slice(iov, n, off, h->len, slice, VSOCK_IOV_MAX, &covered);
		if (covered < h->len) {
			vsock_conn_kill(c);
			return;
		}
		r = conn_send(c, slice, ns, &sent);
		if (r < 0) {
			log_debug_errno(r, "vsock: write to host port %u failed: %m",
					c->local_port);
			vsock_conn_kill(c);
			return;
		}
		conn_forwarded(c, sent);
	}
	r = conn_ring_append(c, iov, n, off + sent, h->len - sent);
	if (r < 0) {
		log_debug_errno(r, "vsock: no buffer for guest %u -> host port %u: %m",
				c->peer_port, c->local_port);
		vsock_conn_kill(c);
		return;
	}
}

static void conn_recv_established(struct vsock_conn *c, const struct vsock_hdr *h,
				  const struct iovec *iov, unsigned n, size_t off)
{
	switch (h->op) {
	case VSOCK_OP_RW:
		conn_recv_rw(c, h, iov, n, off);
		break;
	case VSOCK_OP_CREDIT_UPDATE:
		break;
	case VSOCK_OP_CREDIT_REQUEST:
		c->pending |= CONN_PEND_CREDIT_UPDATE;
		break;
	case VSOCK_OP_SHUTDOWN:
		c->peer_shutdown |= h->flags & VSOCK_SHUTDOWN_BOTH;
		conn_apply_peer_shutdown(c);
		break;
	default: /* REQUEST or RESPONSE on an open connection */
		vsock_conn_kill(c);
		break;
	}
}

static void conn_set_reply(struct vsock_conn *c)
{
	int k = snprintf(c->reply, sizeof(c->reply), "OK %u\n", c->local_port);

	c->reply_len = (uint8_t) MIN((size_t) k, sizeof(c->reply) - 1);
	c->reply_off = 0;
}

void vsock_conn_recv(struct vsock_conn *c, const struct vsock_hdr *h, const struct iovec *iov,
		     unsigned n, size_t off, uint64_t now_ns)
{
	(void) now_ns;
	if (c->state == VSOCK_CONN_DEAD)
		return;
	if (h->op == VSOCK_OP_RST) {
		conn_die(c);
		return;
	}
	c->peer_buf_alloc = h->buf_alloc;
	c->peer_fwd_cnt = h->fwd_cnt;
	if (vsock_conn_peer_credit(c) > 0)
		c->credit_requested = false;

	switch (c->state) {
	case VSOCK_CONN_LOCAL_INIT:
		/* Only a RESPONSE to the REQUEST we actually sent opens the connection. */
		if (h->op != VSOCK_OP_RESPONSE || (c->pending & CONN_PEND_REQUEST)) {
			vsock_conn_kill(c);
			break;
		}
		c->state = VSOCK_CONN_ESTABLISHED;
		c->expiry_ns = 0;
		conn_set_reply(c);
		conn_flush_tx(c);
		break;
	case VSOCK_CONN_ESTABLISHED:
		conn_recv_established(c, h, iov, n, off);
		break;
	case VSOCK_CONN_PEER_INIT: /* the guest must wait for our RESPONSE */
		vsock_conn_kill(c);
		break;
	default: /* DYING: the RST is on its way */
		break;
	}
	conn_check_credit_request(c);
}

void vsock_conn_notify(struct vsock_conn *c, uint32_t events)
{
	if (c->state == VSOCK_CONN_DEAD || c->state == VSOCK_CONN_DYING)
		return;
	if (events & EPOLLERR) {
		vsock_conn_kill(c);
		return;
	}
	if (events & EPOLLHUP)
		c->host_hup = true;
	if (events & (EPOLLIN | EPOLLHUP))
		c->rx_readable = true;
	if (events & (EPOLLOUT | EPOLLHUP))
		conn_flush_tx(c);
	conn_check_credit_request(c);
}

static void conn_hdr(const struct vsock_conn *c, uint16_t op, struct vsock_hdr *ret)
{
	*ret = (struct vsock_hdr){
		.src_cid = VSOCK_HOST_CID,
		.dst_cid = c->guest_cid,
		.src_port = c->local_port,
		.dst_port = c->peer_port,
		.type = VSOCK_TYPE_STREAM,
		.op = op,
		.buf_alloc = VSOCK_CONN_BUF_SIZE,
		.fwd_cnt = c->fwd_cnt,
	};
}

/* Read host data into the guest buffer. 1: a packet is ready; 0: nothing; -errno: reset. */
static int conn_read_data(struct vsock_conn *c, struct vsock_hdr *ret_hdr, const struct iovec *iov,
			  unsigned n, size_t off, size_t room)
{
	struct iovec slice[VSOCK_IOV_MAX];
	size_t want, covered;
	unsigned ns;
	ssize_t k;

	want = MIN(room, (size_t) vsock_conn_peer_credit(c));
	if (want == 0)
		return 0;
	ns = vsock_iov_slice(iov, n, off, want, slice, VSOCK_IOV_MAX, &covered);
	if (covered == 0)
		return 0;
	k = readv(c->fd, slice, (int) ns);
	if (k < 0) {
		if (errno == EAGAIN || errno == EINTR) {
			c->rx_readable = false;
			return 0;
		}
		return -errno;
	}
	if (k == 0) {
		/* The host will send no more; with HUP it will not receive either. */
		c->host_eof = true;
		c->rx_readable = false;
		c->shutdown_flags = VSOCK_SHUTDOWN_SEND | (c->host_hup ? VSOCK_SHUTDOWN_RCV : 0);
		c->pending |= CONN_PEND_SHUTDOWN;
		return 0;
	}
	if ((size_t) k < covered)
		c->rx_readable = false; /* drained for now: wait for EPOLLIN again */
	conn_hdr(c, VSOCK_OP_RW, ret_hdr);
	ret_hdr->len = (uint32_t) k;
	c->rx_cnt += (uint32_t) k;
	return 1;
}

static uint16_t conn_take_control(struct vsock_conn *c, uint64_t now_ns)
{
	static const struct {
		unsigned bit;
		uint16_t op;
	} order[] = {
		{CONN_PEND_REQUEST, VSOCK_OP_REQUEST},
		{CONN_PEND_RESPONSE, VSOCK_OP_RESPONSE},
		{CONN_PEND_CREDIT_UPDATE, VSOCK_OP_CREDIT_UPDATE},
		{CONN_PEND_CREDIT_REQUEST, VSOCK_OP_CREDIT_REQUEST},
		{CONN_PEND_SHUTDOWN, VSOCK_OP_SHUTDOWN},
	};

	for (size_t i = 0; i < ARRAY_SIZE(order); i++) {
		if (!(c->pending & order[i].bit))
			continue;
		c->pending &= ~order[i].bit;
		if (order[i].op == VSOCK_OP_RESPONSE)
			c->state = VSOCK_CONN_ESTABLISHED;
		if (order[i].op == VSOCK_OP_SHUTDOWN &&
		    (c->shutdown_flags & VSOCK_SHUTDOWN_BOTH) == VSOCK_SHUTDOWN_BOTH)
			c->expiry_ns = now_ns + VSOCK_CONN_CLOSE_TIMEOUT_NS;
		return order[i].op;
	}
	return VSOCK_OP_INVALID;
}

int vsock_conn_fill_rx(struct vsock_conn *c, struct vsock_hdr *ret_hdr, const struct iovec *iov,
		       unsigned n, size_t off, size_t room, uint64_t now_ns)
{
	uint16_t op;
	int r;

	if (c->state == VSOCK_CONN_DEAD)
		return 0;
	if (c->pending & CONN_PEND_RST) {
		conn_hdr(c, VSOCK_OP_RST, ret_hdr);
		conn_die(c);
		return 1;
	}
	/* Connection setup first, then data, then the other control packets. */
	if (c->pending & (CONN_PEND_REQUEST | CONN_PEND_RESPONSE))
		goto control;
	if (conn_may_read(c) && c->rx_readable) {
		r = conn_read_data(c, ret_hdr, iov, n, off, MIN(room, VSOCK_PKT_MAX_PAYLOAD));
		if (r < 0) {
			log_debug_errno(r, "vsock: read from host port %u failed: %m",
					c->local_port);
			vsock_conn_kill(c);
			conn_hdr(c, VSOCK_OP_RST, ret_hdr);
			conn_die(c);
			return 1;
		}
		if (r > 0)
			goto sent;
		conn_check_credit_request(c);
	}
control:
	op = conn_take_control(c, now_ns);
	if (op == VSOCK_OP_INVALID)
		return 0;
	conn_hdr(c, op, ret_hdr);
	if (op == VSOCK_OP_SHUTDOWN)
		ret_hdr->flags = c->shutdown_flags;
sent:
	/* Every packet carries our fwd_cnt, so any pending credit update is now delivered. */
	c->last_fwd_sent = c->fwd_cnt;
	c->pending &= ~(unsigned) CONN_PEND_CREDIT_UPDATE;
	return 1;
}

bool vsock_conn_has_rx(const struct vsock_conn *c)
{
	if (c->state == VSOCK_CONN_DEAD)
		return false;
	if (c->pending)
		return true;
	return conn_may_read(c) && c->rx_readable && vsock_conn_peer_credit(c) > 0;
}

uint32_t vsock_conn_wanted_events(const struct vsock_conn *c)
{
	uint32_t ev = 0;

	if (c->state == VSOCK_CONN_DEAD || c->state == VSOCK_CONN_DYING)
		return 0;
	if (conn_may_read(c) && !c->rx_readable)
		ev |= EPOLLIN;
	if (c->state == VSOCK_CONN_ESTABLISHED && (c->ring_len > 0 || c->reply_off < c->reply_len))
		ev |= EPOLLOUT;
	return ev;
}

void vsock_conn_check_timeout(struct vsock_conn *c, uint64_t now_ns)
{
	if (c->expiry_ns == 0 || now_ns < c->expiry_ns)
		return;
	log_debug("vsock: connection %u <-> guest %u timed out in state %s", c->local_port,
		  c->peer_port, vsock_conn_state_to_string(c->state));
	vsock_conn_kill(c);
}

const char *vsock_conn_state_to_string(enum vsock_conn_state s)
{
	static const char *const names[_VSOCK_CONN_STATE_MAX] = {
		[VSOCK_CONN_LOCAL_INIT] = "local-init",
		[VSOCK_CONN_PEER_INIT] = "peer-init",
		[VSOCK_CONN_ESTABLISHED] = "established",
		[VSOCK_CONN_DYING] = "dying",
		[VSOCK_CONN_DEAD] = "dead",
	};

	return s >= 0 && s < _VSOCK_CONN_STATE_MAX ? names[s] : "invalid";
}
