/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Guest-side files from CNI results (guest-config.c), against golden files in
 * tests/data/net/golden (CC_UPDATE_GOLDEN=1 rewrites them).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "cctest.h"
#include "guest-config.h"

static struct ccnet_pod pod;

static void nic_load(struct ccnet_nic *nic, const char *result, const char *name,
		     const char *ifname)
{
	_cleanup_free_ char *buf = NULL;
	struct cc_error e = {};
	char p[PATH_MAX];
	size_t len;

	(void) snprintf(p, sizeof(p), "%s/tests/data/net/results/%s", cctest_source_dir(), result);
	ck_assert_int_eq(read_full_file(p, 1 << 20, &buf, &len), 0);
	ASSERT_OK(cni_result_parse(buf, len, &nic->result, &e));
	(void) snprintf(nic->net_name, sizeof(nic->net_name), "%s", name);
	(void) snprintf(nic->ifname, sizeof(nic->ifname), "%s", ifname);
	memcpy(nic->mac, (const uint8_t[]){0x02, 0xcc, 0x00, 0x11, 0x22, (uint8_t) ifname[3]}, 6);
	nic->tap_fd = -1;
}

static void golden(const char *name, const char *got)
{
	_cleanup_free_ char *want = NULL;
	char p[PATH_MAX];
	size_t len;

	(void) snprintf(p, sizeof(p), "%s/tests/data/net/golden/%s", cctest_source_dir(), name);
	if (getenv("CC_UPDATE_GOLDEN"))
		ck_assert_int_eq(write_string_file_atomic(p, got, 0644), 0);
	ck_assert_int_eq(read_full_file(p, 1 << 20, &want, &len), 0);
	ck_assert_str_eq(got, want);
}

START_TEST(test_networkd)
{
	_cleanup_free_ char *a = NULL, *b = NULL, *c = NULL;

	nic_load(&pod.nics[0], "v040-bridge.json", "foo", "eth0");
	nic_load(&pod.nics[1], "v100-ptp.json", "default", "eth1");
	nic_load(&pod.nics[2], "v010-legacy.json", "default-restricted", "eth2");
	pod.n_nics = 3;
	ASSERT_OK(ccnet_nic_networkd(&pod.nics[0], &a));
	golden("eth0-bridge.network", a);
	ASSERT_OK(ccnet_nic_networkd(&pod.nics[1], &b));
	golden("eth1-ptp.network", b);
	ASSERT_OK(ccnet_nic_networkd(&pod.nics[2], &c));
	golden("eth2-legacy.network", c);
}
END_TEST

START_TEST(test_resolv_conf)
{
	_cleanup_free_ char *r = NULL;

	/* eth0's result has an empty dns: the first with nameservers (eth1) wins. */
	nic_load(&pod.nics[0], "v040-bridge.json", "foo", "eth0");
	nic_load(&pod.nics[1], "v100-ptp.json", "default", "eth1");
	pod.n_nics = 2;
	ASSERT_OK(ccnet_pod_resolv_conf(&pod, &r));
	golden("resolv.conf", r);
	pod.n_nics = 1;
	ASSERT_ERRNO(ccnet_pod_resolv_conf(&pod, &r), ENOENT);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("guest-config");
	TCase *tc = tcase_create("guest");

	tcase_add_test(tc, test_networkd);
	tcase_add_test(tc, test_resolv_conf);
	suite_add_tcase(s, tc);
	return cctest_run_suite(s);
}
