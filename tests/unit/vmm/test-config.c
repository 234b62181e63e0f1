/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The device options of struct vm_config (--9p, --vsock, --net, --blk): accepted forms,
 * refused forms with their reason, limits, duplicates, a refused option leaving the config
 * unchanged, and vm_new() refusing too many devices before it touches KVM.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cctest.h"
#include "vm/devices.h"
#include "vmm/vm.h"

static struct vm_config cfg;
static struct cc_error reason;

static void setup(void)
{
	vm_config_init(&cfg);
	reason = (struct cc_error){0};
}

static void teardown(void)
{
	vm_config_done(&cfg);
}

/* Refused with err, a reason containing 'why', and nothing added. */
#define ASSERT_REFUSED(call, err, why)                                                             \
	do {                                                                                       \
		struct vm_config _before;                                                          \
		memcpy(&_before, &cfg, sizeof(cfg));                                               \
		reason = (struct cc_error){0};                                                     \
		ASSERT_ERRNO(call, err);                                                           \
		ck_assert_int_eq(reason.code, -(err));                                             \
		ck_assert_msg(strstr(reason.msg, why), "reason '%s' lacks '%s'", reason.msg, why); \
		ck_assert_int_eq(memcmp(&_before, &cfg, sizeof(cfg)), 0);                          \
	} while (0)

START_TEST(test_share_forms)
{
	ASSERT_OK(vm_config_add_share(&cfg, "pod:/var/lib/pod", &reason));
	ASSERT_OK(vm_config_add_share(&cfg, "vol:/srv/data,ro", &reason));
	ASSERT_OK(vm_config_add_share(&cfg, "t:rel/dir:with:colons", &reason));
	ck_assert_uint_eq(cfg.n_shares, 3);
	ck_assert_str_eq(cfg.shares[0].tag, "pod");
	ck_assert_str_eq(cfg.shares[0].dir, "/var/lib/pod");
	ck_assert(!cfg.shares[0].read_only);
	ck_assert_str_eq(cfg.shares[1].tag, "vol");
	ck_assert_str_eq(cfg.shares[1].dir, "/srv/data");
	ck_assert(cfg.shares[1].read_only);
	ck_assert_str_eq(cfg.shares[2].tag, "t");
	ck_assert_str_eq(cfg.shares[2].dir, "rel/dir:with:colons");
}
END_TEST

START_TEST(test_share_refused)
{
	char tag[300];

	ASSERT_REFUSED(vm_config_add_share(&cfg, "nocolon", &reason), EINVAL, "TAG:DIR");
	ASSERT_REFUSED(vm_config_add_share(&cfg, "", &reason), EINVAL, "TAG:DIR");
	ASSERT_REFUSED(vm_config_add_share(&cfg, ":/dir", &reason), EINVAL, "empty tag");
	ASSERT_REFUSED(vm_config_add_share(&cfg, "tag:", &reason), EINVAL, "empty directory");
	ASSERT_REFUSED(vm_config_add_share(&cfg, "tag:,ro", &reason), EINVAL, "empty directory");
	memset(tag, 'a', 256);
	strcpy(tag + 256, ":/d");
	ASSERT_REFUSED(vm_config_add_share(&cfg, tag, &reason), ENAMETOOLONG, "255");
	strcpy(tag + 255, ":/d");
	ASSERT_OK(vm_config_add_share(&cfg, tag, &reason));
	ck_assert_uint_eq(strlen(cfg.shares[0].tag), 255);
	ASSERT_OK(vm_config_add_share(&cfg, "x:/a", &reason));
	ASSERT_REFUSED(vm_config_add_share(&cfg, "x:/b,ro", &reason), EEXIST, "already used");
	/* a prefix of an existing tag is another tag */
	ASSERT_OK(vm_config_add_share(&cfg, "xy:/a", &reason));
}
END_TEST

