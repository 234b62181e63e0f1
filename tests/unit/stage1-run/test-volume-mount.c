/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Carrying out a volume plan (volume-mount.h) in a private mount namespace of the test's
 * own: host ro/rw, recursive and not, single-file, empty volumes shared between two apps,
 * and a target behind an escaping symlink; the host volumes' roots handed to the VMM (empty
 * volumes are not among them). Needs root.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "cctest.h"
#include "manifest/pod-manifest.h"
#include "volume-mount.h"
#include "volume-plan.h"

#define ID "sha512-0123456789abcdef"

static char *tmp;
static int pod_fd = -1;
static struct volume_roots roots;

static void sh(const char *fmt, ...) _printf_(1, 2);
static void sh(const char *fmt, ...)
{
	_cleanup_free_ char *cmd = NULL;
	va_list ap;

	va_start(ap, fmt);
	ck_assert_int_ge(vasprintf(&cmd, fmt, ap), 0);
	va_end(ap);
	ck_assert_msg(system(cmd) == 0, "%s", cmd);
}

static void setup(void)
{
	tmp = cctest_mkdtemp();
	ck_assert_int_eq(mount_ns_private(), 0);
	sh("cd %s && mkdir -p cc stage1/rootfs/opt/stage2/a/rootfs/etc "
	   "stage1/rootfs/opt/stage2/b/rootfs host/ro host/rw host/rec/sub outside && "
	   "echo secret >host/ro/data && echo conf >host/file && echo inner >host/rec/sub/x",
	   tmp);
	pod_fd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(pod_fd, 0);
}

static void teardown(void)
{
	pod_fd = safe_close(pod_fd);
	volume_roots_done(&roots);
	/* The mounts live in this forked test's own namespace: drop them, then the files. */
	sh("awk '{print $5}' /proc/self/mountinfo | grep '^%s/' | sort -r | "
	   "xargs -r -n1 umount -l",
	   tmp);
	(void) cctest_rm_rf(tmp);
	free(tmp);
}

static void apply(const char *mounts_a, const char *mounts_b, const char *volumes, int expect,
		  const char *expect_msg)
{
	_cleanup_(pod_manifest_freep) struct pod_manifest *pm = NULL;
	_cleanup_(volume_plan_done) struct volume_plan plan = {};
	_cleanup_free_ char *json = NULL;
	struct cc_error merr;
	struct cc_error err = {};
	int r;

	ck_assert_int_ge(
		asprintf(&json,
			 "{\"acVersion\":\"1.30.0\",\"acKind\":\"PodManifest\",\"apps\":["
			 "{\"name\":\"a\",\"image\":{\"id\":\"" ID "\"},\"app\":{\"exec\":[\"/x\"],"
			 "\"user\":\"0\",\"group\":\"0\"},\"mounts\":[%s]},"
			 "{\"name\":\"b\",\"image\":{\"id\":\"" ID "\"},\"app\":{\"exec\":[\"/x\"],"
			 "\"user\":\"0\",\"group\":\"0\"},\"mounts\":[%s]}],\"volumes\":[%s]}",
			 mounts_a, mounts_b, volumes),
		0);
	ck_assert_msg(pod_manifest_parse(json, strlen(json), &pm, &merr) == 0, "%s: %s",
		      merr.context, merr.msg);
	ASSERT_OK(volume_plan_build(pm, NULL, &plan, NULL, &err));
	r = volume_plan_apply(&plan, pod_fd, &roots, NULL, &err);
	ck_assert_msg(r == expect, "apply: %d (%s)", r, err.msg);
	if (expect_msg)
		ck_assert_msg(strstr(err.msg, expect_msg), "%s", err.msg);
}

static int write_at(const char *rel)
{
	char p[PATH_MAX];
	int fd;

	(void) snprintf(p, sizeof(p), "%s/stage1/rootfs/opt/stage2/%s", tmp, rel);
	fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	(void) close(fd);
	return 0;
}

