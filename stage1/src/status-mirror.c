/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

#include "cc/beneath.h"
#include "cc/cleanup.h"
#include "pod-exit.h"
#include "pod-paths.h"
#include "status-mirror.h"

/* The app's code in the guest's status dir, or a negative errno: whatever is not one is none. */
static int guest_code_read(int pod_fd, const char *app)
{
	_cleanup_free_ char *buf = NULL;
	char path[PATH_MAX];
	size_t len;
	int code, r;

	if (snprintf(path, sizeof(path), POD_GUEST_STATUS_DIR "/%s", app) >= (int) sizeof(path))
		return -ENAMETOOLONG;
	r = beneath_read(pod_fd, path, POD_EXIT_SIZE_MAX, &buf, &len);
	if (r < 0)
		return r;
	r = pod_exit_parse(buf, len, &code);
	return r < 0 ? r : code;
}

int status_mirror(int pod_fd, const struct pod_manifest *pod)
{
	_cleanup_close_ int status_fd = -1;
	int copied = 0, first_err = 0;

	assert_return(pod, -EINVAL);
	status_fd = beneath_open(pod_fd, POD_STATUS_DIR, O_PATH | O_DIRECTORY, S_IFDIR);
	if (status_fd < 0)
		return status_fd;
	for (size_t i = 0; i < pod->n_apps; i++) {
		const char *app = pod->apps[i].name;
		struct stat st;
		int code, r;

		if (fstatat(status_fd, app, &st, AT_SYMLINK_NOFOLLOW) == 0)
			continue;
		code = guest_code_read(pod_fd, app);
		if (code < 0)
			continue;
		r = pod_status_write(status_fd, app, code);
		if (r == -EEXIST)
			continue;
		if (r < 0) {
			if (first_err == 0)
				first_err = r;
			continue;
		}
		copied++;
	}
	return first_err < 0 ? first_err : copied;
}