START_TEST(test_share_limit)
{
	char spec[32];

	for (unsigned i = 0; i < VM_MAX_SHARES; i++) {
		snprintf(spec, sizeof(spec), "t%u:/d", i);
		ASSERT_OK(vm_config_add_share(&cfg, spec, &reason));
	}
	ASSERT_REFUSED(vm_config_add_share(&cfg, "last:/d", &reason), E2BIG, "at most 8");
}
END_TEST

START_TEST(test_share_visible)
{
	ASSERT_OK(vm_config_add_share(&cfg, "a:/pod/a", &reason));
	ASSERT_OK(vm_config_add_share(&cfg, "journal:/pod/j", &reason));
	ck_assert(!cfg.shares[1].visible);
	ASSERT_OK(vm_config_set_share_visible(&cfg, "journal", &reason));
	ck_assert(cfg.shares[1].visible && !cfg.shares[0].visible);
	/* Again: still visible, nothing else changes. */
	ASSERT_OK(vm_config_set_share_visible(&cfg, "journal", &reason));
	ck_assert(cfg.shares[1].visible && !cfg.shares[0].visible);
	ASSERT_REFUSED(vm_config_set_share_visible(&cfg, "jour", &reason), ENOENT, "no --9p");
	ASSERT_REFUSED(vm_config_set_share_visible(&cfg, "", &reason), ENOENT, "no --9p");
	ASSERT_REFUSED(vm_config_set_share_visible(&cfg, "journal:/pod/j", &reason), ENOENT,
		       "no --9p");
}
END_TEST

START_TEST(test_hostvol_forms)
{
	char spec[64];

	ASSERT_OK(vm_config_add_share(&cfg, "a:/pod/a", &reason));
	ASSERT_OK(vm_config_add_share(&cfg, "stage2:/pod/stage2", &reason));
	ASSERT_OK(vm_config_add_hostvol(&cfg, "stage2:2049:131:1000:100", &reason));
	ASSERT_OK(
		vm_config_add_hostvol(&cfg, "stage2:18446744073709551615:7:0:4294967294", &reason));
	ASSERT_OK(vm_config_add_hostvol(&cfg, "a:2049:131:0:0", &reason)); /* another share */
	ck_assert_uint_eq(cfg.n_hostvols, 3);
	ck_assert_uint_eq(cfg.hostvols[0].share, 1);
	ck_assert_uint_eq(cfg.hostvols[0].dev, 2049);
	ck_assert_uint_eq(cfg.hostvols[0].ino, 131);
	ck_assert_uint_eq(cfg.hostvols[0].uid, 1000);
	ck_assert_uint_eq(cfg.hostvols[0].gid, 100);
	ck_assert_uint_eq(cfg.hostvols[1].dev, UINT64_MAX);
	ck_assert_uint_eq(cfg.hostvols[1].gid, 4294967294u);
	ck_assert_uint_eq(cfg.hostvols[2].share, 0);

	ASSERT_REFUSED(vm_config_add_hostvol(&cfg, "stage2:2049:131:5:5", &reason), EEXIST,
		       "already");
	ASSERT_REFUSED(vm_config_add_hostvol(&cfg, "none:1:2:3:4", &reason), ENOENT, "no --9p");
	/* The whole share: once. */
	ASSERT_OK(vm_config_add_hostvol(&cfg, "stage2", &reason));
	ck_assert(cfg.hostvols[3].export_root && cfg.hostvols[3].share == 1);
	ck_assert(!cfg.hostvols[0].export_root);
	ASSERT_REFUSED(vm_config_add_hostvol(&cfg, "stage2", &reason), EEXIST, "already one");
	ASSERT_REFUSED(vm_config_add_hostvol(&cfg, "stage", &reason), ENOENT, "no --9p");
	ASSERT_REFUSED(vm_config_add_hostvol(&cfg, "", &reason), ENOENT, "no --9p");
	ASSERT_REFUSED(vm_config_add_hostvol(&cfg, "stage2:", &reason), EINVAL, "TAG:DEV");
	ASSERT_REFUSED(vm_config_add_hostvol(&cfg, "stage2:1:2:3", &reason), EINVAL, "TAG:DEV");
	ASSERT_REFUSED(vm_config_add_hostvol(&cfg, "stage2:1:2:3:4:5", &reason), EINVAL, "TAG:DEV");
	ASSERT_REFUSED(vm_config_add_hostvol(&cfg, "stage2:1::3:4", &reason), EINVAL, "TAG:DEV");
	ASSERT_REFUSED(vm_config_add_hostvol(&cfg, "stage2:-1:2:3:4", &reason), EINVAL, "TAG:DEV");
	ASSERT_REFUSED(vm_config_add_hostvol(&cfg, "stage2:0x1:2:3:4", &reason), EINVAL, "TAG:DEV");
	ASSERT_REFUSED(vm_config_add_hostvol(&cfg, "stage2:1:2: 3:4", &reason), EINVAL, "TAG:DEV");
	ASSERT_REFUSED(vm_config_add_hostvol(&cfg, "stage2:18446744073709551616:2:3:4", &reason),
		       EINVAL, "TAG:DEV");
	/* (uid_t) -1 means "leave it" to chown(2): never an owner */
	ASSERT_REFUSED(vm_config_add_hostvol(&cfg, "stage2:1:2:4294967295:4", &reason), EINVAL,
		       "below 4294967295");
	ASSERT_REFUSED(vm_config_add_hostvol(&cfg, "stage2:1:2:3:4294967295", &reason), EINVAL,
		       "below 4294967295");
	for (unsigned i = cfg.n_hostvols; i < VM_MAX_HOSTVOLS; i++) {
		snprintf(spec, sizeof(spec), "a:9:%u:1:1", i);
		ASSERT_OK(vm_config_add_hostvol(&cfg, spec, &reason));
	}
	ASSERT_REFUSED(vm_config_add_hostvol(&cfg, "a:10:1:1:1", &reason), E2BIG, "at most 256");
}
END_TEST

