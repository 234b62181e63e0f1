/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/log.h"
#include "virtio/virtq.h"
#include "vsock/conn.h"
#include "vsock/handshake.h"
#include "vsock/muxer.h"

#define MUX_HASH_SIZE	   256 /* buckets, a power of two */
#define MUX_TICK_NS	   (250ull * 1000 * 1000)
#define MUX_EPOLL_BATCH	   32
#define MUX_LISTEN_BACKLOG 64

struct vsock_mux {
	uint64_t guest_cid;
	char *uds_path;
	/* UDS_PATH's directory and name: removal at teardown works after a chroot too. */
	int uds_dir_fd;
	char *uds_name;
	int epfd;
	int listen_fd;
	int timer_fd;
	bool timer_armed;
	bool listen_paused; /* accept() failed hard (EMFILE...): retry on the next tick */

	struct vsock_conn *table[MUX_HASH_SIZE];
	unsigned n_conns;
	unsigned max_conns;
	struct vsock_buf_budget budget; /* every connection's ring is charged here */
	uint32_t next_local_port;

	/* Connections with packets for the guest, served round-robin. */
	struct vsock_conn *rxq_head;
	struct vsock_conn **rxq_tail;

	struct vsock_hdr rst[VSOCK_MUX_MAX_RST];
	unsigned rst_head;
	unsigned rst_len;

	struct vsock_hs hs[VSOCK_MUX_MAX_HANDSHAKES];
	struct vsock_mux_stats stats;
};

