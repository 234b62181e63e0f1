/* SPDX-License-Identifier: Apache-2.0 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "readahead.h"

int readahead_set(const char *bdi_dir, const char *prefix, unsigned kib)
{
	_cleanup_closedir_ DIR *d = NULL;
	char value[16];
	int n = 0, err = 0;

	if (!bdi_dir || !prefix || !*prefix)
		return -EINVAL;
	d = opendir(bdi_dir);
	if (!d)
		return -errno;
	snprintf(value, sizeof(value), "%u", kib);
	for (struct dirent *e; (errno = 0, e = readdir(d));) {
		_cleanup_free_ char *path = NULL;
		int r;

		if (strncmp(e->d_name, prefix, strlen(prefix)) != 0)
			continue;
		if (asprintf(&path, "%s/%s/read_ahead_kb", bdi_dir, e->d_name) < 0)
			return -ENOMEM;
		r = write_string_file(path, value);
		if (r < 0) {
			if (!err)
				err = r;
			continue;
		}
		n++;
	}
	if (errno)
		return -errno;
	return err ? err : n;
}
