/* SPDX-License-Identifier: Apache-2.0 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cc/macro.h"
#include "validate.h"

static bool is_lower_alnum(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
}

static bool is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

static bool ac_string_is_valid(const char *s, const char *separators)
{
	size_t n = strlen(s);

	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!is_lower_alnum(s[i]) && !strchr(separators, s[i]))
			return false;
	/* appc checks the edges only: "a--b" and "a//b" are valid. */
	return is_lower_alnum(s[0]) && is_lower_alnum(s[n - 1]);
}

bool ac_identifier_is_valid(const char *s)
{
	return ac_string_is_valid(s, "-._~/");
}

bool ac_name_is_valid(const char *s)
{
	return ac_string_is_valid(s, "-");
}

bool image_id_is_valid(const char *s)
{
	const char *val;
	size_t n;

	if (strncmp(s, "sha512-", 7) != 0)
		return false;
	val = s + 7;
	n = strlen(val);
	if (n == 0 || n > 128)
		return false;
	/*
	 * appc's NewHash() takes any value without another '-'; the spec's own examples use
	 * "sha512-...". On top, refuse what could hurt when the ID ends up in a path or a log.
	 */
	for (size_t i = 0; i < n; i++)
		if (val[i] == '-' || val[i] == '/' || (unsigned char) val[i] <= 0x20 ||
		    val[i] == 0x7f)
			return false;
	return true;
}

/* go-semver's identifier rule: dot-separated non-empty [0-9A-Za-z-]+ parts. */
static bool semver_ident_is_valid(const char *s, size_t n)
{
	size_t part = 0;

	if (n == 0)
		return true;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '.') {
			if (part == 0)
				return false;
			part = 0;
			continue;
		}
		if (!isalnum((unsigned char) s[i]) && s[i] != '-')
			return false;
		part++;
	}
	return part > 0;
}

bool semver_is_valid(const char *s)
{
	const char *plus = strchr(s, '+');
	size_t core_len = plus ? (size_t) (plus - s) : strlen(s);
	const char *dash = memchr(s, '-', core_len);
	size_t num_len = dash ? (size_t) (dash - s) : core_len;
	bool all_zero = true;
	const char *p = s;

	if (plus && !semver_ident_is_valid(plus + 1, strlen(plus + 1)))
		return false;
	if (dash && !semver_ident_is_valid(dash + 1, core_len - num_len - 1))
		return false;
	for (int field = 0; field < 3; field++) {
		size_t digits = 0;

		while (p < s + num_len && is_digit(*p)) {
			if (*p != '0')
				all_zero = false;
			p++;
			digits++;
		}
		if (digits == 0 || digits > 18)
			return false;
		if (field < 2) {
			if (p >= s + num_len || *p != '.')
				return false;
			p++;
		}
	}
	if (p != s + num_len)
		return false;
	/* 0.0.0 without pre-release or metadata is the zero version, which appc rejects. */
	return !(all_zero && !plus && !dash);
}

static bool digits_parse(const char *s, size_t n, int *ret)
{
	int v = 0;

	for (size_t i = 0; i < n; i++) {
		if (!is_digit(s[i]))
			return false;
		v = v * 10 + (s[i] - '0');
	}
	*ret = v;
	return true;
}

static int days_in_month(int year, int month)
{
	static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;

	return month == 2 && leap ? 29 : days[month - 1];
}

bool rfc3339_is_valid(const char *s)
{
	int year, month, day, hour, min, sec;
	const char *p;

	/* 2006-01-02T15:04:05 */
	if (strlen(s) < 20)
		return false;
	if (s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':')
		return false;
	if (!digits_parse(s, 4, &year) || !digits_parse(s + 5, 2, &month) ||
	    !digits_parse(s + 8, 2, &day) || !digits_parse(s + 11, 2, &hour) ||
	    !digits_parse(s + 14, 2, &min) || !digits_parse(s + 17, 2, &sec))
		return false;
	if (month < 1 || month > 12 || day < 1 || day > days_in_month(year, month) || hour > 23 ||
	    min > 59 || sec > 59)
		return false;
	p = s + 19;
	if ((*p == '.' || *p == ',') && is_digit(p[1])) {
		p++;
		while (is_digit(*p))
			p++;
	}
	if (p[0] == 'Z')
		return p[1] == '\0';
	if (p[0] == '+' || p[0] == '-') {
		int zh, zm;

		if (strlen(p) != 6 || p[3] != ':' || !digits_parse(p + 1, 2, &zh) ||
		    !digits_parse(p + 4, 2, &zm))
			return false;
		return zh < 24 && zm < 60;
	}
	return false;
}

