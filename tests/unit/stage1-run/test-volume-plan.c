/* SPDX-License-Identifier: Apache-2.0 */
/* Volume planning (volume-plan.h): spec errors, single-file volumes, implicit volumes. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cctest.h"
#include "manifest/pod-manifest.h"
#include "volume-plan.h"

#define ID "sha512-0123456789abcdef"

static char *tmp;

static void setup(void)
{
	tmp = cctest_mkdtemp();
}

static void teardown(void)
{
	(void) cctest_rm_rf(tmp);
	free(tmp);
}

/* A pod with app "a" (mountPoints mps, mounts mounts) and app "b" (mounts mounts_b). */
static struct pod_manifest *pod_new(const char *mps, const char *mounts, const char *mounts_b,
				    const char *volumes)
{
	struct pod_manifest *pm = NULL;
	struct cc_error err;
	_cleanup_free_ char *json = NULL;

	ck_assert_int_ge(asprintf(&json,
				  "{\"acVersion\":\"1.30.0\",\"acKind\":\"PodManifest\",\"apps\":["
				  "{\"name\":\"a\",\"image\":{\"id\":\"" ID "\"},\"app\":{\"exec\":"
				  "[\"/x\"],\"user\":\"0\",\"group\":\"0\",\"mountPoints\":[%s]},"
				  "\"mounts\":[%s]},"
				  "{\"name\":\"b\",\"image\":{\"id\":\"" ID "\"},\"app\":{\"exec\":"
				  "[\"/x\"],\"user\":\"0\",\"group\":\"0\"},\"mounts\":[%s]}],"
				  "\"volumes\":[%s]}",
				  mps, mounts, mounts_b, volumes),
			 0);
	ck_assert_msg(pod_manifest_parse(json, strlen(json), &pm, &err) == 0, "%s: %s", err.context,
		      err.msg);
	return pm;
}

static size_t warnings;

static int plan(struct pod_manifest *pm, struct volume_plan *p, struct cc_error *err)
{
	struct cc_warnings w = {};
	int r;

	r = volume_plan_build(pm, NULL, p, &w, err);
	warnings = cc_warnings_count(&w);
	cc_warnings_done(&w);
	return r;
}

