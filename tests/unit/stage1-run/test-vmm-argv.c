/* SPDX-License-Identifier: Apache-2.0 */
/* The cc-vmm command line (vmm-argv.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc/cleanup.h"
#include "cctest.h"
#include "vmm-argv.h"

#define MID "0123456789abcdef0123456789abcdef"

static struct vmm_config config(void)
{
	return (struct vmm_config){
		.vmm = "/p/stage1/rootfs/cc/cc-vmm",
		.kernel = "/p/stage1/rootfs/cc/vmlinux",
		.image = "/p/stage1/rootfs/cc/guest.img",
		.pod_dir = "/p",
		.machine_id = MID,
		.mem_mib = 320,
		.cpus = 2,
	};
}

static size_t argc_of(char **v)
{
	size_t n = 0;

	while (v[n])
		n++;
	return n;
}

START_TEST(test_quiet)
{
	_cleanup_(vmm_argv_freep) char **v = NULL;
	struct vmm_config c = config();
	static const char *const want[] = {
		"/p/stage1/rootfs/cc/cc-vmm",
		"--kernel",
		"/p/stage1/rootfs/cc/vmlinux",
		"--pmem",
		"/p/stage1/rootfs/cc/guest.img",
		"--mem",
		"320",
		"--cpus",
		"2",
		"--rng",
		"--balloon",
		"--zero-sweep",
		"--merge-pages",
		"--9p",
		"cc-layer:/p/cc/layer,ro",
		"--9p",
		"cc-stage2:/p/stage1/rootfs/opt/stage2",
		"--9p",
		"cc-rkt:/p/guest/rkt",
		"--9p-hostvol",
		"cc-rkt",
		"--9p",
		"cc-journal:/p/guest/journal",
		"--9p-hostvol",
		"cc-journal",
		"--9p-visible",
		"cc-journal",
		"--chroot",
		"/p/stage1/rootfs",
		"--vsock",
		"3:/p/cc/vsock",
		"--cmdline",
		"console=hvc0 root=/dev/pmem0 rootflags=dax,inode_readahead_blks=0 ro "
		"init=/sbin/cc-init cc.pod=cc-layer "
		"cc.mount=cc-stage2:/opt/stage2 cc.mount=cc-rkt:/rkt "
		"cc.mount=cc-journal:/var/log/journal reboot=k panic=-1 "
		"systemd.crash_reboot=1 rootwait "
		"noreplace-smp sysctl.vm.percpu_pagelist_high_fraction=1000000 "
		"memmap_lru_zero=1 orc_lookup=lazy iomap_ioend_pool=1 dax_wait_table_bits=8 "
		"stack_end_magic=0 dhash_entries=10240 "
		"ihash_entries=5120 systemd.machine_id=" MID
		" quiet loglevel=1 systemd.show_status=false "
		"systemd.log_level=warning",
	};

	ASSERT_OK(vmm_argv_build(&c, &v));
	ck_assert_uint_eq(argc_of(v), sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		ck_assert_str_eq(v[i], want[i]);
}
END_TEST

START_TEST(test_kernel_pages_fds)
{
	_cleanup_(vmm_argv_freep) char **v = NULL;
	struct vmm_config c = config();
	const int fds[2] = {7, 12};
	size_t i;

	ASSERT_OK(vmm_argv_build(&c, &v));
	for (i = 0; v[i]; i++)
		ck_assert_msg(strncmp(v[i], "--share-kernel-pages", 20) != 0, "%s", v[i]);
	v = vmm_argv_free(v);
	c.kernel_pages_fds = fds;
	ASSERT_OK(vmm_argv_build(&c, &v));
	for (i = 0; v[i] && strcmp(v[i], "--share-kernel-pages-fd") != 0; i++)
		;
	ck_assert_ptr_nonnull(v[i]);
	ck_assert_str_eq(v[i + 1], "7,12");
	ck_assert_str_eq(v[i - 1], "--merge-pages");
}
END_TEST

/* KSM is opt-in (clear-containers/ksm=true): --ksm once when asked, never otherwise. */
START_TEST(test_ksm_only_when_asked)
{
	_cleanup_(vmm_argv_freep) char **off = NULL, **on = NULL;
	struct vmm_config c = config();
	size_t n = 0;

	ASSERT_OK(vmm_argv_build(&c, &off));
	for (char **a = off; *a; a++)
		ck_assert_str_ne(*a, "--ksm");
	c.ksm = true;
	ASSERT_OK(vmm_argv_build(&c, &on));
	for (char **a = on; *a; a++)
		n += strcmp(*a, "--ksm") == 0;
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(argc_of(on), argc_of(off) + 1);
}
END_TEST