static char *volumes_json(void)
{
	char *v = NULL;

	ck_assert_int_ge(
		asprintf(
			&v,
			"{\"name\":\"ro\",\"kind\":\"host\",\"source\":\"%1$s/host/ro\","
			"\"readOnly\":true},"
			"{\"name\":\"rw\",\"kind\":\"host\",\"source\":\"%1$s/host/rw\"},"
			"{\"name\":\"rec\",\"kind\":\"host\",\"source\":\"%1$s/host/rec\","
			"\"readOnly\":true},"
			"{\"name\":\"norec\",\"kind\":\"host\",\"source\":\"%1$s/host/rec\","
			"\"recursive\":false},"
			"{\"name\":\"file\",\"kind\":\"host\",\"source\":\"%1$s/host/file\","
			"\"readOnly\":true},"
			"{\"name\":\"e\",\"kind\":\"empty\",\"mode\":\"0770\",\"uid\":7,\"gid\":8}",
			tmp),
		0);
	return v;
}

/* Whether the host path tmp/rel is roots.v[i], owner included. */
static void assert_root(size_t i, const char *rel)
{
	char p[PATH_MAX];
	struct stat st;

	(void) snprintf(p, sizeof(p), "%s/%s", tmp, rel);
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_uint_lt(i, roots.n);
	ck_assert_uint_eq(roots.v[i].dev, st.st_dev);
	ck_assert_uint_eq(roots.v[i].ino, st.st_ino);
	ck_assert_uint_eq(roots.v[i].uid, st.st_uid);
	ck_assert_uint_eq(roots.v[i].gid, st.st_gid);
}

START_TEST(test_host_ro_rw_file)
{
	_cleanup_free_ char *vols = volumes_json(), *buf = NULL;
	char p[PATH_MAX];

	sh("chown 1000:1001 %s/host/rw", tmp);
	apply("{\"volume\":\"ro\",\"path\":\"/ro\"},{\"volume\":\"rw\",\"path\":\"/rw\"},"
	      "{\"volume\":\"file\",\"path\":\"/etc/conf\"}",
	      "", vols, 0, NULL);
	ck_assert_uint_eq(roots.n, 3);
	assert_root(0, "host/ro");
	assert_root(1, "host/rw");
	assert_root(2, "host/file");
	(void) snprintf(p, sizeof(p), "%s/stage1/rootfs/opt/stage2/a/rootfs/ro/data", tmp);
	ASSERT_OK(read_full_file(p, 64, &buf, NULL));
	ck_assert_str_eq(buf, "secret\n");
	ASSERT_ERRNO(write_at("a/rootfs/ro/new"), EROFS);
	ASSERT_OK(write_at("a/rootfs/rw/new"));
	sh("test -f %s/host/rw/new", tmp);
	free(buf);
	buf = NULL;
	(void) snprintf(p, sizeof(p), "%s/stage1/rootfs/opt/stage2/a/rootfs/etc/conf", tmp);
	ASSERT_OK(read_full_file(p, 64, &buf, NULL));
	ck_assert_str_eq(buf, "conf\n");
	ASSERT_ERRNO(write_at("a/rootfs/etc/conf"), EROFS);
}
END_TEST

START_TEST(test_recursive_read_only)
{
	_cleanup_free_ char *vols = volumes_json();

	/* A submount under the source: recursive binds carry it, read-only included. */
	sh("mount -t tmpfs tmpfs %s/host/rec/sub && echo sub >%s/host/rec/sub/y", tmp, tmp);
	apply("{\"volume\":\"rec\",\"path\":\"/rec\"},{\"volume\":\"norec\",\"path\":\"/norec\"}",
	      "", vols, 0, NULL);
	ck_assert_uint_eq(roots.n, 1); /* one source bound twice: one root */
	assert_root(0, "host/rec");
	sh("test -f %s/stage1/rootfs/opt/stage2/a/rootfs/rec/sub/y", tmp);
	ASSERT_ERRNO(write_at("a/rootfs/rec/sub/z"), EROFS);
	/* Not recursive: the submount is not there, the directory under it is. */
	sh("test -f %s/stage1/rootfs/opt/stage2/a/rootfs/norec/sub/x", tmp);
	sh("! test -e %s/stage1/rootfs/opt/stage2/a/rootfs/norec/sub/y", tmp);
	ASSERT_OK(write_at("a/rootfs/norec/w"));
}
END_TEST

