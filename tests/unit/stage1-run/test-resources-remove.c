/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Removing recorded resources (pod_resource_remove), in namespaces of the test's own: a
 * persistent tap in a new network namespace, a named netns under a private /run. Each
 * removal is repeated: the second must succeed too (gc is idempotent). Needs root.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cctest.h"
#include "pod-resources.h"

static void tap_create(const char *name)
{
	_cleanup_close_ int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	struct ifreq ifr = {.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR};

	ck_assert_int_ge(fd, 0);
	strcpy(ifr.ifr_name, name);
	ck_assert_int_eq(ioctl(fd, TUNSETIFF, &ifr), 0);
	ck_assert_int_eq(ioctl(fd, TUNSETPERSIST, 1), 0);
}

START_TEST(test_tap_removed_twice)
{
	_cleanup_free_ char *tmp = cctest_mkdtemp();
	_cleanup_free_ struct pod_resource *v = NULL;
	_cleanup_close_ int pod_fd = -1, busy = -1;
	char p[PATH_MAX];
	size_t n;

	ck_assert_int_eq(unshare(CLONE_NEWNET), 0);
	if (access("/dev/net/tun", F_OK) < 0)
		cctest_skip("no /dev/net/tun: tap removal not exercised");
	(void) snprintf(p, sizeof(p), "%s/cc", tmp);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	pod_fd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/* Recorded before it is created, as run and the networking code do. */
	ASSERT_OK(pod_resources_append(pod_fd, POD_RESOURCE_TAP, "cc-test0"));
	tap_create("cc-test0");
	ck_assert_uint_ne(if_nametoindex("cc-test0"), 0);

	ASSERT_OK(pod_resources_load(pod_fd, &v, &n, NULL));
	ck_assert_uint_eq(n, 1);
	ASSERT_OK(pod_resource_remove(&v[0]));
	ck_assert_uint_eq(if_nametoindex("cc-test0"), 0);
	ASSERT_OK(pod_resource_remove(&v[0]));

	/* A tap still attached to a process (a live VMM) is busy, not silently skipped. */
	{
		struct ifreq ifr = {.ifr_flags = IFF_TAP | IFF_NO_PI};

		busy = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
		strcpy(ifr.ifr_name, "cc-test0");
		ck_assert_int_eq(ioctl(busy, TUNSETIFF, &ifr), 0);
		ASSERT_ERRNO(pod_resource_remove(&v[0]), EBUSY);
	}
	(void) cctest_rm_rf(tmp);
}
END_TEST

START_TEST(test_netns_removed_twice)
{
	struct pod_resource r = {.kind = POD_RESOURCE_NETNS};
	struct stat st;
	int fd;

	ck_assert_int_eq(unshare(CLONE_NEWNS), 0);
	ck_assert_int_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
	ck_assert_int_eq(mount("tmpfs", "/run", "tmpfs", 0, "mode=0755"), 0);
	ck_assert_int_eq(mkdir("/run/netns", 0755), 0);
	fd = open("/run/netns/cc-test", O_CREAT | O_WRONLY | O_CLOEXEC, 0444);
	ck_assert_int_ge(fd, 0);
	(void) close(fd);
	ck_assert_int_eq(mount("/proc/self/ns/net", "/run/netns/cc-test", NULL, MS_BIND, NULL), 0);

	strcpy(r.name, "cc-test");
	ASSERT_OK(pod_resource_remove(&r));
	ck_assert_int_eq(stat("/run/netns/cc-test", &st), -1);
	ck_assert_int_eq(errno, ENOENT);
	ASSERT_OK(pod_resource_remove(&r));
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("stage1-resources-remove");
	TCase *tc = tcase_create("remove");

	tcase_add_test(tc, test_tap_removed_twice);
	tcase_add_test(tc, test_netns_removed_twice);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	cctest_require_privileged(CLONE_NEWNS | CLONE_NEWNET);
	return cctest_run_suite(suite());
}
