/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "cc/cleanup.h"
#include "pod-paths.h"
#include "root-path.h"
#include "vmm-root.h"

int vmm_root_prepare(int pod_fd)
{
	_cleanup_close_ int root_fd = -1, proc_fd = -1;
	char path[64];
	int r;

	root_fd = openat(pod_fd, POD_STAGE1_ROOTFS, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (root_fd < 0)
		return -errno;
	/* Beneath the rootfs: a symlink in the (image-made) rootfs cannot send it elsewhere. */
	r = root_path_open_create(root_fd, "/proc", ROOT_PATH_DIR, &proc_fd, NULL);
	if (r < 0)
		return r;
	(void) snprintf(path, sizeof(path), "/proc/self/fd/%d", proc_fd);
	return RET_NERRNO(
		mount("proc", path, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "subset=pid"));
}
