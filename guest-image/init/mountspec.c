/* SPDX-License-Identifier: Apache-2.0 */
/* cc.mount=<tag>:<path> values (see cmdline.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cc/cleanup.h"
#include "cmdline.h"

#define MOUNT_PATH_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._/+@-"

static bool mount_path_is_valid(const char *path)
{
	size_t n = strlen(path);
	const char *c;

	if (n < 2 || n > CMDLINE_MOUNT_PATH_MAX || path[0] != '/' || path[n - 1] == '/')
		return false;
	if (strspn(path, MOUNT_PATH_CHARS) != n)
		return false;
	/* Every component is non-empty and neither "." nor "..". */
	for (c = path; *c != '\0';) {
		size_t len;

		c++;
		len = strcspn(c, "/");
		if (len == 0 || (len == 1 && c[0] == '.') ||
		    (len == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		c += len;
	}
	return true;
}

int cmdline_mount_parse(const char *value, struct cmdline_mount *ret)
{
	_cleanup_free_ char *tag = NULL, *path = NULL;
	const char *colon;

	if (!value || !ret)
		return -EINVAL;
	colon = strchr(value, ':');
	if (!colon)
		return -EINVAL;
	tag = strndup(value, (size_t) (colon - value));
	if (!tag)
		return -ENOMEM;
	if (!cmdline_pod_tag_is_valid(tag) || !mount_path_is_valid(colon + 1))
		return -EINVAL;
	path = strdup(colon + 1);
	if (!path)
		return -ENOMEM;
	*ret = (struct cmdline_mount){.tag = TAKE_PTR(tag), .path = TAKE_PTR(path)};
	return 0;
}

void cmdline_mount_done(struct cmdline_mount *m)
{
	if (!m)
		return;
	free(m->tag);
	free(m->path);
	m->tag = m->path = NULL;
}
