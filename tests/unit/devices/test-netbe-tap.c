/* SPDX-License-Identifier: Apache-2.0 */
/*
 * virtio-net on a real tap, in a network namespace the test creates: a forked child does
 * unshare(CLONE_NEWNET), so the tap, its address and its neighbour entry vanish with the
 * child. Needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN) and /dev/net/tun; exits 77 otherwise.
 *
 * tx: the guest sends a UDP datagram with a partial checksum (NEEDS_CSUM, the CSUM offload),
 *     which the host's socket receives; before it, one with a wrong complete checksum and no
 *     NEEDS_CSUM, which the host must drop (so the header's flags really reach the tap).
 * rx: the host sends UDP datagrams to the guest's address (static neighbour entry); they
 *     arrive through mergeable receive buffers.
 */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cctest.h"
#include "devtest.h"
#include "net/netbe-tap.h"
#include "net/vnet-hdr.h"
#include "net/vnet.h"

#define TAP_NAME   "cctap0"
#define HOST_IP	   "10.9.0.1"
#define GUEST_IP   "10.9.0.2"
#define HOST_PORT  5555
#define GUEST_PORT 6666
#define F(bit)	   (1ull << (bit))

static const uint8_t guest_mac[6] = {0x02, 0xcc, 0, 0, 0, 2};

/* Steps of the child, reported as its exit status on failure. */
enum {
	STEP_UNSHARE = 10,
	STEP_TAP,
	STEP_OFFLOADS,
	STEP_DEVICE,
	STEP_ACTIVATE,
	STEP_IFCONFIG,
	STEP_NEIGH,
	STEP_SOCKET,
	STEP_TX_RECV,
	STEP_TX_DATA,
	STEP_RX_SEND,
	STEP_RX_RECV,
	STEP_RX_DATA,
};

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t) sum;
}

static uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t) (p[i] << 8 | p[i + 1]);
	if (len & 1)
		sum += (uint32_t) p[len - 1] << 8;
	return sum;
}

static int if_setup(int s, uint8_t tap_mac[6])
{
	struct ifreq ifr = {0};
	struct sockaddr_in *sin = (struct sockaddr_in *) (void *) &ifr.ifr_addr;
	struct arpreq arp = {0};
	struct sockaddr_in *pa = (struct sockaddr_in *) (void *) &arp.arp_pa;

	strcpy(ifr.ifr_name, TAP_NAME);
	sin->sin_family = AF_INET;
	inet_pton(AF_INET, HOST_IP, &sin->sin_addr);
	if (ioctl(s, SIOCSIFADDR, &ifr) < 0)
		return -errno;
	inet_pton(AF_INET, "255.255.255.0", &sin->sin_addr);
	if (ioctl(s, SIOCSIFNETMASK, &ifr) < 0)
		return -errno;
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		return -errno;
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
		return -errno;
	if (ioctl(s, SIOCGIFHWADDR, &ifr) < 0)
		return -errno;
	memcpy(tap_mac, ifr.ifr_hwaddr.sa_data, 6);

	pa->sin_family = AF_INET;
	inet_pton(AF_INET, GUEST_IP, &pa->sin_addr);
	arp.arp_ha.sa_family = ARPHRD_ETHER;
	memcpy(arp.arp_ha.sa_data, guest_mac, 6);
	arp.arp_flags = ATF_COM | ATF_PERM;
	strcpy(arp.arp_dev, TAP_NAME);
	return ioctl(s, SIOCSARP, &arp) < 0 ? -errno : 0;
}

/* Ethernet + IPv4 + UDP frame from the guest to the host, UDP checksum left partial. */
static size_t build_udp_frame(uint8_t *f, const uint8_t tap_mac[6], const char *payload,
			      struct virtio_net_hdr_v1 *hdr)
{
	size_t plen = strlen(payload), ulen = 8 + plen, iplen = 20 + ulen;
	uint8_t pseudo[12];
	uint32_t src, dst;