START_TEST(test_debug_and_extra_params)
{
	_cleanup_(vmm_argv_freep) char **v = NULL;
	struct vmm_config c = config();
	size_t n;

	c.debug = true;
	c.extra_kernel_params = "foo=1 bar";
	ASSERT_OK(vmm_argv_build(&c, &v));
	n = argc_of(v);
	ck_assert_str_eq(v[n - 3], "-v");
	ck_assert_str_eq(v[n - 2], "--cmdline");
	ck_assert_msg(strstr(v[n - 1], " systemd.machine_id=" MID
				       " debug systemd.log_level=debug foo=1 bar") &&
			      !strstr(v[n - 1], "quiet"),
		      "%s", v[n - 1]);
}
END_TEST

START_TEST(test_long_pod_dir_uses_relative_vsock)
{
	_cleanup_(vmm_argv_freep) char **v = NULL;
	struct vmm_config c = config();
	char dir[128];

	memset(dir, 'd', sizeof(dir) - 1);
	dir[0] = '/';
	dir[sizeof(dir) - 1] = '\0';
	c.pod_dir = dir;
	ASSERT_OK(vmm_argv_build(&c, &v));
	for (char **a = v; *a; a++)
		if (strcmp(*a, "--vsock") == 0) {
			ck_assert_str_eq(a[1], "3:cc/vsock");
			return;
		}
	ck_abort_msg("no --vsock");
}
END_TEST

/* One --net per pod NIC, after the vsock, in NIC order; eight NICs fit. */
START_TEST(test_nets)
{
	_cleanup_(vmm_argv_freep) char **v = NULL;
	struct vmm_config c = config();
	static const char *const two[] = {"fd=5,mac=02:00:00:00:00:01",
					  "fd=6,mac=02:00:00:00:00:02", NULL};
	static const char *const eight[] = {"fd=3", "fd=4", "fd=5",  "fd=6", "fd=7",
					    "fd=8", "fd=9", "fd=10", NULL};
	size_t n;

	c.nets = two;
	c.debug = true;
	ASSERT_OK(vmm_argv_build(&c, &v));
	n = argc_of(v);
	ck_assert_str_eq(v[n - 8], "3:/p/cc/vsock");
	ck_assert_str_eq(v[n - 7], "--net");
	ck_assert_str_eq(v[n - 6], two[0]);
	ck_assert_str_eq(v[n - 5], "--net");
	ck_assert_str_eq(v[n - 4], two[1]);
	ck_assert_str_eq(v[n - 3], "-v");
	v = vmm_argv_free(v);
	c.nets = eight;
	ASSERT_OK(vmm_argv_build(&c, &v));
	n = argc_of(v);
	ck_assert_str_eq(v[n - 4], "fd=10");
}
END_TEST
/* Jailed (vmm-jail.h): the jail's paths, KVM inherited, no --chroot, even for a long pod dir;
 * the host volumes' policy as unjailed. */
START_TEST(test_jail)
{
	_cleanup_(vmm_argv_freep) char **v = NULL;
	_cleanup_free_ char *long_dir = malloc(201);
	struct vmm_config c = config();
	static const char *const nets[] = {"fd=5,mac=02:00:00:00:00:01", NULL};
	const struct volume_root vol = {2049, 131, 1000, 100};
	static const char *const want[] = {
		"/cc/cc-vmm",
		"--kernel",
		"/cc/vmlinux",
		"--pmem",
		"/cc/guest.img",
		"--kvm-fd",
		"7",
		"--mem",
		"320",
		"--cpus",
		"2",
		"--rng",
		"--balloon",
		"--zero-sweep",
		"--merge-pages",
		"--9p",
		"cc-layer:/cc/layer,ro",
		"--9p",
		"cc-stage2:/opt/stage2",
		"--9p-hostvol",
		"cc-stage2:2049:131:1000:100",
		"--9p",
		"cc-rkt:/rkt",
		"--9p-hostvol",
		"cc-rkt",
		"--9p",
		"cc-journal:/var/log/journal",
		"--9p-hostvol",
		"cc-journal",
		"--9p-visible",
		"cc-journal",
		"--vsock",
		"3:/cc/vm/vsock",
		"--net",
		"fd=5,mac=02:00:00:00:00:01",
		"--cmdline",
	};

	ck_assert_ptr_nonnull(long_dir);
	memset(long_dir, 'd', 200);
	long_dir[0] = '/';
	long_dir[200] = '\0';
	c.pod_dir = long_dir;
	c.jail = true;
	c.kvm_fd = 7;
	c.nets = nets;
	c.hostvols = &vol;
	c.n_hostvols = 1;
	ASSERT_OK(vmm_argv_build(&c, &v));
	ck_assert_uint_eq(argc_of(v), sizeof(want) / sizeof(want[0]) + 1);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		ck_assert_str_eq(v[i], want[i]);
	ck_assert_ptr_nonnull(strstr(v[sizeof(want) / sizeof(want[0])], "cc.pod=cc-layer"));
}
END_TEST

