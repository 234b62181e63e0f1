/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* State shared by vnet.c (device, tx) and vnet-rx.c (receive path). Not for other users. */

#include <pthread.h>

#include "net/vnet-hdr.h"
#include "net/vnet.h"

#define VNET_RX_BUF_SIZE (VNET_HDR_LEN + VNET_MAX_FRAME)
/* Packets moved per call before yielding to the rest of the event loop. */
#define VNET_RX_BUDGET 256
/* Transmitted chains between two used-buffer notification checks (vnet_tx_process). */
#define VNET_TX_SIGNAL_BATCH 16

struct vnet {
	struct vdev dev; /* first: the ops get &dev */
	struct virtq queues[2];
	struct net_backend *be;
	uint8_t config[VNET_CONFIG_SIZE];
	/*
	 * Guards everything below: queue_notify and the backend callback (event-loop thread)
	 * against activate/reset (vCPU thread). Taken inside the transport's lock.
	 */
	pthread_mutex_t lock;
	uint64_t features; /* acked */
	bool active;
	struct vnet_stats stats;

	/* tx (event-loop thread) */
	struct virtq_chain tx_chain;
	struct iovec tx_iov[VIRTQ_CHAIN_MAX + 1];

	/* rx (event-loop thread) */
	bool rx_mrg;		    /* MRG_RXBUF negotiated */
	bool rx_paused;		    /* waiting for the guest to add receive buffers */
	bool rx_dead;		    /* the backend failed: no more receiving until reset */
	bool rx_watching;	    /* backend fd registered with dev.loop */
	uint32_t rx_watch;	    /* events currently asked of the loop */
	uint8_t *rx_buf;	    /* one packet: header + frame */
	size_t rx_len;		    /* bytes pending in rx_buf (0: none) */
	size_t rx_off;		    /* bytes of it already copied to guest buffers */
	unsigned rx_nbufs;	    /* chains used so far for the pending packet */
	uint8_t *rx_num_buffers[2]; /* where num_buffers lies in the first chain */
	uint16_t rx_heads[VIRTQ_MAX_SIZE];
	uint32_t rx_lens[VIRTQ_MAX_SIZE];
	struct virtq_chain rx_chain;
};

static inline struct vnet *to_vnet(struct vdev *dev)
{
	return (struct vnet *) dev;
}

static inline bool vnet_has(const struct vnet *n, unsigned bit)
{
	return n->features & (1ull << bit);
}

/* vnet-rx.c; all with n->lock held */
void vnet_rx_process(struct vnet *n);
/* The guest kicked the receive queue (event-loop thread). */
void vnet_rx_kick(struct vnet *n);
/* Start watching the backend fd (event-loop thread only). */
void vnet_rx_watch_start(struct vnet *n);
/* Forget receive state (activate, reset). */
void vnet_rx_reset(struct vnet *n);
/* Unwatch and forget (free, with the loop stopped). */
void vnet_rx_stop(struct vnet *n);