	memcpy(f, tap_mac, 6);
	memcpy(f + 6, guest_mac, 6);
	f[12] = 0x08, f[13] = 0x00;
	uint8_t *ip = f + 14, *udp = ip + 20;
	memset(ip, 0, 20);
	ip[0] = 0x45;
	ip[2] = (uint8_t) (iplen >> 8), ip[3] = (uint8_t) iplen;
	ip[8] = 64, ip[9] = 17;
	inet_pton(AF_INET, GUEST_IP, &src);
	inet_pton(AF_INET, HOST_IP, &dst);
	memcpy(ip + 12, &src, 4);
	memcpy(ip + 16, &dst, 4);
	uint16_t ipsum = (uint16_t) ~csum_fold(csum_add(0, ip, 20));
	ip[10] = (uint8_t) (ipsum >> 8), ip[11] = (uint8_t) ipsum;
	udp[0] = 4444 >> 8, udp[1] = 4444 & 0xff;
	udp[2] = HOST_PORT >> 8, udp[3] = HOST_PORT & 0xff;
	udp[4] = (uint8_t) (ulen >> 8), udp[5] = (uint8_t) ulen;
	memcpy(udp + 8, payload, plen);
	/* NEEDS_CSUM: the checksum field holds the folded pseudo-header sum, not inverted. */
	memcpy(pseudo, &src, 4);
	memcpy(pseudo + 4, &dst, 4);
	pseudo[8] = 0, pseudo[9] = 17, pseudo[10] = (uint8_t) (ulen >> 8),
	pseudo[11] = (uint8_t) ulen;
	uint16_t ps = csum_fold(csum_add(0, pseudo, 12));
	udp[6] = (uint8_t) (ps >> 8), udp[7] = (uint8_t) ps;
	*hdr = (struct virtio_net_hdr_v1){
		.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
		.csum_start = 34,
		.csum_offset = 6,
	};
	return 14 + iplen;
}

static int guest_tx(struct dt_guest *g, struct dt_queue *txq, struct vdev *dev,
		    const uint8_t tap_mac[6], const char *msg, bool partial)
{
	uint64_t gpa;
	uint8_t *p = dt_alloc(g, 2048, &gpa);
	struct virtio_net_hdr_v1 hdr;
	size_t len = build_udp_frame(p + VNET_HDR_LEN, tap_mac, msg, &hdr);

	if (!partial) {
		hdr.flags = 0; /* a complete checksum, and a wrong one */
		p[VNET_HDR_LEN + 40] = 0x12;
		p[VNET_HDR_LEN + 41] = 0x34;
	}
	memcpy(p, &hdr, sizeof(hdr));
	struct dt_buf b[2] = {{gpa, VNET_HDR_LEN, false},
			      {gpa + VNET_HDR_LEN, (uint32_t) len, false}};
	dt_queue_add(txq, b, 2);
	dev->ops->queue_notify(dev, VNET_TXQ);
	return 0;
}

/* Wait for a UDP frame to GUEST_PORT; copies the frame (no header) into out. */
static int guest_rx(struct dt_guest *g, struct dt_queue *rxq, struct vdev *dev, int tap_fd,
		    uint8_t *out, size_t *out_len)
{
	for (unsigned tries = 0; tries < 50; tries++) {
		struct pollfd pfd = {.fd = tap_fd, .events = POLLIN};
		uint32_t id, len;

		(void) poll(&pfd, 1, 100);
		vnet_rx_poll(dev);
		while (dt_queue_used(rxq, &id, &len)) {
			/* Buffers are 4 KiB at known places: find this one by its head. */
			uint8_t *p = dt_hva(g, DT_BUF_BASE + 4096ull * id);

			if (len < VNET_HDR_LEN + 42 || p[10] != 1 || p[11] != 0)
				continue;
			uint8_t *f = p + VNET_HDR_LEN;
			if (f[12] == 0x08 && f[13] == 0x00 && f[23] == 17 &&
			    (f[36] << 8 | f[37]) == GUEST_PORT) {
				*out_len = len - VNET_HDR_LEN;
				memcpy(out, f, *out_len);
				return 0;
			}
		}
	}
	return -ETIMEDOUT;
}