static bool url_host_is_valid(const char *h, size_t n)
{
	size_t i = 0;

	if (n > 0 && h[0] == '[') {
		const char *close = memchr(h, ']', n);

		if (!close)
			return false;
		i = (size_t) (close - h) + 1;
		if (i == 2)
			return false;
	} else {
		while (i < n && h[i] != ':') {
			if (!isalnum((unsigned char) h[i]) && !strchr("-._~%!$&'()*+,;=", h[i]))
				return false;
			i++;
		}
		if (i == 0)
			return false;
	}
	if (i == n)
		return true;
	if (h[i] != ':')
		return false;
	for (i++; i < n; i++)
		if (!is_digit(h[i]))
			return false;
	return true;
}

bool http_url_is_valid(const char *s)
{
	const char *rest, *auth_end, *at;
	size_t auth_len;

	if (strncasecmp(s, "http://", 7) == 0)
		rest = s + 7;
	else if (strncasecmp(s, "https://", 8) == 0)
		rest = s + 8;
	else
		return false;
	for (const char *p = s; *p; p++) {
		if ((unsigned char) *p <= 0x20 || *p == 0x7f)
			return false;
		if (*p == '%' &&
		    !(isxdigit((unsigned char) p[1]) && isxdigit((unsigned char) p[2])))
			return false;
	}
	auth_len = strcspn(rest, "/?#");
	auth_end = rest + auth_len;
	at = NULL;
	for (const char *p = rest; p < auth_end; p++)
		if (*p == '@')
			at = p;
	if (at)
		rest = at + 1;
	return url_host_is_valid(rest, (size_t) (auth_end - rest));
}

bool env_name_is_valid(const char *s)
{
	if (!(isalpha((unsigned char) s[0]) || s[0] == '_'))
		return false;
	for (const char *p = s + 1; *p; p++)
		if (!(isalnum((unsigned char) *p) || strchr("_.-", *p)))
			return false;
	return true;
}

bool errno_name_is_valid(const char *s)
{
	if (s[0] != 'E')
		return false;
	for (const char *p = s + 1; *p; p++)
		if (!((*p >= 'A' && *p <= 'Z') || is_digit(*p)))
			return false;
	return true;
}

bool octal_mode_parse(const char *s, uint32_t *ret)
{
	uint32_t v = 0;
	size_t n = strlen(s);

	if (n == 0 || n > 5)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '7')
			return false;
		v = v * 8 + (uint32_t) (s[i] - '0');
	}
	if (v > 07777)
		return false;
	*ret = v;
	return true;
}

bool ip_address_is_valid(const char *s)
{
	unsigned char buf[sizeof(struct in6_addr)];

	return inet_pton(AF_INET, s, buf) == 1 || inet_pton(AF_INET6, s, buf) == 1;
}

bool os_arch_is_valid(const char *os, const char *arch)
{
	static const struct {
		const char *os;
		const char *archs[11];
	} table[] = {
		{"linux",
		 {"amd64", "i386", "aarch64", "aarch64_be", "armv6l", "armv7l", "armv7b", "ppc64",
		  "ppc64le", "s390x", NULL}},
		{"freebsd", {"amd64", "i386", "arm", NULL}},
		{"darwin", {"x86_64", "i386", NULL}},
	};

	for (size_t i = 0; i < ARRAY_SIZE(table); i++) {
		if (strcmp(table[i].os, os) != 0)
			continue;
		if (!arch)
			return true;
		for (size_t j = 0; table[i].archs[j]; j++)
			if (strcmp(table[i].archs[j], arch) == 0)
				return true;
		return false;
	}
	return false;
}