START_TEST(test_vsock_forms)
{
	ASSERT_OK(vm_config_set_vsock(&cfg, "3:/run/pod/vsock", &reason));
	ck_assert_uint_eq(cfg.vsock_cid, 3);
	ck_assert_str_eq(cfg.vsock_path, "/run/pod/vsock");
	ASSERT_REFUSED(vm_config_set_vsock(&cfg, "4:/other", &reason), EEXIST, "only one");
	vm_config_done(&cfg);
	ck_assert_uint_eq(cfg.vsock_cid, 0);
	ck_assert_ptr_null(cfg.vsock_path);
	ASSERT_OK(vm_config_set_vsock(&cfg, "4294967294:rel:ative", &reason));
	ck_assert_uint_eq(cfg.vsock_cid, 4294967294u);
	ck_assert_str_eq(cfg.vsock_path, "rel:ative");
}
END_TEST

START_TEST(test_vsock_refused)
{
	static const char *const bad_cid[] = {
		"0:/p",	  "1:/p",  "2:/p",  "4294967295:/p", "18446744073709551619:/p",
		"-3:/p",  "+3:/p", " 3:/p", "0x10:/p",	     "3 :/p",
		"abc:/p", ":/p",
	};
	char spec[200];

	for (unsigned i = 0; i < sizeof(bad_cid) / sizeof(bad_cid[0]); i++)
		ASSERT_REFUSED(vm_config_set_vsock(&cfg, bad_cid[i], &reason), EINVAL, "CID");
	ASSERT_REFUSED(vm_config_set_vsock(&cfg, "3", &reason), EINVAL, "CID:UDS_PATH");
	ASSERT_REFUSED(vm_config_set_vsock(&cfg, "3:", &reason), EINVAL, "empty socket path");
	strcpy(spec, "3:");
	memset(spec + 2, 'p', VM_VSOCK_PATH_MAX + 1);
	spec[2 + VM_VSOCK_PATH_MAX + 1] = '\0';
	ASSERT_REFUSED(vm_config_set_vsock(&cfg, spec, &reason), ENAMETOOLONG, "96");
	spec[2 + VM_VSOCK_PATH_MAX] = '\0';
	ASSERT_OK(vm_config_set_vsock(&cfg, spec, &reason));
}
END_TEST

