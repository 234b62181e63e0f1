/* SPDX-License-Identifier: Apache-2.0 */
#include <stdbool.h>
#include <string.h>

#include "stage1/flags.h"

static bool is_lower_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

bool stage1_ac_name_is_valid(const char *s)
{
	size_t n;

	if (!s)
		return false;
	n = strlen(s);
	if (n == 0 || n > 512)
		return false;
	if (!is_lower_alnum(s[0]) || !is_lower_alnum(s[n - 1]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!is_lower_alnum(s[i]) && s[i] != '-')
			return false;
	return true;
}

static bool is_alnum(char c)
{
	return is_lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

bool stage1_hostname_is_valid(const char *s)
{
	size_t n, label = 0;

	if (!s)
		return false;
	n = strlen(s);
	if (n == 0 || n > 64)
		return false;
	for (size_t i = 0; i <= n; i++) {
		char c = s[i];

		if (c == '.' || c == '\0') {
			if (label == 0 || label > 63 || s[i - 1] == '-')
				return false;
			label = 0;
			continue;
		}
		if (!is_alnum(c) && c != '-')
			return false;
		if (label == 0 && c == '-')
			return false;
		label++;
	}
	return true;
}
