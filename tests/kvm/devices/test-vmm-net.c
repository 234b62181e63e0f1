/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kvm tier: cc-vmm's --net option, in a network namespace of each test's own (needs root and
 * /dev/net/tun; exits 77 without them). The devices-check guest finds virtio-net devices with
 * the MAC given (or a random locally administered one) and the link up; a tap made by name
 * lives as long as the VMM; a tap fd from the caller is used through a duplicate; fds that are
 * not taps exit 1 with one line; the net-ping guest's frame reaches the tap and a frame sent
 * on the tap reaches the guest.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cctest.h"
#include "devices-util.h"
#include "vmm-run.h"

#define TIMEOUT_MS 30000

#define TEST_ETHERTYPE 0x88b5 /* local experimental */

#define VIRTIO_NET_F_MAC    5
#define VIRTIO_NET_F_STATUS 16

static struct vmm_result res;

static void enter_netns(void)
{
	ck_assert_msg(unshare(CLONE_NEWNET) == 0, "unshare(CLONE_NEWNET): %s", strerror(errno));
}

/* A tap in the current namespace, fd inherited by children (no O_CLOEXEC). */
static int open_tap(const char *name)
{
	struct ifreq ifr = {0};
	int fd = open("/dev/net/tun", O_RDWR);

	ck_assert_int_ge(fd, 0);
	strcpy(ifr.ifr_name, name);
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
	ck_assert_msg(ioctl(fd, TUNSETIFF, &ifr) == 0, "TUNSETIFF: %s", strerror(errno));
	return fd;
}

START_TEST(test_net_by_name_with_mac)
{
	static const uint8_t mac[6] = {0x52, 0x54, 0x00, 0x12, 0x34, 0x56};
	char *argv[] = {"--kernel", (char *) vmm_guest("devices-check"),
			"--net",    "tap=cctest0,mac=52:54:00:12:34:56",
			"--net",    "tap=cctest1",
			NULL};
	uint8_t cfg[DEV_CFG_SHOWN];
	long long feat;

	enter_netns();
	vmm_run(argv, TIMEOUT_MS, &res);
	ck_assert_msg(res.status == 0, "exit %d: %s", res.status, res.err);
	ck_assert_str_eq(res.err, "");
	ck_assert_int_eq(vmm_kv(res.out, "ndev"), 3);
	dev_assert_window(res.out, 0, 3);

	dev_assert_window(res.out, 1, 1);
	feat = dev_kv(res.out, 1, "feat0");
	ck_assert_int_eq(feat & (1 << VIRTIO_NET_F_MAC), 1 << VIRTIO_NET_F_MAC);
	ck_assert_int_eq(feat & (1 << VIRTIO_NET_F_STATUS), 1 << VIRTIO_NET_F_STATUS);
	dev_cfg(res.out, 1, cfg);
	ck_assert_int_eq(memcmp(cfg, mac, 6), 0);
	ck_assert_int_eq(cfg[6] | cfg[7] << 8, 1); /* VIRTIO_NET_S_LINK_UP */

	dev_assert_window(res.out, 2, 1);
	dev_cfg(res.out, 2, cfg);
	ck_assert_int_eq(cfg[0] & 3, 2); /* unicast, locally administered */
	ck_assert_int_eq(memcmp(cfg, mac, 6) != 0, 1);

	/* The taps were the VMM's: gone with it. */
	ck_assert_uint_eq(if_nametoindex("cctest0"), 0);
	ck_assert_uint_eq(if_nametoindex("cctest1"), 0);
}
END_TEST

START_TEST(test_tap_lives_with_the_vmm)
{
	char *argv[] = {"--kernel", (char *) vmm_guest("idle"), "--net", "tap=cctest2", NULL};
	struct vmm_proc p;

	enter_netns();
	memset(&res, 0, sizeof(res));
	vmm_spawn(argv, &p);
	ck_assert_msg(vmm_wait_output(&p, "ready\n", TIMEOUT_MS, &res), "guest not ready: %s %s",
		      res.out, res.err);
	ck_assert_uint_ne(if_nametoindex("cctest2"), 0);
	ck_assert_int_eq(vmm_count_fds(p.pid, "/dev/net/tun"), 1);
	kill(p.pid, SIGTERM);
	vmm_finish(&p, TIMEOUT_MS, &res);
	ck_assert_int_eq(res.status, 128 + SIGTERM);
	ck_assert_str_eq(res.err, "");
	ck_assert_uint_eq(if_nametoindex("cctest2"), 0);
}
END_TEST

