/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "pod-journal.h"
#include "pod-paths.h"
#include "pod-resources.h"
#include "stage1/atomic-write.h"

const char *pod_journal_host_dir(void)
{
	const char *e = secure_getenv("CC_HOST_JOURNAL_DIR");

	return e && *e ? e : POD_JOURNAL_HOST_DIR;
}

int pod_journal_unlink(const char *machine_id)
{
	char path[PATH_MAX];
	struct stat st;
	int n = snprintf(path, sizeof(path), "%s/%s", pod_journal_host_dir(), machine_id);

	if (n < 0 || (size_t) n >= sizeof(path))
		return -ENAMETOOLONG;
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	/* A directory there is the host's own journal of that machine ID: not ours. */
	if (!S_ISLNK(st.st_mode))
		return 0;
	return unlink(path) < 0 && errno != ENOENT ? -errno : 0;
}

int pod_journal_prepare(int pod_fd, const char *pod_dir, const char *machine_id,
			struct cc_warnings *warn, struct cc_error *err)
{
	_cleanup_close_ int host_fd = -1, journal_fd = -1, log_fd = -1;
	_cleanup_free_ char *target = NULL;
	const char *host = pod_journal_host_dir();
	struct stat st;
	int r;

	r = layer_mkdir_p(pod_fd, POD_JOURNAL_DIR, 0755, &journal_fd);
	if (r < 0)
		return cc_error_set(err, r, "%s: %m", POD_JOURNAL_DIR);
	/* guest/, root's alone above the export: whatever the guest (or its VMM) leaves in it,
	 * setuid files included, no other host user reaches. */
	log_fd = openat(journal_fd, "..", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (log_fd < 0 || fchmod(log_fd, 0700) < 0)
		return cc_error_set(err, errno, "%s/..: %m", POD_JOURNAL_DIR);
	host_fd = open(host, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (host_fd < 0) {
		if (errno != ENOENT)
			(void) cc_warnings_add(warn, "cannot link the pod's journal into %s: %m",
					       host);
		return 0;
	}
	if (asprintf(&target, "%s/" POD_JOURNAL_DIR "/%s", pod_dir, machine_id) < 0)
		return cc_error_set(err, ENOMEM, "%m");
	if (fstatat(host_fd, machine_id, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (!S_ISLNK(st.st_mode)) {
			(void) cc_warnings_add(
				warn,
				"%s/%s exists and is not a link: the pod's journal is not linked "
				"there",
				host, machine_id);
			return 0;
		}
		if (unlinkat(host_fd, machine_id, 0) < 0 && errno != ENOENT) {
			(void) cc_warnings_add(warn, "cannot replace the link %s/%s: %m", host,
					       machine_id);
			return 0;
		}
	}
	r = pod_resources_append(pod_fd, POD_RESOURCE_JOURNAL_LINK, machine_id);
	if (r < 0)
		return cc_error_set(err, r, "cannot record the journal link: %m");
	if (symlinkat(target, host_fd, machine_id) < 0) {
		(void) cc_warnings_add(warn, "cannot link %s/%s to the pod's journal: %m", host,
				       machine_id);
		return 0;
	}
	return 1;
}