START_TEST(test_empty_shared)
{
	_cleanup_free_ char *vols = volumes_json();
	struct stat st;
	char p[PATH_MAX];

	apply("{\"volume\":\"e\",\"path\":\"/shared\"}",
	      "{\"volume\":\"e\",\"path\":\"/deep/er/shared\"}", vols, 0, NULL);
	ck_assert_uint_eq(roots.n, 0); /* empty volumes keep passthrough */
	(void) snprintf(p, sizeof(p), "%s/cc/volumes/e", tmp);
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0770);
	ck_assert_uint_eq(st.st_uid, 7);
	ck_assert_uint_eq(st.st_gid, 8);
	ASSERT_OK(write_at("a/rootfs/shared/from-a"));
	sh("test -f %s/stage1/rootfs/opt/stage2/b/rootfs/deep/er/shared/from-a", tmp);
}
END_TEST

START_TEST(test_symlink_escape_mounts_inside)
{
	_cleanup_free_ char *vols = volumes_json();

	sh("ln -s ../../../../../../../../outside %s/stage1/rootfs/opt/stage2/a/rootfs/evil", tmp);
	/* The link names <rootfs>/outside in the app's view: missing, so refused. */
	apply("{\"volume\":\"rw\",\"path\":\"/evil/v\"}", "", vols, -ENOLINK,
	      "app a: mount target /evil/v of volume rw: Link has been severed");
	sh("! test -e %s/outside/v", tmp);
	sh("mkdir %s/stage1/rootfs/opt/stage2/a/rootfs/outside", tmp);
	apply("{\"volume\":\"rw\",\"path\":\"/evil/v\"}", "", vols, 0, NULL);
	sh("! test -e %s/outside/v", tmp);
	ASSERT_OK(write_at("a/rootfs/outside/v/mark"));
	sh("test -f %s/host/rw/mark", tmp);
}
END_TEST

START_TEST(test_source_changed_type)
{
	_cleanup_free_ char *vols = NULL;

	/* The plan saw a directory; it became a file before the mount. */
	ck_assert_int_ge(asprintf(&vols,
				  "{\"name\":\"x\",\"kind\":\"host\",\"source\":\"%s/host/ro\"}",
				  tmp),
			 0);
	{
		_cleanup_(pod_manifest_freep) struct pod_manifest *pm = NULL;
		_cleanup_(volume_plan_done) struct volume_plan plan = {};
		_cleanup_free_ char *json = NULL;
		struct cc_error err = {};

		ck_assert_int_ge(
			asprintf(&json,
				 "{\"acVersion\":\"1.30.0\",\"acKind\":\"PodManifest\","
				 "\"apps\":[{\"name\":\"a\",\"image\":{\"id\":\"" ID "\"},"
				 "\"app\":{\"exec\":[\"/x\"],\"user\":\"0\",\"group\":\"0\"},"
				 "\"mounts\":[{\"volume\":\"x\",\"path\":\"/x\"}]}],"
				 "\"volumes\":[%s]}",
				 vols),
			0);
		ASSERT_OK(pod_manifest_parse(json, strlen(json), &pm, NULL));
		ASSERT_OK(volume_plan_build(pm, NULL, &plan, NULL, &err));
		sh("rm -rf %1$s/host/ro && echo >%1$s/host/ro", tmp);
		ASSERT_ERRNO(volume_plan_apply(&plan, pod_fd, &roots, NULL, &err), ESTALE);
		ck_assert_uint_eq(roots.n, 0);
	}
}
END_TEST

START_TEST(test_app_rootfs_prepare)
{
	_cleanup_close_ int fd = -1;
	char p[PATH_MAX];

	(void) snprintf(p, sizeof(p), "%s/stage1/rootfs/opt/stage2/b/rootfs", tmp);
	fd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	sh("ln -s /tmp %s/run", p); /* an image's own symlink is followed, inside the rootfs */
	ASSERT_OK(app_rootfs_prepare(fd));
	sh("cd %s && test -d proc && test -d sys && test -d dev && test -d tmp && test -L run", p);
	ASSERT_OK(app_rootfs_prepare(fd));
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("stage1-volume-mount");
	TCase *tc = tcase_create("mount");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_host_ro_rw_file);
	tcase_add_test(tc, test_recursive_read_only);
	tcase_add_test(tc, test_empty_shared);
	tcase_add_test(tc, test_symlink_escape_mounts_inside);
	tcase_add_test(tc, test_source_changed_type);
	tcase_add_test(tc, test_app_rootfs_prepare);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	cctest_require_privileged(CLONE_NEWNS);
	return cctest_run_suite(suite());
}
