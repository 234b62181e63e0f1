/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * One vsock stream connection between a guest port and a host unix socket: the state
 * machine and both directions of credit-based flow control (virtio 1.2, 5.10.6.3). The
 * connection owns its host fd (non-blocking) and does the socket I/O itself, but knows
 * nothing of virtqueues or epoll: the muxer feeds it guest packets (vsock_conn_recv) and fd
 * events (vsock_conn_notify), asks it for packets to the guest (vsock_conn_fill_rx), and
 * watches the fd for vsock_conn_wanted_events(). Unit tests drive it with socketpairs.
 *
 * Credit, guest -> host: we advertise buf_alloc = VSOCK_CONN_BUF_SIZE and fwd_cnt = bytes
 * written to the host socket; bytes the socket cannot take yet wait in a ring of that size,
 * so a guest that respects our credit can never overflow it, and one that does not is reset.
 * Host -> guest: we read from the host socket only as much as the guest advertised room for
 * (buf_alloc - (rx_cnt - fwd_cnt)), straight into the guest's rx buffer.
 *
 * The ring exists only while it holds bytes, and is charged to the VM's budget (struct
 * vsock_buf_budget, the muxer's) before it is allocated: a connection whose guest data would
 * need a ring when the budget is spent is reset instead.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "vsock/packet.h"

#define VSOCK_CONN_BUF_SIZE (64u * 1024)
/* Tell the guest about freed credit once this much was forwarded since we last told it. */
#define VSOCK_CONN_CREDIT_THRESHOLD (VSOCK_CONN_BUF_SIZE / 2)
/* A host-initiated connection the guest has not answered is reset after this. */
#define VSOCK_CONN_CONNECT_TIMEOUT_NS (2000ull * 1000 * 1000)
/* After we told the guest that both directions are closed, it has this long to reset. */
#define VSOCK_CONN_CLOSE_TIMEOUT_NS (5000ull * 1000 * 1000)

/* Guest -> host ring bytes allocated across a VM's connections, against a cap. */
struct vsock_buf_budget {
	size_t used;
	size_t max;
	uint64_t refused; /* connections reset because no ring could be charged */
};

enum vsock_conn_state {
	VSOCK_CONN_LOCAL_INIT,	/* host initiated: REQUEST to the guest, awaiting RESPONSE */
	VSOCK_CONN_PEER_INIT,	/* guest initiated: host socket connected, RESPONSE pending */
	VSOCK_CONN_ESTABLISHED, /* data flows (each direction may be shut down) */
	VSOCK_CONN_DYING,	/* an RST to the guest is pending, then dead */
	VSOCK_CONN_DEAD,	/* nothing left to do: free it */
	_VSOCK_CONN_STATE_MAX,
	_VSOCK_CONN_STATE_INVALID = -22,
};

struct vsock_conn {
	int fd;
	uint64_t guest_cid;
	uint32_t local_port; /* host side */
	uint32_t peer_port;  /* guest side */
	enum vsock_conn_state state;
	unsigned pending;   /* control packets owed to the guest (CONN_PEND_* in conn.c) */
	uint64_t expiry_ns; /* 0: none */

	/* host -> guest */
	bool rx_readable;	 /* the fd reported readable and we have not read it dry */
	bool host_eof;		 /* the host shut its write side (read returned 0) */
	bool host_hup;		 /* the host socket is closed both ways */
	bool credit_requested;	 /* CREDIT_REQUEST sent, no update since */
	uint32_t peer_buf_alloc; /* guest's receive buffer */
	uint32_t peer_fwd_cnt;	 /* bytes the guest consumed */
	uint32_t rx_cnt;	 /* bytes we sent the guest */
	uint32_t shutdown_flags; /* flags of our pending or sent SHUTDOWN */
	uint32_t peer_shutdown;	 /* SHUTDOWN flags the guest sent */

	/* guest -> host */
	uint32_t tx_cnt;	/* bytes the guest sent us */
	uint32_t fwd_cnt;	/* bytes written to the host socket */
	uint32_t last_fwd_sent; /* fwd_cnt the guest last heard of */
	uint8_t *ring;		/* VSOCK_CONN_BUF_SIZE bytes, only while it holds bytes */
	uint32_t ring_head;
	uint32_t ring_len;
	bool wr_shut;	/* shutdown(fd, SHUT_WR) done */
	char reply[24]; /* "OK <port>\n" owed to a host client, sent before any data */
	uint8_t reply_len;
	uint8_t reply_off;

	/* Owned by the muxer. */
	struct vsock_buf_budget *budget; /* the ring is charged here; NULL: no cap */
	struct vsock_conn *hash_next;
	struct vsock_conn *rxq_next;
	struct vsock_conn **rxq_pprev;
	uint32_t epoll_events;
	bool epoll_registered;
};

/* The guest's REQUEST req was accepted and fd is connected to the host socket. */
int vsock_conn_new_peer(int fd, uint64_t guest_cid, const struct vsock_hdr *req,
			struct vsock_conn **ret);
/* A host client on fd asked for guest port peer_port; we use local_port on the host side. */
int vsock_conn_new_local(int fd, uint64_t guest_cid, uint32_t local_port, uint32_t peer_port,
			 uint64_t now_ns, struct vsock_conn **ret);
/* Closes the fd. */
struct vsock_conn *vsock_conn_free(struct vsock_conn *c);

/*
 * A validated packet from the guest addressed to this connection. The payload is bytes
 * [off, off + h->len) of iov[0..n).
 */
void vsock_conn_recv(struct vsock_conn *c, const struct vsock_hdr *h, const struct iovec *iov,
		     unsigned n, size_t off, uint64_t now_ns);

/* The host fd reported events (EPOLLIN/OUT/HUP/ERR). */
void vsock_conn_notify(struct vsock_conn *c, uint32_t events);

/*
 * Produce the next packet for the guest. The payload, if any, goes to bytes [off, off + room)
 * of iov[0..n) (room is capped at VSOCK_PKT_MAX_PAYLOAD). Returns 1 with *ret_hdr set
 * (ret_hdr->len = payload bytes written), or 0 when there is nothing to send right now.
 */
int vsock_conn_fill_rx(struct vsock_conn *c, struct vsock_hdr *ret_hdr, const struct iovec *iov,
		       unsigned n, size_t off, size_t room, uint64_t now_ns);

/* Whether vsock_conn_fill_rx() might produce a packet. */
bool vsock_conn_has_rx(const struct vsock_conn *c);
/* EPOLLIN/EPOLLOUT mask the host fd should be watched for (0: do not watch it). */
uint32_t vsock_conn_wanted_events(const struct vsock_conn *c);
/* Reset the connection: an RST goes to the guest, then it dies. */
void vsock_conn_kill(struct vsock_conn *c);
/* Apply the connect and close timeouts. */
void vsock_conn_check_timeout(struct vsock_conn *c, uint64_t now_ns);
/* Credit the guest currently gives us (host -> guest bytes we may send). */
uint32_t vsock_conn_peer_credit(const struct vsock_conn *c);

static inline bool vsock_conn_is_dead(const struct vsock_conn *c)
{
	return c->state == VSOCK_CONN_DEAD;
}

const char *vsock_conn_state_to_string(enum vsock_conn_state s);