static uint64_t mux_now(void)
{
	struct timespec ts;

	(void) clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

static unsigned mux_hash(uint32_t local_port, uint32_t peer_port)
{
	uint64_t k = ((uint64_t) local_port << 32 | peer_port) * 0x9e3779b97f4a7c15ull;

	return (unsigned) (k >> 56) & (MUX_HASH_SIZE - 1);
}

static struct vsock_conn *mux_lookup(const struct vsock_mux *mux, uint32_t local_port,
				     uint32_t peer_port)
{
	struct vsock_conn *c = mux->table[mux_hash(local_port, peer_port)];

	for (; c; c = c->hash_next)
		if (c->local_port == local_port && c->peer_port == peer_port)
			return c;
	return NULL;
}

static void mux_rxq_remove(struct vsock_mux *mux, struct vsock_conn *c)
{
	if (!c->rxq_pprev)
		return;
	*c->rxq_pprev = c->rxq_next;
	if (c->rxq_next)
		c->rxq_next->rxq_pprev = c->rxq_pprev;
	else
		mux->rxq_tail = c->rxq_pprev;
	c->rxq_next = NULL;
	c->rxq_pprev = NULL;
}

static void mux_rxq_append(struct vsock_mux *mux, struct vsock_conn *c)
{
	if (c->rxq_pprev)
		return;
	c->rxq_next = NULL;
	c->rxq_pprev = mux->rxq_tail;
	*mux->rxq_tail = c;
	mux->rxq_tail = &c->rxq_next;
}

static void mux_timer_arm(struct vsock_mux *mux, bool on)
{
	struct itimerspec its = {0};

	if (mux->timer_armed == on)
		return;
	if (on) {
		its.it_value.tv_nsec = (long) MUX_TICK_NS;
		its.it_interval.tv_nsec = (long) MUX_TICK_NS;
	}
	if (timerfd_settime(mux->timer_fd, 0, &its, NULL) == 0)
		mux->timer_armed = on;
}

static void mux_conn_destroy(struct vsock_mux *mux, struct vsock_conn *c)
{
	struct vsock_conn **pp = &mux->table[mux_hash(c->local_port, c->peer_port)];

	for (; *pp; pp = &(*pp)->hash_next)
		if (*pp == c) {
			*pp = c->hash_next;
			break;
		}
	mux_rxq_remove(mux, c);
	if (c->epoll_registered)
		(void) epoll_ctl(mux->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	mux->n_conns--;
	vsock_conn_free(c);
}

/* After any change to a connection: free it, or update its epoll mask and rx queue entry. */
static void mux_conn_sync(struct vsock_mux *mux, struct vsock_conn *c)
{
	uint32_t ev;

	if (vsock_conn_is_dead(c)) {
		mux_conn_destroy(mux, c);
		return;
	}
	ev = vsock_conn_wanted_events(c);
	if (ev == 0 && c->epoll_registered) {
		(void) epoll_ctl(mux->epfd, EPOLL_CTL_DEL, c->fd, NULL);
		c->epoll_registered = false;
	} else if (ev != 0 && (!c->epoll_registered || ev != c->epoll_events)) {
		struct epoll_event e = {.events = ev, .data.ptr = c};
		int op = c->epoll_registered ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;

		if (epoll_ctl(mux->epfd, op, c->fd, &e) < 0) {
			log_debug_errno(errno, "vsock: cannot watch host port %u: %m",
					c->local_port);
			vsock_conn_kill(c);
		} else {
			c->epoll_registered = true;
		}
	}
	c->epoll_events = ev;
	if (vsock_conn_has_rx(c))
		mux_rxq_append(mux, c);
	else
		mux_rxq_remove(mux, c);
	if (c->expiry_ns)
		mux_timer_arm(mux, true);
}

static void mux_conn_insert(struct vsock_mux *mux, struct vsock_conn *c)
{
	unsigned h = mux_hash(c->local_port, c->peer_port);

	c->budget = &mux->budget;
	c->hash_next = mux->table[h];
	mux->table[h] = c;
	mux->n_conns++;
	mux->stats.conns_opened++;
	mux_conn_sync(mux, c);
}

static void mux_queue_rst(struct vsock_mux *mux, const struct vsock_hdr *h)
{
	if (mux->rst_len == VSOCK_MUX_MAX_RST) {
		mux->stats.rst_dropped++;
		return;
	}
	vsock_hdr_reply(h, VSOCK_OP_RST,
			&mux->rst[(mux->rst_head + mux->rst_len) % VSOCK_MUX_MAX_RST]);
	mux->rst_len++;
	mux->stats.rst_queued++;
}

void vsock_mux_send_rst(struct vsock_mux *mux, const struct vsock_hdr *h)
{
	if (h->op != VSOCK_OP_RST)
		mux_queue_rst(mux, h);
}

bool vsock_mux_can_send(const struct vsock_mux *mux)
{
	return mux->rst_len < VSOCK_MUX_MAX_RST;
}

static int mux_peer_path(const struct vsock_mux *mux, uint32_t port, struct sockaddr_un *ret)
{
	int k;

	*ret = (struct sockaddr_un){.sun_family = AF_UNIX};
	k = snprintf(ret->sun_path, sizeof(ret->sun_path), "%s_%u", mux->uds_path, port);
	return k < 0 || (size_t) k >= sizeof(ret->sun_path) ? -ENAMETOOLONG : 0;
}

/* A guest REQUEST for host port h->dst_port: connect to "<uds_path>_<port>". */
static int mux_connect_host(struct vsock_mux *mux, const struct vsock_hdr *h)
{
	_cleanup_close_ int fd = -1;
	struct sockaddr_un sa;
	struct vsock_conn *c;
	int r;

	if (mux->n_conns >= mux->max_conns)
		return -EMFILE;
	r = mux_peer_path(mux, h->dst_port, &sa);
	if (r < 0)
		return r;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* A unix stream connect completes at once, or fails (EAGAIN: backlog full). */
	if (connect(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0)
		return -errno;
	r = vsock_conn_new_peer(fd, mux->guest_cid, h, &c);
	if (r < 0)
		return r;
	TAKE_FD(fd);
	mux_conn_insert(mux, c);
	return 0;
}

void vsock_mux_send(struct vsock_mux *mux, const struct vsock_hdr *h, const struct iovec *iov,
		    unsigned n, size_t off)
{
	struct vsock_conn *c = mux_lookup(mux, h->dst_port, h->src_port);
	int r;

	if (!c) {
		if (h->op == VSOCK_OP_REQUEST) {
			r = mux_connect_host(mux, h);
			if (r >= 0)
				return;
			log_debug_errno(r, "vsock: guest port %u -> host port %u refused: %m",
					h->src_port, h->dst_port);
			mux->stats.conns_refused++;
		}
		vsock_mux_send_rst(mux, h);
		return;
	}
	vsock_conn_recv(c, h, iov, n, off, mux_now());
	mux_conn_sync(mux, c);
}

bool vsock_mux_has_rx(const struct vsock_mux *mux)
{
	return mux->rst_len > 0 || mux->rxq_head;
}

static int mux_put_hdr(const struct iovec *iov, unsigned n, const struct vsock_hdr *h,
		       uint32_t *ret_len)
{
	uint8_t raw[VSOCK_HDR_SIZE];

	vsock_hdr_encode(h, raw);
	(void) iov_from_buf(iov, n, 0, raw, sizeof(raw));
	*ret_len = VSOCK_HDR_SIZE + h->len;
	return 1;
}

int vsock_mux_fill_rx(struct vsock_mux *mux, const struct iovec *iov, unsigned n, uint32_t *ret_len)
{
	size_t total = 0;
	unsigned budget = mux->n_conns;
	uint64_t now = mux_now();

	for (unsigned i = 0; i < n; i++)
		total += iov[i].iov_len;
	if (total < VSOCK_HDR_SIZE)
		return -ENOBUFS;
	if (mux->rst_len > 0) {
		const struct vsock_hdr *h = &mux->rst[mux->rst_head];

		mux->rst_head = (mux->rst_head + 1) % VSOCK_MUX_MAX_RST;
		mux->rst_len--;
		return mux_put_hdr(iov, n, h, ret_len);
	}
	/* Each connection gets one chance per call; those with more to send go to the back. */
	while (mux->rxq_head && budget-- > 0) {
		struct vsock_conn *c = mux->rxq_head;
		struct vsock_hdr h;
		int r;

		mux_rxq_remove(mux, c);
		r = vsock_conn_fill_rx(c, &h, iov, n, VSOCK_HDR_SIZE, total - VSOCK_HDR_SIZE, now);
		mux_conn_sync(mux, c);
		if (r > 0)
			return mux_put_hdr(iov, n, &h, ret_len);
	}
	return 0;
}

static void mux_hs_close(struct vsock_mux *mux, struct vsock_hs *hs)
{
	if (hs->fd < 0)
		return;
	(void) epoll_ctl(mux->epfd, EPOLL_CTL_DEL, hs->fd, NULL);
	hs->fd = safe_close(hs->fd);
	hs->len = 0;
}

static void mux_accept(struct vsock_mux *mux)
{
	for (;;) {
		struct vsock_hs *hs = NULL;
		struct epoll_event e = {.events = EPOLLIN};
		int fd;

		fd = accept4(mux->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EAGAIN || errno == EINTR || errno == ECONNABORTED)
				return;
			/*
			 * Out of fds or memory: the listener would stay readable and spin the loop,
			 * so stop watching it until the next timer tick.
			 */
			log_debug_errno(errno, "vsock: accept failed, pausing the listener: %m");
			if (epoll_ctl(mux->epfd, EPOLL_CTL_DEL, mux->listen_fd, NULL) == 0)
				mux->listen_paused = true;
			mux_timer_arm(mux, true);
			return;
		}
		for (unsigned i = 0; i < VSOCK_MUX_MAX_HANDSHAKES && !hs; i++)
			if (mux->hs[i].fd < 0)
				hs = &mux->hs[i];
		e.data.ptr = hs;
		if (!hs || epoll_ctl(mux->epfd, EPOLL_CTL_ADD, fd, &e) < 0) {
			mux->stats.conns_refused++;
			safe_close(fd);
			continue;
		}
		*hs = (struct vsock_hs){.fd = fd,
					.deadline_ns = mux_now() + VSOCK_MUX_HS_TIMEOUT_NS};
		mux_timer_arm(mux, true);
	}
}

static uint32_t mux_alloc_local_port(struct vsock_mux *mux, uint32_t peer_port)
{
	for (;;) {
		uint32_t p = mux->next_local_port++;

		if (mux->next_local_port == 0)
			mux->next_local_port = VSOCK_MUX_LOCAL_PORT_BASE;
		/* At most max_conns ports are taken, so this ends quickly. */
		if (!mux_lookup(mux, p, peer_port))
			return p;
	}
}

static int mux_hs_complete(struct vsock_mux *mux, struct vsock_hs *hs, uint32_t port)
{
	struct vsock_conn *c;
	int fd, r;

	if (mux->n_conns >= mux->max_conns)
		return -EMFILE;
	(void) epoll_ctl(mux->epfd, EPOLL_CTL_DEL, hs->fd, NULL);
	fd = hs->fd;
	r = vsock_conn_new_local(fd, mux->guest_cid, mux_alloc_local_port(mux, port), port,
				 mux_now(), &c);
	if (r < 0) {
		struct epoll_event e = {.events = EPOLLIN, .data.ptr = hs};

		(void) epoll_ctl(mux->epfd, EPOLL_CTL_ADD, hs->fd, &e);
		return r;
	}
	hs->fd = -1;
	hs->len = 0;
	mux_conn_insert(mux, c);
	return 0;
}

static void mux_hs_read(struct vsock_mux *mux, struct vsock_hs *hs)
{
	uint32_t port;
	int r;

	if (hs->fd < 0)
		return;
	r = vsock_hs_read(hs, &port);
	if (r == 0)
		return;
	if (r > 0) {
		r = mux_hs_complete(mux, hs, port);
		if (r >= 0)
			return;
	}
	log_debug_errno(r, "vsock: host client handshake failed: %m");
	mux->stats.handshake_errors++;
	mux_hs_close(mux, hs);
}

void vsock_mux_expire(struct vsock_mux *mux, uint64_t now_ns)
{
	bool again = false;

	if (mux->listen_paused) {
		struct epoll_event e = {.events = EPOLLIN, .data.ptr = &mux->listen_fd};

		if (epoll_ctl(mux->epfd, EPOLL_CTL_ADD, mux->listen_fd, &e) == 0)
			mux->listen_paused = false;
		else
			again = true;
	}

	for (unsigned i = 0; i < VSOCK_MUX_MAX_HANDSHAKES; i++) {
		struct vsock_hs *hs = &mux->hs[i];

		if (hs->fd < 0)
			continue;
		if (now_ns >= hs->deadline_ns) {
			mux->stats.handshake_errors++;
			mux_hs_close(mux, hs);
		} else {
			again = true;
		}
	}
	for (unsigned b = 0; b < MUX_HASH_SIZE; b++) {
		struct vsock_conn *c = mux->table[b], *next;

		for (; c; c = next) {
			next = c->hash_next;
			vsock_conn_check_timeout(c, now_ns);
			if (c->expiry_ns)
				again = true;
			mux_conn_sync(mux, c);
		}
	}
	mux_timer_arm(mux, again);
}

static bool mux_ptr_is_hs(const struct vsock_mux *mux, const void *p)
{
	uintptr_t a = (uintptr_t) p, lo = (uintptr_t) mux->hs;

	return a >= lo && a < lo + sizeof(mux->hs);
}

void vsock_mux_process(struct vsock_mux *mux)
{
	struct epoll_event evs[MUX_EPOLL_BATCH];
	int n;

	n = epoll_wait(mux->epfd, evs, MUX_EPOLL_BATCH, 0);
	for (int i = 0; i < n; i++) {
		void *p = evs[i].data.ptr;

		if (p == &mux->listen_fd) {
			mux_accept(mux);
		} else if (p == &mux->timer_fd) {
			uint64_t ticks;

			(void) !read(mux->timer_fd, &ticks, sizeof(ticks));
			vsock_mux_expire(mux, mux_now());
		} else if (mux_ptr_is_hs(mux, p)) {
			mux_hs_read(mux, p);
		} else {
			struct vsock_conn *c = p;

			/* Connections are only freed outside this loop, so c is valid. */
			vsock_conn_notify(c, evs[i].events);
			mux_conn_sync(mux, c);
		}
	}
}

int vsock_mux_fd(const struct vsock_mux *mux)
{
	return mux->epfd;
}

unsigned vsock_mux_n_conns(const struct vsock_mux *mux)
{
	return mux->n_conns;
}

void vsock_mux_set_limits(struct vsock_mux *mux, const struct vsock_mux_limits *lim)
{
	if (lim->max_conns)
		mux->max_conns = lim->max_conns;
	if (lim->max_buf_bytes)
		mux->budget.max = lim->max_buf_bytes;
}

void vsock_mux_get_limits(const struct vsock_mux *mux, struct vsock_mux_limits *ret)
{
	*ret = (struct vsock_mux_limits){.max_conns = mux->max_conns,
					 .max_buf_bytes = mux->budget.max};
}

void vsock_mux_get_usage(const struct vsock_mux *mux, struct vsock_mux_usage *ret)
{
	unsigned hs = 0;

	for (unsigned i = 0; i < VSOCK_MUX_MAX_HANDSHAKES; i++)
		hs += mux->hs[i].fd >= 0;
	*ret = (struct vsock_mux_usage){
		.conns = mux->n_conns,
		.handshakes = hs,
		.buf_bytes = mux->budget.used,
		.buf_refused = mux->budget.refused,
	};
}

const struct vsock_mux_stats *vsock_mux_get_stats(const struct vsock_mux *mux)
{
	return &mux->stats;
}

void vsock_mux_reset(struct vsock_mux *mux)
{
	for (unsigned b = 0; b < MUX_HASH_SIZE; b++)
		while (mux->table[b])
			mux_conn_destroy(mux, mux->table[b]);
	mux->rst_head = 0;
	mux->rst_len = 0;
}

static void mux_unlink(struct vsock_mux *mux)
{
	(void) unlinkat(mux->uds_dir_fd, mux->uds_name, 0);
}

static int mux_listen(struct vsock_mux *mux)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct epoll_event e = {.events = EPOLLIN};

	mux->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (mux->listen_fd < 0)
		return -errno;
	memcpy(sa.sun_path, mux->uds_path, strlen(mux->uds_path));
	if (bind(mux->listen_fd, (struct sockaddr *) &sa, sizeof(sa)) < 0)
		return -errno;
	if (listen(mux->listen_fd, MUX_LISTEN_BACKLOG) < 0) {
		int r = -errno;

		mux_unlink(mux);
		return r;
	}
	e.data.ptr = &mux->listen_fd;
	if (epoll_ctl(mux->epfd, EPOLL_CTL_ADD, mux->listen_fd, &e) < 0) {
		int r = -errno;

		mux_unlink(mux);
		return r;
	}
	return 0;
}

/* Splits uds_path into its directory (opened O_PATH) and its last component. */
static int mux_uds_split(struct vsock_mux *mux, const char *uds_path)
{
	const char *slash = strrchr(uds_path, '/');
	_cleanup_free_ char *dir = NULL;

	if (!slash) {
		dir = strdup(".");
		mux->uds_name = strdup(uds_path);
	} else {
		dir = slash == uds_path ? strdup("/")
					: strndup(uds_path, (size_t) (slash - uds_path));
		mux->uds_name = strdup(slash + 1);
	}
	if (!dir || !mux->uds_name)
		return -ENOMEM;
	if (mux->uds_name[0] == '\0')
		return -EINVAL;
	mux->uds_dir_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return mux->uds_dir_fd < 0 ? -errno : 0;
}

static void mux_freep(struct vsock_mux **p)
{
	(void) vsock_mux_free(*p);
}

int vsock_mux_new(uint64_t guest_cid, const char *uds_path, struct vsock_mux **ret)
{
	_cleanup_(mux_freep) struct vsock_mux *mux = NULL;
	struct sockaddr_un sa;
	struct epoll_event e = {.events = EPOLLIN};
	int r;

	assert_return(uds_path && ret, -EINVAL);
	/* "<uds_path>_<port>" must fit too. */
	if (uds_path[0] == '\0' || strlen(uds_path) + sizeof("_4294967295") > sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	mux = calloc(1, sizeof(*mux));
	if (!mux)
		return -ENOMEM;
	mux->epfd = mux->listen_fd = mux->timer_fd = mux->uds_dir_fd = -1;
	for (unsigned i = 0; i < VSOCK_MUX_MAX_HANDSHAKES; i++)
		mux->hs[i].fd = -1;
	mux->rxq_tail = &mux->rxq_head;
	mux->guest_cid = guest_cid;
	mux->next_local_port = VSOCK_MUX_LOCAL_PORT_BASE;
	mux->max_conns = VSOCK_MUX_MAX_CONNS;
	mux->budget.max = VSOCK_MUX_BUF_BYTES_DEFAULT;
	mux->uds_path = strdup(uds_path);
	if (!mux->uds_path)
		return -ENOMEM;
	r = mux_uds_split(mux, uds_path);
	if (r < 0)
		return r;
	mux->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (mux->epfd < 0)
		return -errno;
	mux->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (mux->timer_fd < 0)
		return -errno;
	e.data.ptr = &mux->timer_fd;
	if (epoll_ctl(mux->epfd, EPOLL_CTL_ADD, mux->timer_fd, &e) < 0)
		return -errno;
	r = mux_listen(mux);
	if (r < 0) {
		/* Not ours: do not unlink it on free. */
		mux->listen_fd = safe_close(mux->listen_fd);
		return r;
	}
	*ret = TAKE_PTR(mux);
	return 0;
}

struct vsock_mux *vsock_mux_free(struct vsock_mux *mux)
{
	if (!mux)
		return NULL;
	vsock_mux_reset(mux);
	for (unsigned i = 0; i < VSOCK_MUX_MAX_HANDSHAKES; i++)
		mux_hs_close(mux, &mux->hs[i]);
	if (mux->listen_fd >= 0) {
		safe_close(mux->listen_fd);
		mux_unlink(mux);
	}
	safe_close(mux->timer_fd);
	safe_close(mux->epfd);
	safe_close(mux->uds_dir_fd);
	free(mux->uds_name);
	free(mux->uds_path);
	free(mux);
	return NULL;
}