START_TEST(test_normalize)
{
	static const char *const cases[][2] = {
		{"/", "/"},
		{"//a//b/", "/a/b"},
		{"/a/./b/.", "/a/b"},
		{"/a/b/../c", "/a/c"},
		{"/../../x", "/x"},
		{"/a/b/../..", "/"},
		{"/a/b/../../..", "/"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		_cleanup_free_ char *out = NULL;

		ASSERT_OK(volume_path_normalize(cases[i][0], &out));
		ck_assert_str_eq(out, cases[i][1]);
	}
	{
		_cleanup_free_ char *out = NULL;

		ASSERT_ERRNO(volume_path_normalize("rel/x", &out), EINVAL);
	}
}
END_TEST

START_TEST(test_overlap)
{
	ck_assert(volume_paths_overlap("/a", "/a"));
	ck_assert(volume_paths_overlap("/a", "/a/b"));
	ck_assert(volume_paths_overlap("/a/b/c", "/a/b"));
	ck_assert(volume_paths_overlap("/", "/x"));
	ck_assert(!volume_paths_overlap("/a", "/ab"));
	ck_assert(!volume_paths_overlap("/ab/c", "/a"));
	ck_assert(!volume_paths_overlap("/a/b", "/a/c"));
}
END_TEST

START_TEST(test_host_empty_and_single_file)
{
	_cleanup_(pod_manifest_freep) struct pod_manifest *pm = NULL;
	_cleanup_(volume_plan_done) struct volume_plan p = {};
	_cleanup_free_ char *vols = NULL, *file = NULL;
	struct cc_error err = {};

	ck_assert_int_ge(asprintf(&file, "%s/f", tmp), 0);
	ck_assert_int_eq(close(open(file, O_CREAT | O_WRONLY | O_CLOEXEC, 0644)), 0);
	ck_assert_int_ge(
		asprintf(&vols,
			 "{\"name\":\"h\",\"kind\":\"host\",\"source\":\"%s\",\"readOnly\":"
			 "true},{\"name\":\"f\",\"kind\":\"host\",\"source\":\"%s\","
			 "\"recursive\":false},{\"name\":\"e\",\"kind\":\"empty\",\"mode\":"
			 "\"0770\",\"uid\":7,\"gid\":8}",
			 tmp, file),
		0);
	pm = pod_new("",
		     "{\"volume\":\"h\",\"path\":\"/h\"},{\"volume\":\"f\",\"path\":\"/etc/f\"},"
		     "{\"volume\":\"e\",\"path\":\"/shared/./e/\"}",
		     "{\"volume\":\"e\",\"path\":\"/e\"}", vols);
	ASSERT_OK(plan(pm, &p, &err));
	ck_assert_int_eq(warnings, 0);
	ck_assert_uint_eq(p.n_mounts, 4);
	ck_assert_str_eq(p.mounts[0].app, "a");
	ck_assert_str_eq(p.mounts[0].target, "/h");
	ck_assert(p.mounts[0].read_only && p.mounts[0].recursive && !p.mounts[0].single_file);
	ck_assert(!p.mounts[0].empty);
	ck_assert_str_eq(p.mounts[0].source, tmp);
	ck_assert(p.mounts[1].single_file && !p.mounts[1].recursive && !p.mounts[1].read_only);
	ck_assert_str_eq(p.mounts[2].target, "/shared/e");
	ck_assert(p.mounts[2].empty);
	ck_assert_str_eq(p.mounts[3].app, "b");
	ck_assert_str_eq(p.mounts[3].volume, "e");
	/* The empty volume is created once, shared by both apps. */
	ck_assert_uint_eq(p.n_empties, 1);
	ck_assert_str_eq(p.empties[0].name, "e");
	ck_assert_uint_eq(p.empties[0].mode, 0770);
	ck_assert_uint_eq(p.empties[0].uid, 7);
	ck_assert_uint_eq(p.empties[0].gid, 8);
}
END_TEST

START_TEST(test_missing_host_source)
{
	_cleanup_(pod_manifest_freep) struct pod_manifest *pm = NULL;
	_cleanup_(volume_plan_done) struct volume_plan p = {};
	_cleanup_free_ char *vols = NULL;
	struct cc_error err = {};

	ck_assert_int_ge(
		asprintf(&vols, "{\"name\":\"h\",\"kind\":\"host\",\"source\":\"%s/nope\"}", tmp),
		0);
	pm = pod_new("", "{\"volume\":\"h\",\"path\":\"/h\"}", "", vols);
	ASSERT_ERRNO(plan(pm, &p, &err), ENOENT);
	ck_assert_msg(strstr(err.msg, "volume h: host source ") && strstr(err.msg, "/nope"), "%s",
		      err.msg);
	ck_assert_uint_eq(p.n_mounts, 0);
}
END_TEST

START_TEST(test_overlapping_targets)
{
	static const char *const mounts[] = {
		"{\"volume\":\"e\",\"path\":\"/d\"},{\"volume\":\"f\",\"path\":\"/d/x\"}",
		"{\"volume\":\"e\",\"path\":\"/d/x\"},{\"volume\":\"f\",\"path\":\"/d\"}",
		"{\"volume\":\"e\",\"path\":\"/d\"},{\"volume\":\"f\",\"path\":\"//d/.\"}",
		"{\"volume\":\"e\",\"path\":\"/d/y/../x\"},{\"volume\":\"f\",\"path\":\"/d/x/z\"}",
	};

	for (size_t i = 0; i < sizeof(mounts) / sizeof(mounts[0]); i++) {
		_cleanup_(pod_manifest_freep) struct pod_manifest *pm = NULL;
		_cleanup_(volume_plan_done) struct volume_plan p = {};
		struct cc_error err = {};

		pm = pod_new(
			"", mounts[i], "",
			"{\"name\":\"e\",\"kind\":\"empty\"},{\"name\":\"f\",\"kind\":\"empty\"}");
		ASSERT_ERRNO(plan(pm, &p, &err), EINVAL);
		ck_assert_msg(strstr(err.msg, "app a: mount targets overlap"), "%s", err.msg);
	}
}
END_TEST

START_TEST(test_same_target_in_two_apps_is_fine)
{
	_cleanup_(pod_manifest_freep) struct pod_manifest *pm = NULL;
	_cleanup_(volume_plan_done) struct volume_plan p = {};
	struct cc_error err = {};

	pm = pod_new("", "{\"volume\":\"e\",\"path\":\"/d\"}", "{\"volume\":\"f\",\"path\":\"/d\"}",
		     "{\"name\":\"e\",\"kind\":\"empty\"},{\"name\":\"f\",\"kind\":\"empty\"}");
	ASSERT_OK(plan(pm, &p, &err));
	ck_assert_uint_eq(p.n_mounts, 2);
	ck_assert_uint_eq(p.n_empties, 2);
}
END_TEST

START_TEST(test_root_target_refused)
{
	_cleanup_(pod_manifest_freep) struct pod_manifest *pm = NULL;
	_cleanup_(volume_plan_done) struct volume_plan p = {};
	struct cc_error err = {};

	pm = pod_new("", "{\"volume\":\"e\",\"path\":\"/x/..\"}", "",
		     "{\"name\":\"e\",\"kind\":\"empty\"}");
	ASSERT_ERRNO(plan(pm, &p, &err), EINVAL);
	ck_assert_msg(strstr(err.msg, "cannot be mounted on \"/\""), "%s", err.msg);
}
END_TEST

START_TEST(test_unknown_volume)
{
	_cleanup_(pod_manifest_freep) struct pod_manifest *pm = NULL;
	_cleanup_(volume_plan_done) struct volume_plan p = {};
	struct cc_error err = {};

	pm = pod_new("", "", "{\"volume\":\"ghost\",\"path\":\"/g\"}",
		     "{\"name\":\"e\",\"kind\":\"empty\"}");
	ASSERT_ERRNO(plan(pm, &p, &err), ENOENT);
	ck_assert_str_eq(err.msg, "app b: mount of unknown volume \"ghost\" at /g");
}
END_TEST

START_TEST(test_mount_points)
{
	_cleanup_(pod_manifest_freep) struct pod_manifest *pm = NULL;
	_cleanup_(volume_plan_done) struct volume_plan p = {};
	struct cc_error err = {};

	/* "data": fulfilled by the pod mount at the same path (read-only from the mount point);
	 * "named": by the pod volume of that name; "implicit": an implicit empty volume. */
	pm = pod_new("{\"name\":\"data\",\"path\":\"/data\",\"readOnly\":true},"
		     "{\"name\":\"named\",\"path\":\"/named\"},"
		     "{\"name\":\"implicit\",\"path\":\"/imp\",\"readOnly\":true}",
		     "{\"volume\":\"v\",\"path\":\"/data\"}", "",
		     "{\"name\":\"v\",\"kind\":\"empty\"},{\"name\":\"named\",\"kind\":\"empty\","
		     "\"readOnly\":false}");
	ASSERT_OK(plan(pm, &p, &err));
	ck_assert_int_eq(warnings, 1);
	ck_assert_uint_eq(p.n_mounts, 3);
	ck_assert_str_eq(p.mounts[0].volume, "v");
	ck_assert(p.mounts[0].read_only);
	ck_assert_str_eq(p.mounts[1].volume, "named");
	ck_assert(!p.mounts[1].read_only);
	ck_assert_str_eq(p.mounts[2].volume, "implicit");
	ck_assert_str_eq(p.mounts[2].target, "/imp");
	ck_assert(p.mounts[2].empty && p.mounts[2].read_only);
	ck_assert_uint_eq(p.n_empties, 3);
	ck_assert_uint_eq(p.empties[2].mode, 0755);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("stage1-volume-plan");
	TCase *tc = tcase_create("plan");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_normalize);
	tcase_add_test(tc, test_overlap);
	tcase_add_test(tc, test_host_empty_and_single_file);
	tcase_add_test(tc, test_missing_host_source);
	tcase_add_test(tc, test_overlapping_targets);
	tcase_add_test(tc, test_same_target_in_two_apps_is_fine);
	tcase_add_test(tc, test_root_target_refused);
	tcase_add_test(tc, test_unknown_volume);
	tcase_add_test(tc, test_mount_points);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(suite());
}
