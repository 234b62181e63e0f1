/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: CNI plugin output (ADD results of every spec version, error objects). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "cni-result.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct cni_result res;
	struct cc_error err = {};
	char msg[128];

	(void) cni_error_describe((const char *) data, size, msg, sizeof(msg));
	if (strnlen(msg, sizeof(msg)) >= sizeof(msg))
		abort();
	if (cni_result_parse((const char *) data, size, &res, &err) < 0) {
		if (!err.msg[0])
			abort();
		return 0;
	}
	if (res.n_ips > CNI_IPS_MAX || res.n_routes > CNI_ROUTES_MAX ||
	    res.n_ifaces > CNI_IFACES_MAX || res.dns.n_nameservers > CNI_DNS_MAX)
		abort();
	for (size_t i = 0; i < res.n_ips; i++) {
		const struct cni_ip *ip = &res.ips[i];

		if ((ip->family != AF_INET && ip->family != AF_INET6) ||
		    ip->prefixlen > (ip->family == AF_INET ? 32u : 128u) ||
		    (ip->interface >= 0 && (size_t) ip->interface >= res.n_ifaces))
			abort();
	}
	for (size_t i = 0; i < res.n_ifaces; i++)
		if (strnlen(res.ifaces[i].name, sizeof(res.ifaces[i].name)) >=
		    sizeof(res.ifaces[i].name))
			abort();
	return 0;
}