START_TEST(test_net_by_fd)
{
	char spec[32];
	char *argv[] = {"--kernel", (char *) vmm_guest("idle"), "--net", spec, NULL};
	struct vmm_proc p;
	int fd;

	enter_netns();
	fd = open_tap("cctfd0");
	snprintf(spec, sizeof(spec), "fd=%d,mac=02:00:00:00:00:2a", fd);
	memset(&res, 0, sizeof(res));
	vmm_spawn(argv, &p);
	ck_assert_msg(vmm_wait_output(&p, "ready\n", TIMEOUT_MS, &res), "guest not ready: %s %s",
		      res.out, res.err);
	/* The VMM works on its own duplicate and closed the fd it inherited. */
	ck_assert_int_eq(vmm_count_fds(p.pid, "/dev/net/tun"), 1);
	kill(p.pid, SIGTERM);
	vmm_finish(&p, TIMEOUT_MS, &res);
	ck_assert_int_eq(res.status, 128 + SIGTERM);
	ck_assert_str_eq(res.err, "");
	/* Still ours: the tap exists as long as we hold it. */
	ck_assert_uint_ne(if_nametoindex("cctfd0"), 0);
	close(fd);
	ck_assert_uint_eq(if_nametoindex("cctfd0"), 0);
}
END_TEST

START_TEST(test_net_by_fd_listed)
{
	char spec[32];
	char *argv[] = {"--kernel", (char *) vmm_guest("devices-check"), "--net", spec, "--rng",
			NULL};
	uint8_t cfg[DEV_CFG_SHOWN];
	int fd;

	enter_netns();
	fd = open_tap("cctfd1");
	snprintf(spec, sizeof(spec), "fd=%d,mac=02:00:00:00:00:2a", fd);
	vmm_run(argv, TIMEOUT_MS, &res);
	close(fd);
	ck_assert_msg(res.status == 0, "exit %d: %s", res.status, res.err);
	ck_assert_int_eq(vmm_kv(res.out, "ndev"), 3);
	dev_assert_window(res.out, 1, 1);
	dev_cfg(res.out, 1, cfg);
	ck_assert_int_eq(cfg[5], 0x2a);
	dev_assert_window(res.out, 2, 4); /* rng after net */
}
END_TEST

START_TEST(test_net_host_errors)
{
	char spec[32];
	char *argv[] = {"--kernel", (char *) vmm_guest("hello"), "--net", spec, NULL};
	int fd;

	enter_netns();
	fd = open("/dev/null", O_RDONLY);
	ck_assert_int_ge(fd, 3);
	snprintf(spec, sizeof(spec), "fd=%d", fd);
	vmm_run(argv, TIMEOUT_MS, &res);
	close(fd);
	dev_assert_one_line_error(&res, 1, "is not a usable tap");

	snprintf(spec, sizeof(spec), "fd=%d", 900);
	vmm_run(argv, TIMEOUT_MS, &res);
	dev_assert_one_line_error(&res, 1, "--net: fd 900 is not open: Bad file descriptor");
}
END_TEST

static void set_up(const char *name)
{
	struct ifreq ifr = {0};
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(s, 0);
	strcpy(ifr.ifr_name, name);
	ck_assert_int_eq(ioctl(s, SIOCGIFFLAGS, &ifr), 0);
	ifr.ifr_flags |= IFF_UP;
	ck_assert_msg(ioctl(s, SIOCSIFFLAGS, &ifr) == 0, "SIOCSIFFLAGS: %s", strerror(errno));
	close(s);
}

/* Frames of our EtherType on the tap, both ways. */
static int packet_socket(const char *name, struct sockaddr_ll *ret_sll)
{
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(TEST_ETHERTYPE));

	ck_assert_int_ge(fd, 0);
	*ret_sll = (struct sockaddr_ll){
		.sll_family = AF_PACKET,
		.sll_protocol = htons(TEST_ETHERTYPE),
		.sll_ifindex = (int) if_nametoindex(name),
	};
	ck_assert_int_ne(ret_sll->sll_ifindex, 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *) ret_sll, sizeof(*ret_sll)), 0);
	return fd;
}

