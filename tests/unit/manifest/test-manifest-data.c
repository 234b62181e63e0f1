/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Table-driven tests over tests/data/manifest/{valid,invalid}/ *.json. Every valid file must
 * validate and survive a normalize round trip unchanged; every invalid file has a sidecar
 * NAME.expect with the expected errno name on line 1 and the JSON path on line 2.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "cctest.h"
#include "manifest/image-manifest.h"
#include "manifest/limits.h"
#include "manifest/manifest.h"
#include "manifest/pod-manifest.h"

#define FILES_MAX 512

static char *valid_files[FILES_MAX];
static size_t n_valid;
static char *invalid_files[FILES_MAX];
static size_t n_invalid;

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

static size_t list_json(const char *sub, char **files)
{
	_cleanup_closedir_ DIR *d = NULL;
	_cleanup_free_ char *dir = NULL;
	struct dirent *de;
	size_t n = 0;

	if (asprintf(&dir, "%s/tests/data/manifest/%s", cctest_source_dir(), sub) < 0)
		abort();
	d = opendir(dir);
	if (!d) {
		fprintf(stderr, "cannot open %s: %m\n", dir);
		exit(EXIT_FAILURE);
	}
	while ((de = readdir(d)) && n < FILES_MAX) {
		size_t len = strlen(de->d_name);

		if (len < 6 || strcmp(de->d_name + len - 5, ".json") != 0)
			continue;
		if (asprintf(&files[n++], "%s/%s", dir, de->d_name) < 0)
			abort();
	}
	qsort(files, n, sizeof(char *), cmp_str);
	return n;
}

static int errno_from_name(const char *s)
{
	static const struct {
		const char *name;
		int e;
	} table[] = {
		{"EINVAL", EINVAL},
		{"EBADMSG", EBADMSG},
		{"EFBIG", EFBIG},
		{"E2BIG", E2BIG},
	};

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (strcmp(table[i].name, s) == 0)
			return table[i].e;
	return -1;
}

START_TEST(test_valid_manifest_validates)
{
	_cleanup_free_ char *buf = NULL, *json = NULL, *json2 = NULL;
	struct cc_error err;
	enum manifest_kind kind;
	size_t len;

	ASSERT_OK(read_full_file(valid_files[_i], MANIFEST_SIZE_MAX, &buf, &len));
	ck_assert_msg(manifest_validate(buf, len, &kind, &err) == 0, "%s: %s: %s", valid_files[_i],
		      err.context, err.msg);
	/* The normalized form is valid and a fixed point. */
	ASSERT_OK(manifest_normalize(buf, len, &json, &err));
	ck_assert_msg(manifest_normalize(json, strlen(json), &json2, &err) == 0, "%s: %s: %s",
		      valid_files[_i], err.context, err.msg);
	ck_assert_str_eq(json, json2);
}
END_TEST

START_TEST(test_valid_manifest_kind_matches_parser)
{
	_cleanup_(image_manifest_freep) struct image_manifest *im = NULL;
	_cleanup_(pod_manifest_freep) struct pod_manifest *pm = NULL;
	_cleanup_free_ char *buf = NULL;
	struct cc_error err;
	enum manifest_kind kind;
	size_t len;

	ASSERT_OK(read_full_file(valid_files[_i], MANIFEST_SIZE_MAX, &buf, &len));
	ASSERT_OK(manifest_detect_kind(buf, len, &kind, &err));
	if (kind == MANIFEST_KIND_IMAGE) {
		ASSERT_OK(image_manifest_load(valid_files[_i], &im, &err));
		ASSERT_ERRNO(pod_manifest_parse(buf, len, &pm, &err), EINVAL);
		ck_assert_str_eq(err.context, "acKind");
	} else {
		ASSERT_OK(pod_manifest_load(valid_files[_i], &pm, &err));
		ASSERT_ERRNO(image_manifest_parse(buf, len, &im, &err), EINVAL);
		ck_assert_str_eq(err.context, "acKind");
	}
}
END_TEST

START_TEST(test_invalid_manifest_names_path)
{
	const char *path = invalid_files[_i];
	_cleanup_free_ char *buf = NULL, *expect_path = NULL, *expect = NULL;
	char errno_name[32], want_path[CC_ERROR_CONTEXT_MAX];
	struct cc_error err;
	size_t len;
	int r, e;

	ck_assert_int_ge(asprintf(&expect_path, "%.*s.expect", (int) (strlen(path) - 5), path), 0);
	ASSERT_OK(read_full_file(expect_path, 4096, &expect, NULL));
	ck_assert_int_eq(sscanf(expect, "%31s %127s", errno_name, want_path), 2);
	e = errno_from_name(errno_name);
	ck_assert_msg(e > 0, "%s: unknown errno name %s", expect_path, errno_name);

	ASSERT_OK(read_full_file(path, MANIFEST_SIZE_MAX, &buf, &len));
	r = manifest_validate(buf, len, NULL, &err);
	ck_assert_msg(r == -e, "%s: returned %d (%s: %s), expected -%s", path, r, err.context,
		      err.msg, errno_name);
	ck_assert_msg(strcmp(err.context, want_path) == 0, "%s: error at %s (%s), expected at %s",
		      path, err.context, err.msg, want_path);
	ck_assert_msg(err.msg[0] != '\0', "%s: empty error message", path);
}
END_TEST

START_TEST(test_truncated_valid_manifests_fail_cleanly)
{
	_cleanup_free_ char *buf = NULL;
	struct cc_error err;
	const char *last;
	size_t len;

	ASSERT_OK(read_full_file(valid_files[_i], MANIFEST_SIZE_MAX, &buf, &len));
	/* Every prefix that lacks the closing brace of the top-level object is incomplete. */
	last = strrchr(buf, '}');
	ck_assert_ptr_nonnull(last);
	for (size_t cut = 0; cut <= (size_t) (last - buf); cut++) {
		ck_assert_int_lt(manifest_validate(buf, cut, NULL, &err), 0);
		ck_assert_str_eq(err.context, "$");
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("manifest-data");
	TCase *tc;

	n_valid = list_json("valid", valid_files);
	n_invalid = list_json("invalid", invalid_files);
	if (n_valid < 20 || n_invalid < 60) {
		fprintf(stderr, "too few data files: %zu valid, %zu invalid\n", n_valid, n_invalid);
		return EXIT_FAILURE;
	}

	tc = tcase_create("valid");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_valid_manifest_validates, 0, (int) n_valid);
	tcase_add_loop_test(tc, test_valid_manifest_kind_matches_parser, 0, (int) n_valid);
	tcase_add_loop_test(tc, test_truncated_valid_manifests_fail_cleanly, 0, (int) n_valid);
	suite_add_tcase(s, tc);

	tc = tcase_create("invalid");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_invalid_manifest_names_path, 0, (int) n_invalid);
	suite_add_tcase(s, tc);
	return cctest_run_suite(s);
}