START_TEST(test_net_forms)
{
	static const uint8_t mac[6] = {0x52, 0x54, 0x00, 0xab, 0xcd, 0xef};

	ASSERT_OK(vm_config_add_net(&cfg, "tap=cc0", &reason));
	ASSERT_OK(vm_config_add_net(&cfg, "fd=7,mac=52:54:00:AB:cd:ef", &reason));
	ASSERT_OK(vm_config_add_net(&cfg, "mac=02:00:00:00:00:01,tap=cc1", &reason));
	ck_assert_uint_eq(cfg.n_nets, 3);
	ck_assert_str_eq(cfg.nets[0].tap_name, "cc0");
	ck_assert_int_eq(cfg.nets[0].tap_fd, -1);
	ck_assert(!cfg.nets[0].has_mac);
	ck_assert_int_eq(cfg.nets[1].tap_fd, 7);
	ck_assert_str_eq(cfg.nets[1].tap_name, "");
	ck_assert(cfg.nets[1].has_mac);
	ck_assert_int_eq(memcmp(cfg.nets[1].mac, mac, 6), 0);
	ck_assert_str_eq(cfg.nets[2].tap_name, "cc1");
	ck_assert_uint_eq(cfg.nets[2].mac[5], 1);
}
END_TEST

START_TEST(test_net_refused)
{
	static const char *const bad[] = {
		"",
		"tap=",
		"tap",
		"fd=",
		"fd=x",
		"fd=-1",
		"fd=3x",
		"tap=a,fd=3",
		"fd=3,fd=4",
		"tap=a,tap=b",
		"tap=0123456789abcdef", /* 16 bytes: IFNAMSIZ with the NUL is 16 */
		"tap=a/b",
		"tap=a,mac=01:00:00:00:00:01", /* multicast */
		"tap=a,mac=52:54:00:12:34",
		"tap=a,mac=52:54:00:12:34:5g",
		"tap=a,mac=52-54-00-12-34-56",
		"tap=a,mac=02:00:00:00:00:01,mac=02:00:00:00:00:02",
		"tap=a,",
		"tap=a,bogus=1",
		"mac=02:00:00:00:00:01",
	};

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ASSERT_REFUSED(vm_config_add_net(&cfg, bad[i], &reason), EINVAL, "tap=NAME|fd=N");
	ASSERT_REFUSED(vm_config_add_net(&cfg, "fd=1", &reason), EINVAL, "standard");
	ASSERT_OK(vm_config_add_net(&cfg, "tap=0123456789abcde", &reason));
	ASSERT_OK(vm_config_add_net(&cfg, "fd=9", &reason));
	ASSERT_REFUSED(
		vm_config_add_net(&cfg, "tap=0123456789abcde,mac=02:00:00:00:00:01", &reason),
		EEXIST, "already used");
	ASSERT_REFUSED(vm_config_add_net(&cfg, "fd=9", &reason), EEXIST, "already used");
	ASSERT_OK(vm_config_add_net(&cfg, "fd=10", &reason));
	ASSERT_OK(vm_config_add_net(&cfg, "tap=x", &reason));
	ASSERT_REFUSED(vm_config_add_net(&cfg, "tap=y", &reason), E2BIG, "at most 4");
}
END_TEST