START_TEST(test_frames_both_ways)
{
	static const uint8_t guest_mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x2a};
	char spec[64];
	char *argv[] = {"--kernel", (char *) vmm_guest("net-ping"), "--net", spec, NULL};
	uint8_t frame[1600];
	struct sockaddr_ll sll;
	struct pollfd pfd;
	struct vmm_proc p;
	ssize_t n;
	int tap, pkt;

	enter_netns();
	tap = open_tap("cctio0");
	set_up("cctio0");
	pkt = packet_socket("cctio0", &sll);
	snprintf(spec, sizeof(spec), "fd=%d,mac=02:00:00:00:00:2a", tap);
	memset(&res, 0, sizeof(res));
	vmm_spawn(argv, &p);

	/* guest -> host: its broadcast frame comes in on the tap */
	pfd = (struct pollfd){.fd = pkt, .events = POLLIN};
	ck_assert_msg(poll(&pfd, 1, TIMEOUT_MS) == 1, "no frame from the guest");
	n = recv(pkt, frame, sizeof(frame), 0);
	ck_assert_int_ge(n, 60);
	ck_assert_int_eq(memcmp(frame, "\xff\xff\xff\xff\xff\xff", 6), 0);
	ck_assert_int_eq(memcmp(frame + 6, guest_mac, 6), 0);
	ck_assert_int_eq(memcmp(frame + 14, "cc-ping", 7), 0);

	/* host -> guest: a frame to its MAC goes out of the tap into the guest */
	memset(frame, 0, sizeof(frame));
	memcpy(frame, guest_mac, 6);
	memcpy(frame + 6, "\x02\x00\x00\x00\x00\x01", 6);
	frame[12] = TEST_ETHERTYPE >> 8;
	frame[13] = TEST_ETHERTYPE & 0xff;
	memcpy(frame + 14, "cc-pong", 7);
	ck_assert_int_eq(sendto(pkt, frame, 64, 0, (struct sockaddr *) &sll, sizeof(sll)), 64);

	vmm_finish(&p, TIMEOUT_MS, &res);
	close(pkt);
	close(tap);
	ck_assert_msg(res.status == 0, "exit %d: %s", res.status, res.err);
	ck_assert_str_eq(res.err, "");
	ck_assert_int_eq(vmm_kv(res.out, "net_mac"), 0x02000000002all);
	ck_assert_int_eq(vmm_kv(res.out, "net_setup"), 0);
	ck_assert_int_eq(vmm_kv(res.out, "net_tx"), 1);
	ck_assert_int_eq(vmm_kv(res.out, "net_rx_len"), 64);
	ck_assert_int_eq(vmm_kv(res.out, "net_rx_data"), 0x702d6363); /* "cc-p" */
	ck_assert_msg(strstr(res.out, "done\n"), "guest did not finish: %s", res.out);
}
END_TEST

/* Root, /dev/net/tun and network namespaces, probed in a child. */
static const char *net_unusable(void)
{
	pid_t pid;
	int st;

	if (geteuid() != 0)
		return "not root";
	if (access("/dev/net/tun", R_OK | W_OK) < 0)
		return "no /dev/net/tun";
	pid = fork();
	if (pid == 0)
		_exit(unshare(CLONE_NEWNET) == 0 ? 0 : 1);
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return "cannot create a network namespace";
	return NULL;
}

int main(void)
{
	Suite *s = suite_create("vmm-net");
	TCase *tc = tcase_create("net");
	const char *why;

	vmm_require_kvm();
	why = net_unusable();
	if (why) {
		fprintf(stderr, "SKIP: %s\n", why);
		return 77;
	}
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_net_by_name_with_mac);
	tcase_add_test(tc, test_tap_lives_with_the_vmm);
	tcase_add_test(tc, test_net_by_fd);
	tcase_add_test(tc, test_net_by_fd_listed);
	tcase_add_test(tc, test_net_host_errors);
	tcase_add_test(tc, test_frames_both_ways);
	suite_add_tcase(s, tc);
	return cctest_run_suite(s);
}
