/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The unix-socket backend of virtio-vsock (Firecracker's design):
 *  - a guest connection to host port P becomes a connection to the unix socket "<uds_path>_P";
 *  - a host client connecting to uds_path and writing "CONNECT <port>\n" reaches guest port
 *    <port>; once the guest accepts, it reads "OK <host port>\n" and then the stream.
 *
 * The muxer owns the connection table (capped), the listener, the clients still sending their
 * CONNECT line, and the queue of packets owed to the guest: connections with something to
 * send, round-robin, plus a bounded ring of RSTs for packets that match no connection. All
 * its fds live in a private epoll set whose fd the device adds to the VMM's event loop, so it
 * never busy-loops and one loop source serves any number of connections.
 *
 * It knows nothing of virtqueues: the device hands it validated guest packets as iovecs and
 * asks it to fill rx buffers. Not thread-safe: the device serialises calls.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "vsock/packet.h"

#define VSOCK_MUX_MAX_CONNS	 256 /* connections at once (both directions), by default */
#define VSOCK_MUX_MAX_HANDSHAKES 32  /* host clients still sending their CONNECT line */
#define VSOCK_MUX_MAX_RST	 64  /* RSTs queued for packets matching no connection */
#define VSOCK_MUX_HS_TIMEOUT_NS	 (5000ull * 1000 * 1000)
/* Host ports for host-initiated connections start here (as in Firecracker). */
#define VSOCK_MUX_LOCAL_PORT_BASE (1u << 30)
/* Guest -> host ring bytes across connections, by default (64 full rings). */
#define VSOCK_MUX_BUF_BYTES_DEFAULT (4u * 1024 * 1024)

/*
 * The VM's budget. Over it the guest gets an RST and the host no allocation: a REQUEST beyond
 * max_conns is refused (a host client is closed), and a connection whose guest data would need
 * a ring (the host socket is not taking it) when max_buf_bytes are spent is reset.
 */
struct vsock_mux_limits {
	unsigned max_conns;
	size_t max_buf_bytes; /* in whole rings of VSOCK_CONN_BUF_SIZE */
};

/* What the muxer holds now, against its limits. */
struct vsock_mux_usage {
	unsigned conns;
	unsigned handshakes;  /* host clients still sending their CONNECT line */
	size_t buf_bytes;     /* guest -> host rings allocated */
	uint64_t buf_refused; /* connections reset so far because no ring could be charged */
};

struct vsock_mux;

struct vsock_mux_stats {
	uint64_t conns_opened;	   /* connections set up, both directions */
	uint64_t conns_refused;	   /* guest REQUESTs or host clients turned away */
	uint64_t rst_queued;	   /* RSTs for packets that matched no connection */
	uint64_t rst_dropped;	   /* ... dropped because the ring was full */
	uint64_t handshake_errors; /* host clients with a bad or missing CONNECT line */
};

/* Binds and listens on uds_path (which must not exist yet). */
int vsock_mux_new(uint64_t guest_cid, const char *uds_path, struct vsock_mux **ret);
/* Closes every connection and the listener, and removes uds_path. */
struct vsock_mux *vsock_mux_free(struct vsock_mux *mux);

/* The epoll fd to watch for EPOLLIN; then call vsock_mux_process(). */
int vsock_mux_fd(const struct vsock_mux *mux);
/* Handle the host-side events that are ready, without blocking. */
void vsock_mux_process(struct vsock_mux *mux);

/* A validated packet from the guest (see vsock_pkt_parse_tx); payload at iov offset off. */
void vsock_mux_send(struct vsock_mux *mux, const struct vsock_hdr *h, const struct iovec *iov,
		    unsigned n, size_t off);
/* Answer a guest packet we refuse (bad type or op) with an RST. */
void vsock_mux_send_rst(struct vsock_mux *mux, const struct vsock_hdr *h);
/* Whether a guest packet can be taken now: its answer is sure to fit in the queue. */
bool vsock_mux_can_send(const struct vsock_mux *mux);

bool vsock_mux_has_rx(const struct vsock_mux *mux);
/*
 * Write the next packet for the guest (header, then payload) into the device-writable buffer
 * iov[0..n). Returns 1 and *ret_len (bytes written), 0 when nothing can be sent now, or
 * -ENOBUFS when the buffer cannot even hold a header.
 */
int vsock_mux_fill_rx(struct vsock_mux *mux, const struct iovec *iov, unsigned n,
		      uint32_t *ret_len);

/* Apply connect, close and handshake timeouts as of now_ns (CLOCK_MONOTONIC). */
void vsock_mux_expire(struct vsock_mux *mux, uint64_t now_ns);
/* Device reset: drop every connection silently (the guest forgot them). */
void vsock_mux_reset(struct vsock_mux *mux);

unsigned vsock_mux_n_conns(const struct vsock_mux *mux);
/* Set the budget (a 0 field keeps the current one); applies to what comes next. */
void vsock_mux_set_limits(struct vsock_mux *mux, const struct vsock_mux_limits *lim);
void vsock_mux_get_limits(const struct vsock_mux *mux, struct vsock_mux_limits *ret);
void vsock_mux_get_usage(const struct vsock_mux *mux, struct vsock_mux_usage *ret);
const struct vsock_mux_stats *vsock_mux_get_stats(const struct vsock_mux *mux);