START_TEST(test_blk_forms)
{
	char spec[32];

	ASSERT_OK(vm_config_add_blk(&cfg, "/img/root.raw", &reason));
	ASSERT_OK(vm_config_add_blk(&cfg, "data.img,ro", &reason));
	ck_assert_str_eq(cfg.blks[0].path, "/img/root.raw");
	ck_assert(!cfg.blks[0].read_only);
	ck_assert_str_eq(cfg.blks[1].path, "data.img");
	ck_assert(cfg.blks[1].read_only);
	ASSERT_REFUSED(vm_config_add_blk(&cfg, "", &reason), EINVAL, "FILE[,ro]");
	ASSERT_REFUSED(vm_config_add_blk(&cfg, ",ro", &reason), EINVAL, "FILE[,ro]");
	ASSERT_REFUSED(vm_config_add_blk(&cfg, "data.img", &reason), EEXIST, "already used");
	for (unsigned i = 2; i < VM_MAX_BLKS; i++) {
		snprintf(spec, sizeof(spec), "d%u.img", i);
		ASSERT_OK(vm_config_add_blk(&cfg, spec, &reason));
	}
	ASSERT_REFUSED(vm_config_add_blk(&cfg, "one-more.img", &reason), E2BIG, "at most 8");
}
END_TEST

START_TEST(test_devices_wanted)
{
	char spec[32];
	struct cc_error err = {0};
	struct vm *vm = NULL;

	ck_assert_uint_eq(vm_devices_wanted(&cfg), 0); /* no console destination */
	cfg.console_out_fd = 1;
	ck_assert_uint_eq(vm_devices_wanted(&cfg), 1); /* the console */
	cfg.rng = true;
	ASSERT_OK(vm_config_set_vsock(&cfg, "3:/nonexistent/sock", &reason));
	ASSERT_OK(vm_config_add_net(&cfg, "tap=a", &reason));
	ck_assert_uint_eq(vm_devices_wanted(&cfg), 4);
	for (unsigned i = 0; i < VM_MAX_SHARES; i++) {
		snprintf(spec, sizeof(spec), "t%u:/nonexistent", i);
		ASSERT_OK(vm_config_add_share(&cfg, spec, &reason));
	}
	for (unsigned i = 0; i < 4; i++) {
		snprintf(spec, sizeof(spec), "/nonexistent/%u", i);
		ASSERT_OK(vm_config_add_blk(&cfg, spec, &reason));
	}
	ck_assert_uint_eq(vm_devices_wanted(&cfg), 16);
	ASSERT_OK(vm_config_add_blk(&cfg, "/nonexistent/last", &reason));
	ck_assert_uint_eq(vm_devices_wanted(&cfg), 17);

	/* Refused before any file, tap or /dev/kvm is looked at. */
	cfg.kernel_path = "/nonexistent/kernel";
	cfg.kvm_path = "/nonexistent/kvm";
	ck_assert_int_lt(vm_new(&cfg, &vm, &err), 0);
	ck_assert_ptr_null(vm);
	ck_assert_int_eq(err.status, VMM_EXIT_USAGE);
	ck_assert_msg(strstr(err.msg, "too many virtio devices: 17"), "%s", err.msg);
}
END_TEST

START_TEST(test_done_twice)
{
	ASSERT_OK(vm_config_add_share(&cfg, "a:/b", &reason));
	ASSERT_OK(vm_config_add_blk(&cfg, "c", &reason));
	vm_config_done(&cfg);
	vm_config_done(&cfg);
	ck_assert_uint_eq(cfg.n_shares, 0);
	ck_assert_uint_eq(cfg.n_blks, 0);
	vm_config_done(NULL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vmm-config");
	TCase *tc = tcase_create("options");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_share_forms);
	tcase_add_test(tc, test_share_refused);
	tcase_add_test(tc, test_share_limit);
	tcase_add_test(tc, test_share_visible);
	tcase_add_test(tc, test_hostvol_forms);
	tcase_add_test(tc, test_vsock_forms);
	tcase_add_test(tc, test_vsock_refused);
	tcase_add_test(tc, test_net_forms);
	tcase_add_test(tc, test_net_refused);
	tcase_add_test(tc, test_blk_forms);
	tcase_add_test(tc, test_devices_wanted);
	tcase_add_test(tc, test_done_twice);
	suite_add_tcase(s, tc);
	return cctest_run_suite(s);
}
