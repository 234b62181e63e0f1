/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "evloop.h"

#define EVLOOP_MAX_SOURCES 128

struct evloop_source {
	int fd;
	evloop_cb_fn cb;
	void *userdata;
};

struct evloop {
	int epfd;
	int stopfd;
	atomic_bool stopping;
	struct evloop_source sources[EVLOOP_MAX_SOURCES];
};

int evloop_new(struct evloop **ret)
{
	struct evloop *loop;
	struct epoll_event ev = {.events = EPOLLIN};

	loop = calloc(1, sizeof(*loop));
	if (!loop)
		return -ENOMEM;
	loop->stopfd = -1;
	for (unsigned i = 0; i < EVLOOP_MAX_SOURCES; i++)
		loop->sources[i].fd = -1;
	loop->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (loop->epfd < 0)
		goto fail;
	loop->stopfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (loop->stopfd < 0)
		goto fail;
	ev.data.ptr = NULL; /* NULL marks the stop eventfd */
	if (epoll_ctl(loop->epfd, EPOLL_CTL_ADD, loop->stopfd, &ev) < 0)
		goto fail;
	*ret = loop;
	return 0;
fail:;
	int r = -errno;
	evloop_free(loop);
	return r;
}

struct evloop *evloop_free(struct evloop *loop)
{
	if (!loop)
		return NULL;
	safe_close(loop->epfd);
	safe_close(loop->stopfd);
	free(loop);
	return NULL;
}

static struct evloop_source *evloop_find(struct evloop *loop, int fd)
{
	for (unsigned i = 0; i < EVLOOP_MAX_SOURCES; i++)
		if (loop->sources[i].fd == fd)
			return &loop->sources[i];
	return NULL;
}

int evloop_add(struct evloop *loop, int fd, uint32_t events, evloop_cb_fn cb, void *userdata)
{
	struct evloop_source *s;
	struct epoll_event ev = {.events = events};

	if (!loop || fd < 0 || !cb)
		return -EINVAL;
	if (evloop_find(loop, fd))
		return -EEXIST;
	s = evloop_find(loop, -1);
	if (!s)
		return -ENOSPC;
	ev.data.ptr = s;
	if (epoll_ctl(loop->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
		return -errno;
	*s = (struct evloop_source){.fd = fd, .cb = cb, .userdata = userdata};
	return 0;
}

int evloop_modify(struct evloop *loop, int fd, uint32_t events)
{
	struct evloop_source *s = evloop_find(loop, fd);
	struct epoll_event ev = {.events = events};

	if (!s || fd < 0)
		return -ENOENT;
	ev.data.ptr = s;
	return epoll_ctl(loop->epfd, EPOLL_CTL_MOD, fd, &ev) < 0 ? -errno : 0;
}

int evloop_remove(struct evloop *loop, int fd)
{
	struct evloop_source *s = evloop_find(loop, fd);

	if (!s || fd < 0)
		return -ENOENT;
	(void) epoll_ctl(loop->epfd, EPOLL_CTL_DEL, fd, NULL);
	s->fd = -1;
	s->cb = NULL;
	return 0;
}

int evloop_run(struct evloop *loop)
{
	struct epoll_event evs[16];

	while (!atomic_load(&loop->stopping)) {
		int n = epoll_wait(loop->epfd, evs, (int) (sizeof(evs) / sizeof(evs[0])), -1);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (int i = 0; i < n && !atomic_load(&loop->stopping); i++) {
			struct evloop_source *s = evs[i].data.ptr;

			/* A source removed by an earlier callback in this batch has cb == NULL. */
			if (s && s->cb)
				s->cb(s->userdata, evs[i].events);
		}
	}
	return 0;
}

void evloop_stop(struct evloop *loop)
{
	uint64_t one = 1;

	atomic_store(&loop->stopping, true);
	(void) !write(loop->stopfd, &one, sizeof(one));
}

int evloop_timer_once(int fd, unsigned ms)
{
	struct itimerspec its = {
		.it_value = {.tv_sec = ms / 1000, .tv_nsec = (long) (ms % 1000) * 1000000L},
	};

	if (ms == 0)
		its.it_value.tv_nsec = 1; /* an all-zero value would disarm it */
	return timerfd_settime(fd, 0, &its, NULL) < 0 ? -errno : 0;
}
