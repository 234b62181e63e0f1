/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The VMM's event loop: one epoll set run by the event-loop thread. Device backends (tap,
 * 9p, vsock, console input) and queue-kick eventfds (ioeventfd) register here; callbacks run
 * on the event-loop thread, one at a time.
 */

#include <stdint.h>

struct evloop;

/* events is an EPOLLIN/EPOLLOUT mask (as returned by epoll). */
typedef void (*evloop_cb_fn)(void *userdata, uint32_t events);

int evloop_new(struct evloop **ret);
struct evloop *evloop_free(struct evloop *loop);

/* fd stays owned by the caller. -EEXIST if fd is already registered. */
int evloop_add(struct evloop *loop, int fd, uint32_t events, evloop_cb_fn cb, void *userdata);
int evloop_modify(struct evloop *loop, int fd, uint32_t events);
int evloop_remove(struct evloop *loop, int fd);

/* Arm the timerfd fd to fire once, ms milliseconds from now (0: at once). 0 or -errno. Any
 * thread. */
int evloop_timer_once(int fd, unsigned ms);

/* Runs until evloop_stop() (from any thread or a callback). Returns 0 or -errno. */
int evloop_run(struct evloop *loop);
/* Thread-safe and async-signal-safe. */
void evloop_stop(struct evloop *loop);
