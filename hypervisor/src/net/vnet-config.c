/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cc/macro.h"
#include "net/vnet.h"

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* "XX:XX:XX:XX:XX:XX", exactly; len is the value's length. */
static int parse_mac(const char *s, size_t len, uint8_t mac[6])
{
	if (len != 17)
		return -EINVAL;
	for (unsigned i = 0; i < 6; i++) {
		int hi = hex_digit(s[3 * i]), lo = hex_digit(s[3 * i + 1]);

		if (hi < 0 || lo < 0 || (i < 5 && s[3 * i + 2] != ':'))
			return -EINVAL;
		mac[i] = (uint8_t) (hi << 4 | lo);
	}
	return (mac[0] & 1) ? -EINVAL : 0; /* multicast */
}

static int parse_fd(const char *s, size_t len, int *ret)
{
	long v = 0;

	if (len == 0 || len > 9)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (s[i] - '0');
	}
	*ret = (int) v;
	return 0;
}

static int parse_item(const char *item, size_t len, struct vnet_config *cfg, bool *seen_mac)
{
	const char *eq = memchr(item, '=', len);
	size_t klen, vlen;
	const char *val;

	if (!eq)
		return -EINVAL;
	klen = (size_t) (eq - item);
	val = eq + 1;
	vlen = len - klen - 1;
	if (klen == 3 && memcmp(item, "tap", 3) == 0) {
		if (cfg->tap_name[0] || cfg->tap_fd >= 0 || vlen == 0 ||
		    vlen >= sizeof(cfg->tap_name) || memchr(val, '/', vlen))
			return -EINVAL;
		memcpy(cfg->tap_name, val, vlen);
		return 0;
	}
	if (klen == 2 && memcmp(item, "fd", 2) == 0) {
		if (cfg->tap_name[0] || cfg->tap_fd >= 0)
			return -EINVAL;
		return parse_fd(val, vlen, &cfg->tap_fd);
	}
	if (klen == 3 && memcmp(item, "mac", 3) == 0) {
		if (*seen_mac)
			return -EINVAL;
		*seen_mac = true;
		cfg->has_mac = true;
		return parse_mac(val, vlen, cfg->mac);
	}
	return -EINVAL;
}

int vnet_config_parse(const char *spec, struct vnet_config *ret)
{
	struct vnet_config cfg = {.tap_fd = -1};
	bool seen_mac = false;
	const char *p = spec;

	assert_return(spec && ret, -EINVAL);
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t) (comma - p) : strlen(p);
		int r = parse_item(p, len, &cfg, &seen_mac);

		if (r < 0)
			return r;
		if (!comma)
			break;
		p = comma + 1;
	}
	if (!cfg.tap_name[0] && cfg.tap_fd < 0)
		return -EINVAL;
	*ret = cfg;
	return 0;
}