static int run_child(void)
{
	struct vnet_config cfg = {.tap_fd = -1, .has_mac = true};
	struct net_backend *be;
	struct vdev *dev;
	struct dt_guest g;
	struct dt_queue rxq, txq;
	struct dt_transport t;
	uint8_t tap_mac[6], buf[4096];
	struct sockaddr_in addr = {.sin_family = AF_INET};
	struct timeval tv = {.tv_sec = 3};
	const char *msg = "hello from the guest, checksummed by the tap";
	size_t len;
	int s, u;

	if (unshare(CLONE_NEWNET) < 0)
		return STEP_UNSHARE;
	if (netbe_tap_open(TAP_NAME, &be) < 0)
		return STEP_TAP;
	if (be->offloads != (NETBE_OFFLOAD_CSUM | NETBE_OFFLOAD_TSO4 | NETBE_OFFLOAD_TSO6))
		return STEP_OFFLOADS;
	memcpy(cfg.mac, guest_mac, 6);
	if (vnet_new_with_backend(&cfg, be, &dev) < 0)
		return STEP_DEVICE;
	dt_guest_init(&g);
	dt_transport_attach(&t, dev);
	dt_queue_init(&rxq, &g, dev, VNET_RXQ, 64);
	dt_queue_init(&txq, &g, dev, VNET_TXQ, 64);
	if (dev->ops->activate(dev, dev->ops->get_features(dev) | F(VIRTIO_F_VERSION_1)) < 0)
		return STEP_ACTIVATE;
	/* 32 receive buffers of 4 KiB; buffer i (head i) at DT_BUF_BASE + 4096 * i. */
	for (unsigned i = 0; i < 32; i++) {
		uint64_t gpa;

		(void) dt_alloc(&g, 4096, &gpa);
		struct dt_buf b = {gpa, 4096, true};
		dt_queue_add(&rxq, &b, 1);
	}

	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0 || if_setup(s, tap_mac) < 0)
		return STEP_IFCONFIG;
	u = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	addr.sin_port = htons(HOST_PORT);
	inet_pton(AF_INET, HOST_IP, &addr.sin_addr);
	if (u < 0 || bind(u, (struct sockaddr *) &addr, sizeof(addr)) < 0 ||
	    setsockopt(u, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
		return STEP_SOCKET;

	/* tx */
	guest_tx(&g, &txq, dev, tap_mac, "bad checksum: dropped by the host", false);
	guest_tx(&g, &txq, dev, tap_mac, msg, true);
	ssize_t k = recv(u, buf, sizeof(buf), 0);
	if (k < 0)
		return STEP_TX_RECV;
	if ((size_t) k != strlen(msg) || memcmp(buf, msg, (size_t) k) != 0)
		return STEP_TX_DATA;

	/* rx: a 1000-byte datagram from the host to the guest's address. */
	inet_pton(AF_INET, GUEST_IP, &addr.sin_addr);
	addr.sin_port = htons(GUEST_PORT);
	memset(buf, 0x5c, 1000);
	if (sendto(u, buf, 1000, 0, (struct sockaddr *) &addr, sizeof(addr)) != 1000)
		return STEP_RX_SEND;
	if (guest_rx(&g, &rxq, dev, be->ops->fd(be), buf, &len) < 0)
		return STEP_RX_RECV;
	if (len != 14 + 20 + 8 + 1000 || buf[42] != 0x5c || buf[42 + 999] != 0x5c)
		return STEP_RX_DATA;

	close(u);
	close(s);
	dev->ops->free(dev);
	dt_guest_done(&g);
	return 0;
}

START_TEST(test_vnet_on_tap_in_netns)
{
	pid_t pid = fork();
	int status;

	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(run_child());
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "child failed at step %d (see enum in the test)", WEXITSTATUS(status));
}
END_TEST

