/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cctest.h"
#include "net-env.h"
#include "portfwd.h"
#include "cc/spawn.h"

void net_env_require(void)
{
	static const char *const plugins[] = {"ptp", "bridge", "host-local"};

	cctest_require_privileged(CLONE_NEWNET | CLONE_NEWNS);
	if (access("/dev/net/tun", R_OK | W_OK) < 0) {
		fprintf(stderr, "skipped: no /dev/net/tun\n");
		exit(77);
	}
	if (!portfwd_iptables(AF_INET)) {
		fprintf(stderr, "skipped: no iptables\n");
		exit(77);
	}
	for (size_t i = 0; i < ARRAY_SIZE(plugins); i++) {
		char p[256];

		(void) snprintf(p, sizeof(p), NET_ENV_CNI_DIR "/%s", plugins[i]);
		if (access(p, X_OK) < 0) {
			fprintf(stderr, "skipped: no CNI plugin %s (containernetworking-plugins)\n",
				p);
			exit(77);
		}
	}
}

static void tmpfs_on(const char *dir)
{
	char cmd[256];

	(void) snprintf(cmd, sizeof(cmd), "%s", dir);
	for (char *p = cmd + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			(void) mkdir(cmd, 0755);
			*p = '/';
		}
	(void) mkdir(dir, 0755);
	ck_assert_int_eq(mount("tmpfs", dir, "tmpfs", 0, "mode=0755"), 0);
}

void net_env_enter(void)
{
	_cleanup_close_ int s = -1;
	struct ifreq ifr = {};

	ck_assert_int_eq(unshare(CLONE_NEWNET | CLONE_NEWNS), 0);
	ck_assert_int_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
	tmpfs_on("/run/netns");
	tmpfs_on("/var/lib/cni");
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(s, 0);
	strcpy(ifr.ifr_name, "lo");
	ck_assert_int_eq(ioctl(s, SIOCGIFFLAGS, &ifr), 0);
	ifr.ifr_flags |= IFF_UP;
	ck_assert_int_eq(ioctl(s, SIOCSIFFLAGS, &ifr), 0);
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

char *net_env_links(void)
{
	struct if_nameindex *ni = if_nameindex(), *p;
	char *names[256], *out;
	size_t n = 0, len = 1;

	ck_assert_ptr_nonnull(ni);
	for (p = ni; p->if_index && n < ARRAY_SIZE(names); p++) {
		names[n++] = p->if_name;
		len += strlen(p->if_name) + 1;
	}
	qsort(names, n, sizeof(*names), str_cmp);
	out = calloc(1, len);
	ck_assert_ptr_nonnull(out);
	for (size_t i = 0; i < n; i++) {
		strcat(out, names[i]);
		strcat(out, "\n");
	}
	if_freenameindex(ni);
	return out;
}

char *net_env_links_in(const char *netns_path)
{
	_cleanup_close_ int fd = open(netns_path, O_RDONLY | O_CLOEXEC);
	_cleanup_close_ int self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	char *out;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_ge(self, 0);
	ck_assert_int_eq(setns(fd, CLONE_NEWNET), 0);
	out = net_env_links();
	ck_assert_int_eq(setns(self, CLONE_NEWNET), 0);
	return out;
}

static char *ipt_list(int family, const char *table)
{
	char *argv[] = {(char *) portfwd_iptables(family), "-w", "-t", (char *) table, "-S", NULL};
	struct spawn_req req = {
		.path = argv[0], .argv = argv, .out_max = 1 << 20, .timeout_ms = 30000};
	char *out = NULL;
	int status;

	if (!argv[0])
		return strdup("");
	ck_assert_int_eq(spawn_run(&req, &status, &out, NULL), 0);
	ck_assert_int_eq(status, 0);
	return out;
}

char *net_env_iptables(const char *table)
{
	return ipt_list(AF_INET, table);
}

char *net_env_ip6tables(const char *table)
{
	return ipt_list(AF_INET6, table);
}

char *net_env_nft(void)
{
	char *argv[] = {(char *) portfwd_nft(), "list", "ruleset", NULL};
	struct spawn_req req = {
		.path = argv[0], .argv = argv, .out_max = 1 << 20, .timeout_ms = 30000};
	char *out = NULL;
	int status;

	if (!argv[0])
		return strdup("");
	ck_assert_int_eq(spawn_run(&req, &status, &out, NULL), 0);
	ck_assert_int_eq(status, 0);
	return out;
}
