/* SPDX-License-Identifier: Apache-2.0 */
/* Console backend over host file descriptors (stdio, a file, a pipe, a pty). */
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "cc/macro.h"
#include "base/evloop.h"
#include "console/console-fd.h"

struct vcon_fd {
	struct vcon_backend be; /* first: the ops get &be */
	int in_fd, out_fd;
	struct evloop *loop;	    /* where in_fd/out_fd are registered, if at all */
	uint32_t in_mask, out_mask; /* events registered for each fd (merged if equal) */
	bool in_pollable, out_pollable;
};

static struct vcon_fd *vcon_fd_of(struct vcon_backend *be)
{
	return (struct vcon_fd *) be;
}

static ssize_t vcon_fd_read(struct vcon_backend *be, const struct iovec *iov, unsigned n)
{
	struct vcon_fd *f = vcon_fd_of(be);
	ssize_t r;

	if (f->in_fd < 0)
		return 0;
	do
		r = readv(f->in_fd, iov, (int) n);
	while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : r;
}

static ssize_t vcon_fd_write(struct vcon_backend *be, const struct iovec *iov, unsigned n)
{
	struct vcon_fd *f = vcon_fd_of(be);
	ssize_t r;

	do
		r = writev(f->out_fd, iov, (int) n);
	while (r < 0 && errno == EINTR);
	if (r < 0 && errno == EWOULDBLOCK)
		return -EAGAIN;
	return r < 0 ? -errno : r;
}

static void vcon_fd_event(void *userdata, uint32_t events)
{
	struct vcon_fd *f = userdata;
	bool err = events & (EPOLLHUP | EPOLLERR);
	bool readable = f->in_mask && ((events & EPOLLIN) || err);
	bool writable = f->out_mask && ((events & EPOLLOUT) || err);

	if (f->be.ready && (readable || writable))
		f->be.ready(f->be.opaque, readable, writable);
}

/* Make fd's registration match mask (0: not registered). */
static int vcon_fd_register(struct vcon_fd *f, struct evloop *loop, int fd, uint32_t old,
			    uint32_t mask)
{
	if (old == mask)
		return 0;
	if (mask == 0)
		return evloop_remove(loop, fd);
	if (old == 0)
		return evloop_add(loop, fd, mask, vcon_fd_event, f);
	return evloop_modify(loop, fd, mask);
}

static int vcon_fd_watch(struct vcon_backend *be, struct evloop *loop, bool input, bool output)
{
	struct vcon_fd *f = vcon_fd_of(be);
	uint32_t in_mask = input && f->in_fd >= 0 && f->in_pollable ? EPOLLIN : 0;
	uint32_t out_mask = output && f->out_pollable ? EPOLLOUT : 0;
	int r;

	assert_return(loop, -EINVAL);
	if (f->loop && f->loop != loop)
		return -EINVAL;
	f->loop = loop;
	if (f->in_fd == f->out_fd) {
		r = vcon_fd_register(f, loop, f->out_fd, f->in_mask | f->out_mask,
				     in_mask | out_mask);
		if (r < 0)
			return r;
	} else {
		r = vcon_fd_register(f, loop, f->in_fd, f->in_mask, in_mask);
		if (r < 0)
			return r;
		f->in_mask = in_mask;
		r = vcon_fd_register(f, loop, f->out_fd, f->out_mask, out_mask);
		if (r < 0)
			return r;
	}
	f->in_mask = in_mask;
	f->out_mask = out_mask;
	return (input && f->in_fd >= 0 && !f->in_pollable) || (output && !f->out_pollable);
}

static struct vcon_backend *vcon_fd_free(struct vcon_backend *be)
{
	struct vcon_fd *f = vcon_fd_of(be);

	if (!be)
		return NULL;
	if (f->loop)
		(void) vcon_fd_watch(be, f->loop, false, false);
	free(f);
	return NULL;
}

/* epoll refuses regular files and some devices (/dev/null): those never block. */
static bool vcon_fd_pollable(int fd)
{
	struct epoll_event ev = {.events = EPOLLIN};
	int epfd = epoll_create1(EPOLL_CLOEXEC);
	bool pollable;

	if (epfd < 0)
		return true; /* assume the common case; watch() then reports the error */
	pollable = epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) == 0 || errno != EPERM;
	(void) close(epfd);
	return pollable;
}

static const struct vcon_backend_ops vcon_fd_ops = {
	.read = vcon_fd_read,
	.write = vcon_fd_write,
	.watch = vcon_fd_watch,
	.free = vcon_fd_free,
};

int vcon_backend_fd_new(int in_fd, int out_fd, struct vcon_backend **ret)
{
	struct vcon_fd *f;

	assert_return(out_fd >= 0 && ret, -EINVAL);
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->be.ops = &vcon_fd_ops;
	f->in_fd = in_fd < 0 ? -1 : in_fd;
	f->out_fd = out_fd;
	f->in_pollable = f->in_fd >= 0 && vcon_fd_pollable(f->in_fd);
	f->out_pollable = vcon_fd_pollable(out_fd);
	*ret = &f->be;
	return 0;
}