START_TEST(test_netbe_tap_open_fd_checks_flags)
{
	pid_t pid = fork();
	int status;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct ifreq ifr = {0};
		struct net_backend *be;
		int fd;

		if (unshare(CLONE_NEWNET) < 0)
			_exit(STEP_UNSHARE);
		/* A tap without IFF_VNET_HDR cannot carry offloads: refused. */
		fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
		strcpy(ifr.ifr_name, "ccnohdr0");
		ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
		if (fd < 0 || ioctl(fd, TUNSETIFF, &ifr) < 0)
			_exit(STEP_TAP);
		if (netbe_tap_open_fd(fd, &be) != -EINVAL)
			_exit(STEP_OFFLOADS);
		/* The right flags: accepted, and non-blocking. */
		fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
		strcpy(ifr.ifr_name, "cchdr0");
		ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
		if (fd < 0 || ioctl(fd, TUNSETIFF, &ifr) < 0)
			_exit(STEP_TAP);
		if (netbe_tap_open_fd(fd, &be) < 0)
			_exit(STEP_DEVICE);
		if (!(fcntl(be->ops->fd(be), F_GETFL) & O_NONBLOCK))
			_exit(STEP_ACTIVATE);
		struct iovec iov = {ifr.ifr_name, sizeof(ifr.ifr_name)};
		if (be->ops->rx(be, &iov, 1) != -EAGAIN)
			_exit(STEP_RX_RECV);
		if (netbe_tap_open("this-name-is-far-too-long", &be) != -EINVAL)
			_exit(STEP_IFCONFIG);
		be->ops->close(be);
		/* vnet_new() from the CLI forms, by name and by fd. */
		struct vnet_config cfg;
		struct vdev *dev;
		if (vnet_config_parse("tap=ccnew0,mac=02:00:00:00:00:07", &cfg) < 0 ||
		    vnet_new(&cfg, &dev) < 0)
			_exit(STEP_NEIGH);
		dev->ops->free(dev);
		fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
		strcpy(ifr.ifr_name, "ccfd0");
		ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
		if (fd < 0 || ioctl(fd, TUNSETIFF, &ifr) < 0)
			_exit(STEP_TAP);
		cfg = (struct vnet_config){.tap_fd = fd};
		if (vnet_new(&cfg, &dev) < 0)
			_exit(STEP_SOCKET);
		dev->ops->free(dev);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child failed at step %d",
		      WEXITSTATUS(status));
}
END_TEST

/* Can this process make a network namespace with a tap in it? */
static const char *tap_unavailable(void)
{
	pid_t pid;
	int status;

	if (geteuid() != 0)
		return "not root (needs CAP_NET_ADMIN and CAP_SYS_ADMIN for a netns and a tap)";
	if (access("/dev/net/tun", R_OK | W_OK) < 0)
		return "no /dev/net/tun";
	pid = fork();
	if (pid < 0)
		return "fork failed";
	if (pid == 0) {
		struct net_backend *be;

		if (unshare(CLONE_NEWNET) < 0)
			_exit(1);
		_exit(netbe_tap_open("ccprobe0", &be) < 0 ? 2 : 0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return "probe child died";
	if (WEXITSTATUS(status) == 1)
		return "unshare(CLONE_NEWNET) refused";
	if (WEXITSTATUS(status) == 2)
		return "cannot create a tap in a new network namespace";
	return NULL;
}

int main(void)
{
	const char *why = tap_unavailable();
	Suite *s;
	TCase *tc;

	if (why) {
		fprintf(stderr, "skipped: %s\n", why);
		return 77;
	}
	s = suite_create("netbe-tap");
	tc = tcase_create("tap");
	tcase_add_test(tc, test_vnet_on_tap_in_netns);
	tcase_add_test(tc, test_netbe_tap_open_fd_checks_flags);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	return cctest_run_suite(s);
}
