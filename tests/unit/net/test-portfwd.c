/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The port list checks of portfwd.h, without running iptables or nft: which address families a
 * port list needs on a pod, which destination its rules match, and what is refused.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "cctest.h"
#include "portfwd.h"

static struct ccnet_port port(const char *proto, uint16_t pod, uint16_t host, const char *ip)
{
	struct ccnet_port p = {.pod_port = pod, .host_port = host};

	(void) snprintf(p.proto, sizeof(p.proto), "%s", proto);
	(void) snprintf(p.host_ip, sizeof(p.host_ip), "%s", ip);
	return p;
}

START_TEST(test_families)
{
	const struct portfwd_target both = {.ip4 = "10.0.0.2", .ip6 = "fd00::2"};
	const struct portfwd_target v4 = {.ip4 = "10.0.0.2"}, v6 = {.ip6 = "fd00::2"}, none = {};
	struct ccnet_port any = port("tcp", 80, 8080, ""), p4 = port("tcp", 80, 8081, "10.1.1.1"),
			  p6 = port("udp", 53, 5353, "fd00:1::1");
	struct cc_error err = {};

	/* No host IP: every family the pod has. */
	ck_assert_int_eq(portfwd_families(&any, 1, &both, &err), PORTFWD_IP4 | PORTFWD_IP6);
	ck_assert_int_eq(portfwd_families(&any, 1, &v4, &err), PORTFWD_IP4);
	ck_assert_int_eq(portfwd_families(&any, 1, &v6, &err), PORTFWD_IP6);
	/* A host IP: its family only. */
	ck_assert_int_eq(portfwd_families(&p4, 1, &both, &err), PORTFWD_IP4);
	ck_assert_int_eq(portfwd_families(&p6, 1, &both, &err), PORTFWD_IP6);
	ASSERT_ERRNO(portfwd_families(&p6, 1, &v4, &err), EADDRNOTAVAIL);
	ck_assert_str_eq(err.msg, "port 5353: host IP fd00:1::1 is IPv6 but the pod has no IPv6 "
				  "address");
	ASSERT_ERRNO(portfwd_families(&p4, 1, &v6, &err), EADDRNOTAVAIL);
	ck_assert_str_eq(err.msg, "port 8081: host IP 10.1.1.1 is IPv4 but the pod has no IPv4 "
				  "address");
	ASSERT_ERRNO(portfwd_families(&any, 1, &none, &err), EADDRNOTAVAIL);
	ck_assert_int_eq(portfwd_families(NULL, 0, &none, &err), 0);
	{
		struct ccnet_port list[] = {p4, p6};

		ck_assert_int_eq(portfwd_families(list, 2, &both, &err), PORTFWD_IP4 | PORTFWD_IP6);
	}
}
END_TEST

START_TEST(test_destination)
{
	struct ccnet_port p = port("tcp", 80, 8080, "");

	ck_assert_int_eq(portfwd_port_family(&p), AF_UNSPEC);
	ck_assert_ptr_null(portfwd_port_dst(&p));
	/* The unspecified addresses match every local address of their own family. */
	p = port("tcp", 80, 8080, "0.0.0.0");
	ck_assert_int_eq(portfwd_port_family(&p), AF_INET);
	ck_assert_ptr_null(portfwd_port_dst(&p));
	p = port("tcp", 80, 8080, "::");
	ck_assert_int_eq(portfwd_port_family(&p), AF_INET6);
	ck_assert_ptr_null(portfwd_port_dst(&p));
	p = port("tcp", 80, 8080, "fd00::1");
	ck_assert_str_eq(portfwd_port_dst(&p), "fd00::1");
	p = port("tcp", 80, 8080, "127.0.0.1");
	ck_assert_int_eq(portfwd_port_family(&p), AF_INET);
	ck_assert_str_eq(portfwd_port_dst(&p), "127.0.0.1");
}
END_TEST

START_TEST(test_validate)
{
	struct cc_error err = {};
	struct ccnet_port ok[] = {port("tcp", 80, 80, ""), port("udp", 80, 80, "::1"),
				  port("tcp", 81, 81, "10.0.0.1")};
	struct ccnet_port bad_ip = port("tcp", 80, 80, "fd00::zz");
	struct ccnet_port bad_ip4 = port("tcp", 80, 80, "10.0.0.300");
	struct ccnet_port bad_proto = port("sct", 80, 80, "");
	struct ccnet_port zero = port("tcp", 0, 80, "");
	struct ccnet_port twice[] = {port("tcp", 80, 80, ""), port("tcp", 81, 80, "::1")};

	ASSERT_OK(portfwd_validate(ok, 3, &err));
	ASSERT_ERRNO(portfwd_validate(&bad_ip, 1, &err), EINVAL);
	ck_assert_str_eq(err.msg, "port 80: bad host IP \"fd00::zz\"");
	ASSERT_ERRNO(portfwd_validate(&bad_ip4, 1, &err), EINVAL);
	ASSERT_ERRNO(portfwd_validate(&bad_proto, 1, &err), EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "is not tcp or udp"));
	ASSERT_ERRNO(portfwd_validate(&zero, 1, &err), EINVAL);
	/* One host port per protocol, whatever the host IPs. */
	ASSERT_ERRNO(portfwd_validate(twice, 2, &err), EINVAL);
	ck_assert_str_eq(err.msg, "host port tcp/80 is forwarded twice");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("portfwd");
	TCase *tc = tcase_create("ports");

	tcase_add_test(tc, test_families);
	tcase_add_test(tc, test_destination);
	tcase_add_test(tc, test_validate);
	suite_add_tcase(s, tc);
	return cctest_run_suite(s);
}
