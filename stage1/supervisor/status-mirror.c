/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>

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

static int guest_code(const char *app, void *userdata)
{
	return guest_code_read(*(const int *) userdata, app);
}

int status_mirror(int pod_fd, const struct pod_manifest *pod)
{
	return pod_status_each(pod_fd, pod, guest_code, &pod_fd);
}
