/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/macro.h"
#include "net/netbe-tap.h"
#include "net/vnet-hdr.h"

struct netbe_tap {
	struct net_backend be; /* first: the ops get &be */
	int fd;
};

static struct netbe_tap *to_tap(struct net_backend *be)
{
	return (struct netbe_tap *) be;
}

static int netbe_tap_tx(struct net_backend *be, const struct iovec *iov, unsigned n)
{
	ssize_t k;

	do
		k = writev(to_tap(be)->fd, iov, (int) n);
	while (k < 0 && errno == EINTR);
	return k < 0 ? -errno : 0;
}

static ssize_t netbe_tap_rx(struct net_backend *be, const struct iovec *iov, unsigned n)
{
	ssize_t k;

	/* tun returns the packet's full length even when it did not fit. */
	do
		k = readv(to_tap(be)->fd, iov, (int) n);
	while (k < 0 && errno == EINTR);
	if (k < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	return k;
}

static int netbe_tap_fd(struct net_backend *be)
{
	return to_tap(be)->fd;
}

static unsigned netbe_tap_tun_flags(unsigned offloads)
{
	unsigned f = 0;

	if (offloads & NETBE_OFFLOAD_CSUM)
		f |= TUN_F_CSUM;
	if (offloads & NETBE_OFFLOAD_TSO4)
		f |= TUN_F_TSO4;
	if (offloads & NETBE_OFFLOAD_TSO6)
		f |= TUN_F_TSO6;
	return f;
}

static int netbe_tap_set_offloads(struct net_backend *be, unsigned offloads)
{
	if (offloads & ~be->offloads)
		return -EOPNOTSUPP;
	/* TSO without checksum offload makes no sense; the kernel refuses it too. */
	if ((offloads & (NETBE_OFFLOAD_TSO4 | NETBE_OFFLOAD_TSO6)) &&
	    !(offloads & NETBE_OFFLOAD_CSUM))
		return -EINVAL;
	return RET_NERRNO(ioctl(to_tap(be)->fd, TUNSETOFFLOAD, netbe_tap_tun_flags(offloads)));
}

static void netbe_tap_close(struct net_backend *be)
{
	struct netbe_tap *tap = to_tap(be);

	safe_close(tap->fd);
	free(tap);
}

static const struct net_backend_ops netbe_tap_ops = {
	.tx = netbe_tap_tx,
	.rx = netbe_tap_rx,
	.fd = netbe_tap_fd,
	.set_offloads = netbe_tap_set_offloads,
	.close = netbe_tap_close,
};

/* Which receive offloads the kernel takes on this tap; leaves them all off. */
static unsigned netbe_tap_probe_offloads(int fd)
{
	static const unsigned tries[] = {
		NETBE_OFFLOAD_CSUM | NETBE_OFFLOAD_TSO4 | NETBE_OFFLOAD_TSO6,
		NETBE_OFFLOAD_CSUM,
	};
	unsigned found = 0;

	for (size_t i = 0; i < ARRAY_SIZE(tries); i++)
		if (ioctl(fd, TUNSETOFFLOAD, netbe_tap_tun_flags(tries[i])) == 0) {
			found = tries[i];
			break;
		}
	(void) ioctl(fd, TUNSETOFFLOAD, 0);
	return found;
}

int netbe_tap_open_fd(int fd, struct net_backend **ret)
{
	_cleanup_close_ int owned = fd;
	const unsigned need = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
	int hdr_len = VNET_HDR_LEN, flags;
	struct netbe_tap *tap;
	struct ifreq ifr = {0};

	assert_return(fd >= 0 && ret, -EINVAL);
	if (ioctl(owned, TUNGETIFF, &ifr) < 0)
		return errno == EBADFD || errno == ENOTTY ? -EINVAL : -errno;
	if ((ifr.ifr_flags & need) != need)
		return -EINVAL;
	if (ioctl(owned, TUNSETVNETHDRSZ, &hdr_len) < 0)
		return -errno;
	flags = fcntl(owned, F_GETFL);
	if (flags < 0 || fcntl(owned, F_SETFL, flags | O_NONBLOCK) < 0)
		return -errno;
	if (fcntl(owned, F_SETFD, FD_CLOEXEC) < 0)
		return -errno;

	tap = calloc(1, sizeof(*tap));
	if (!tap)
		return -ENOMEM;
	tap->be = (struct net_backend){
		.ops = &netbe_tap_ops,
		.offloads = netbe_tap_probe_offloads(owned),
	};
	tap->fd = TAKE_FD(owned);
	*ret = &tap->be;
	return 0;
}

int netbe_tap_open(const char *name, struct net_backend **ret)
{
	_cleanup_close_ int fd = -1;
	struct ifreq ifr = {0};

	assert_return(name && ret, -EINVAL);
	if (strlen(name) == 0 || strlen(name) >= IFNAMSIZ)
		return -EINVAL;
	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	memcpy(ifr.ifr_name, name, strlen(name));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
	if (ioctl(fd, TUNSETIFF, &ifr) < 0)
		return -errno;
	return netbe_tap_open_fd(TAKE_FD(fd), ret);
}
