/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc/cleanup.h"
#include "overlay.h"

static bool overlay_path_is_valid(const char *p)
{
	return p && p[0] == '/';
}

/* Append s to buf (length *len, room for OVERLAY_OPTIONS_MAX), escaping if asked. */
static int overlay_append(char *buf, size_t *len, const char *s, bool escape)
{
	for (; *s != '\0'; s++) {
		bool special = escape && (*s == ',' || *s == ':' || *s == '\\');

		if (*len + (special ? 2 : 1) >= OVERLAY_OPTIONS_MAX)
			return -E2BIG;
		if (special)
			buf[(*len)++] = '\\';
		buf[(*len)++] = *s;
	}
	buf[*len] = '\0';
	return 0;
}

int overlay_options_build(const char *const *lowers, size_t n_lowers, const char *upper,
			  const char *work, char **ret)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	int r;

	if (!lowers || n_lowers == 0 || !ret)
		return -EINVAL;
	if (!overlay_path_is_valid(upper) || !overlay_path_is_valid(work))
		return -EINVAL;
	for (size_t i = 0; i < n_lowers; i++)
		if (!overlay_path_is_valid(lowers[i]))
			return -EINVAL;

	buf = malloc(OVERLAY_OPTIONS_MAX);
	if (!buf)
		return -ENOMEM;
	buf[0] = '\0';

	r = overlay_append(buf, &len, "lowerdir=", false);
	for (size_t i = 0; r >= 0 && i < n_lowers; i++) {
		if (i > 0)
			r = overlay_append(buf, &len, ":", false);
		if (r >= 0)
			r = overlay_append(buf, &len, lowers[i], true);
	}
	if (r >= 0)
		r = overlay_append(buf, &len, ",upperdir=", false);
	if (r >= 0)
		r = overlay_append(buf, &len, upper, true);
	if (r >= 0)
		r = overlay_append(buf, &len, ",workdir=", false);
	if (r >= 0)
		r = overlay_append(buf, &len, work, true);
	if (r < 0)
		return r;

	*ret = TAKE_PTR(buf);
	return 0;
}
