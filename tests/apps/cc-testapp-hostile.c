/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The hostile guest's steps of cc-testapp (the e2e attack tests, docs/stage1.md, "Host access
 * to guest-writable paths"): an app with every capability enters PID 1's mount namespace, where
 * the 9p shares are mounted (/rkt, /opt/stage2, /var/log/journal), and plants links and FIFOs
 * where the host reads and writes.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cc-testapp.h"

/* "A:B" into a (up to the colon) and *b; -1 if malformed. */
static int split_pair(const char *arg, char a[static 1024], const char **b)
{
	const char *colon = strchr(arg, ':');

	if (!colon || colon == arg || (size_t) (colon - arg) >= 1024 || !colon[1])
		return -1;
	memcpy(a, arg, (size_t) (colon - arg));
	a[colon - arg] = '\0';
	*b = colon + 1;
	return 0;
}

/* setns=PID: join PID's mount namespace (root and cwd become its root). */
void testapp_step_setns(const char *arg)
{
	char path[64];
	int fd;

	(void) snprintf(path, sizeof(path), "/proc/%s/ns/mnt", arg);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, CLONE_NEWNS) < 0) {
		testapp_say("setns %s errno=%s", arg, testapp_errno_name(errno));
		if (fd >= 0)
			(void) close(fd);
		return;
	}
	(void) close(fd);
	testapp_say("setns %s ok", arg);
}

/* symlink=TARGET:LINK */
void testapp_step_symlink(const char *arg)
{
	char target[1024];
	const char *link;

	if (split_pair(arg, target, &link) < 0)
		testapp_say("bad step argument %s", arg);
	else if (symlink(target, link) < 0)
		testapp_say("symlink %s errno=%s", link, testapp_errno_name(errno));
	else
		testapp_say("symlink %s ok", link);
}

/* rmdir=PATH (an empty directory; on an overlay a lower one too, where rename says EXDEV) */
void testapp_step_rmdir(const char *path)
{
	if (rmdir(path) < 0)
		testapp_say("rmdir %s errno=%s", path, testapp_errno_name(errno));
	else
		testapp_say("rmdir %s ok", path);
}

/* mkfifo=PATH */
void testapp_step_mkfifo(const char *path)
{
	if (mkfifo(path, 0644) < 0)
		testapp_say("mkfifo %s errno=%s", path, testapp_errno_name(errno));
	else
		testapp_say("mkfifo %s ok", path);
}