/* One --9p-hostvol per host volume root, right after the cc-stage2 share; hundreds fit. */
START_TEST(test_hostvols)
{
	_cleanup_(vmm_argv_freep) char **v = NULL;
	_cleanup_free_ struct volume_root *many = NULL;
	struct vmm_config c = config();
	const struct volume_root two[] = {{2049, 131, 1000, 100}, {UINT64_MAX, 7, 0, 0}};
	size_t i;

	c.hostvols = two;
	c.n_hostvols = 2;
	ASSERT_OK(vmm_argv_build(&c, &v));
	for (i = 0; v[i] && strcmp(v[i], "cc-stage2:/p/stage1/rootfs/opt/stage2") != 0; i++)
		;
	ck_assert_ptr_nonnull(v[i]);
	ck_assert_str_eq(v[i - 1], "--9p");
	ck_assert_str_eq(v[i + 1], "--9p-hostvol");
	ck_assert_str_eq(v[i + 2], "cc-stage2:2049:131:1000:100");
	ck_assert_str_eq(v[i + 3], "--9p-hostvol");
	ck_assert_str_eq(v[i + 4], "cc-stage2:18446744073709551615:7:0:0");
	ck_assert_str_eq(v[i + 5], "--9p");
	v = vmm_argv_free(v);

	many = calloc(256, sizeof(*many));
	ck_assert_ptr_nonnull(many);
	for (i = 0; i < 256; i++)
		many[i] = (struct volume_root){1, i, 2, 3};
	c.hostvols = many;
	c.n_hostvols = 256;
	c.debug = true;
	ASSERT_OK(vmm_argv_build(&c, &v));
	ck_assert_str_eq(v[argc_of(v) - 3], "-v");
	for (i = 0; v[i] && strcmp(v[i], "cc-stage2:1:255:2:3") != 0; i++)
		;
	ck_assert_ptr_nonnull(v[i]);
}
END_TEST

/* Every option at once, CCNET_NETS_MAX NICs, jailed and not: within VMM_ARGV_MAX. */
START_TEST(test_longest)
{
	static const char *const nets[] = {"fd=3", "fd=4", "fd=5",  "fd=6", "fd=7",
					   "fd=8", "fd=9", "fd=10", NULL};
	const struct volume_root vol = {1, 2, 3, 4};
	const int kernel_pages_fds[2] = {11, 12};
	struct vmm_config c = config();

	c.debug = true;
	c.ksm = true;
	c.extra_kernel_params = "x=1";
	c.kernel_pages_fds = kernel_pages_fds;
	c.nets = nets;
	c.hostvols = &vol;
	c.n_hostvols = 1;
	c.kvm_fd = 9;
	for (int jail = 0; jail < 2; jail++) {
		_cleanup_(vmm_argv_freep) char **v = NULL;

		c.jail = jail;
		ASSERT_OK(vmm_argv_build(&c, &v));
		ck_assert_str_eq(v[argc_of(v) - 4], "fd=10");
		ck_assert_str_eq(v[argc_of(v) - 3], "-v");
		ck_assert_uint_eq(argc_of(v), 55); /* --kvm-fd <fd> for --chroot <dir> */
	}
}
END_TEST

START_TEST(test_invalid)
{
	_cleanup_(vmm_argv_freep) char **v = NULL;
	struct vmm_config c = config();

	c.machine_id = "0123456789ABCDEF0123456789abcdef";
	ASSERT_ERRNO(vmm_argv_build(&c, &v), EINVAL);
	c = config();
	c.machine_id = "0123";
	ASSERT_ERRNO(vmm_argv_build(&c, &v), EINVAL);
	c = config();
	c.mem_mib = 0;
	ASSERT_ERRNO(vmm_argv_build(&c, &v), EINVAL);
	c = config();
	c.cpus = 0;
	ASSERT_ERRNO(vmm_argv_build(&c, &v), EINVAL);
	c = config();
	c.pod_dir = "relative";
	ASSERT_ERRNO(vmm_argv_build(&c, &v), EINVAL);
	ck_assert_ptr_null(v);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("stage1-vmm-argv");
	TCase *tc = tcase_create("argv");

	tcase_add_test(tc, test_quiet);
	tcase_add_test(tc, test_kernel_pages_fds);
	tcase_add_test(tc, test_ksm_only_when_asked);
	tcase_add_test(tc, test_hostvols);
	tcase_add_test(tc, test_debug_and_extra_params);
	tcase_add_test(tc, test_long_pod_dir_uses_relative_vsock);
	tcase_add_test(tc, test_invalid);
	tcase_add_test(tc, test_nets);
	tcase_add_test(tc, test_jail);
	tcase_add_test(tc, test_longest);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(suite());
}
