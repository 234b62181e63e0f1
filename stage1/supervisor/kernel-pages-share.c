/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/kernel-pages-file.h"
#include "cc/kernel-pages-filler.h"
#include "kernel-pages-share.h"

int kernel_pages_share_start(const char *dir, const char *kernel, struct kernel_pages_share *ks,
			     struct cc_error *reterr)
{
	_cleanup_close_ int kernel_fd = -1;
	char path[PATH_MAX];
	pid_t pid;
	int fds[2], r;

	if (!dir || !kernel || !ks)
		return cc_error_set(reterr, -EINVAL, "kernel pages: no directory or kernel");
	kernel_fd = open(kernel, O_RDONLY | O_CLOEXEC);
	if (kernel_fd < 0)
		return cc_error_set(reterr, -errno, "kernel pages: cannot open %s: %m", kernel);
	r = kernel_pages_file_path(dir, kernel_fd, path, sizeof(path));
	if (r < 0)
		return cc_error_set(reterr, r, "kernel pages: cannot name the file in %s: %m", dir);
	r = kernel_pages_filler_spawn(path, kernel_fd, KERNEL_PAGES_FILLER_DEADLINE_MS, &pid,
				      &fds[0], &fds[1]);
	if (r < 0)
		return cc_error_set(reterr, r,
				    "kernel pages: cannot open %s or start its filler: %m", path);
	*ks = (struct kernel_pages_share){.filler = pid, .fds = {fds[0], fds[1]}};
	return 0;
}

void kernel_pages_share_fds_close(struct kernel_pages_share *ks)
{
	if (ks->filler <= 0)
		return;
	ks->fds[0] = safe_close(ks->fds[0]);
	ks->fds[1] = safe_close(ks->fds[1]);
}

void kernel_pages_share_end(struct kernel_pages_share *ks)
{
	if (ks->filler <= 0)
		return;
	kernel_pages_share_fds_close(ks);
	(void) kill(ks->filler, SIGTERM);
	while (waitpid(ks->filler, NULL, 0) < 0 && errno == EINTR)
		;
	ks->filler = 0;
}
