/* SPDX-License-Identifier: Apache-2.0 */
/* The stage1 helpers (effective app, isolator/volume lookup) and the input limits. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc/cleanup.h"
#include "cctest.h"
#include "manifest/image-manifest.h"
#include "manifest/limits.h"
#include "manifest/manifest.h"
#include "manifest/pod-manifest.h"
#include "manifest/quantity.h"

#define ID "sha512-0123456789abcdef"

static const char pod_json[] =
	"{\"acVersion\":\"1.30.0+git171c416f\",\"acKind\":\"PodManifest\",\"apps\":["
	"{\"name\":\"web\",\"image\":{\"id\":\"" ID "\"},"
	" \"app\":{\"exec\":[\"/pod/exec\"],\"user\":\"1\",\"group\":\"2\","
	"  "
	"\"mountPoints\":[{\"name\":\"data\",\"path\":\"/data\"},{\"name\":\"etc\",\"path\":\"/"
	"e\"}],"
	"  \"isolators\":["
	"   {\"name\":\"resource/memory\",\"value\":{\"limit\":\"1G\"}},"
	"   {\"name\":\"resource/memory\",\"value\":{\"request\":\"64Mi\",\"limit\":\"128Mi\"}},"
	"   {\"name\":\"resource/cpu\",\"value\":{\"limit\":\"1500m\"}},"
	"   "
	"{\"name\":\"os/linux/"
	"seccomp-remove-set\",\"value\":{\"set\":[\"reboot\"],\"errno\":\"EPERM\"}},"
	"   {\"name\":\"os/linux/oom-score-adj\",\"value\":-17},"
	"   {\"name\":\"os/linux/no-new-privileges\",\"value\":true},"
	"   {\"name\":\"example.com/custom\",\"value\":{\"k\":[1,2]}}]},"
	" \"mounts\":[{\"volume\":\"data\",\"path\":\"/data\"},"
	"  "
	"{\"volume\":\"etc\",\"path\":\"/"
	"e\",\"appVolume\":{\"name\":\"etc\",\"kind\":\"host\",\"source\":\"/"
	"etc\",\"readOnly\":true}}]},"
	"{\"name\":\"side\",\"image\":{\"id\":\"" ID "\"}}],"
	"\"volumes\":[{\"name\":\"data\",\"kind\":\"empty\"},{\"name\":\"etc\",\"kind\":\"empty\","
	"\"mode\":\"0700\",\"uid\":5}],"
	"\"isolators\":[{\"name\":\"os/unix/sysctl\",\"value\":{\"net.ipv4.ip_forward\":\"1\"}}],"
	"\"annotations\":null,\"ports\":[]}";

static const char image_json[] =
	"{\"acKind\":\"ImageManifest\",\"acVersion\":\"0.8.11\",\"name\":\"example.com/side\","
	"\"app\":{\"exec\":[\"/image/exec\"],\"user\":\"0\",\"group\":\"0\","
	"\"isolators\":[{\"name\":\"resource/"
	"network-bandwidth\",\"value\":{\"default\":true,\"limit\":\"10M\"}}]}}";

START_TEST(test_effective_app_pod_app_replaces_image_app)
{
	_cleanup_(pod_manifest_freep) struct pod_manifest *pm = NULL;
	_cleanup_(image_manifest_freep) struct image_manifest *im = NULL;
	struct cc_error err;
	const struct manifest_app *app;
	const struct pod_app *web, *side;

	ck_assert_msg(pod_manifest_parse(pod_json, strlen(pod_json), &pm, &err) == 0, "%s: %s",
		      err.context, err.msg);
	ASSERT_OK(image_manifest_parse(image_json, strlen(image_json), &im, &err));
	web = pod_manifest_find_app(pm, "web");
	side = pod_manifest_find_app(pm, "side");
	ck_assert_ptr_nonnull(web);
	ck_assert_ptr_nonnull(side);
	ck_assert_ptr_null(pod_manifest_find_app(pm, "nope"));

	/* The pod's app wins wholesale: nothing of the image's app leaks in. */
	app = pod_app_effective_app(web, im);
	ck_assert_ptr_eq(app, web->app);
	ck_assert_str_eq(app->exec.items[0], "/pod/exec");
	ck_assert_ptr_null(manifest_isolators_find(&app->isolators, "resource/network-bandwidth"));
	/* Without a pod app, the image's app is used; without either, none. */
	app = pod_app_effective_app(side, im);
	ck_assert_ptr_eq(app, im->app);
	ck_assert_str_eq(app->exec.items[0], "/image/exec");
	ck_assert_ptr_null(pod_app_effective_app(side, NULL));
}
END_TEST

START_TEST(test_isolator_lookup_is_typed)
{
	_cleanup_(pod_manifest_freep) struct pod_manifest *pm = NULL;
	const struct manifest_isolator *iso;
	const struct manifest_app *app;
	struct cc_error err;
	uint64_t v;

	ASSERT_OK(pod_manifest_parse(pod_json, strlen(pod_json), &pm, &err));
	app = pm->apps[0].app;

	/* The last of several instances wins, as appc's GetByName. */
	iso = manifest_isolators_find(&app->isolators, "resource/memory");
	ck_assert_ptr_nonnull(iso);
	ck_assert_int_eq(iso->type, MANIFEST_ISOLATOR_RESOURCE_MEMORY);
	ASSERT_OK(manifest_resource_get_limit(iso, &v));
	ck_assert_uint_eq(v, 128ull << 20);
	ASSERT_OK(manifest_resource_get_request(iso, &v));
	ck_assert_uint_eq(v, 64ull << 20);

	iso = manifest_isolators_find_type(&app->isolators, MANIFEST_ISOLATOR_RESOURCE_CPU);
	ck_assert_ptr_nonnull(iso);
	ASSERT_OK(manifest_resource_get_limit(iso, &v));
	ck_assert_uint_eq(v, 1500);
	ASSERT_OK(manifest_resource_get_request(iso, &v)); /* defaults to the limit */
	ck_assert_uint_eq(v, 1500);

	iso = manifest_isolators_find_type(&app->isolators, MANIFEST_ISOLATOR_SECCOMP_REMOVE);
	ck_assert_ptr_nonnull(iso);
	ck_assert_uint_eq(iso->v.set.n, 1);
	ck_assert_str_eq(iso->v.set.names[0], "reboot");
	ck_assert_str_eq(iso->v.set.errno_name, "EPERM");
	ASSERT_ERRNO(manifest_resource_get_limit(iso, &v), EINVAL);

	iso = manifest_isolators_find_type(&app->isolators, MANIFEST_ISOLATOR_OOM_SCORE_ADJ);
	ck_assert_int_eq(iso->v.oom_score_adj, -17);
	iso = manifest_isolators_find_type(&app->isolators, MANIFEST_ISOLATOR_NO_NEW_PRIVILEGES);
	ck_assert(iso->v.no_new_privileges);

	/* Unknown isolators are kept with their raw value. */
	iso = manifest_isolators_find(&app->isolators, "example.com/custom");
	ck_assert_ptr_nonnull(iso);
	ck_assert_int_eq(iso->type, MANIFEST_ISOLATOR_UNKNOWN);
	ck_assert_str_eq(iso->raw_json, "{\"k\":[1,2]}");

	iso = manifest_isolators_find_type(&pm->isolators, MANIFEST_ISOLATOR_SYSCTL);
	ck_assert_ptr_nonnull(iso);
	ck_assert_uint_eq(iso->v.sysctl.n, 1);
	ck_assert_str_eq(iso->v.sysctl.keys[0], "net.ipv4.ip_forward");
	ck_assert_str_eq(iso->v.sysctl.values[0], "1");

	ck_assert_int_eq(manifest_isolator_type_from_name("os/linux/cpu-shares"),
			 MANIFEST_ISOLATOR_CPU_SHARES);
	ck_assert_str_eq(manifest_isolator_type_to_name(MANIFEST_ISOLATOR_CPU_SHARES),
			 "os/linux/cpu-shares");
}
END_TEST

START_TEST(test_resource_without_limit_has_no_data)
{
	static const char json[] = "{\"acKind\":\"ImageManifest\",\"acVersion\":\"0.8.11\","
				   "\"name\":\"a\",\"app\":{\"user\":\"0\",\"group\":\"0\","
				   "\"isolators\":[{\"name\":\"resource/memory\",\"value\":{}}]}}";
	_cleanup_(image_manifest_freep) struct image_manifest *im = NULL;
	struct cc_error err;
	uint64_t v;

	ASSERT_OK(image_manifest_parse(json, strlen(json), &im, &err));
	ASSERT_ERRNO(manifest_resource_get_limit(&im->app->isolators.items[0], &v), ENODATA);
	ASSERT_ERRNO(manifest_resource_get_request(&im->app->isolators.items[0], &v), ENODATA);
}
END_TEST

START_TEST(test_volume_lookup_prefers_app_volume)
{
	_cleanup_(pod_manifest_freep) struct pod_manifest *pm = NULL;
	const struct manifest_volume *vol;
	const struct pod_app *web;
	const struct pod_mount *mnt;
	struct manifest_mount_point mp = {};
	struct cc_error err;

	ASSERT_OK(pod_manifest_parse(pod_json, strlen(pod_json), &pm, &err));
	web = &pm->apps[0];

	mnt = pod_app_find_mount(web, &web->app->mount_points[0]);
	ck_assert_ptr_eq(mnt, &web->mounts[0]);
	vol = pod_manifest_find_volume(pm, mnt);
	ck_assert_ptr_eq(vol, &pm->volumes[0]);
	ck_assert_int_eq(vol->kind, MANIFEST_VOLUME_EMPTY);
	ck_assert_uint_eq(vol->mode, 0755); /* appc defaults */
	ck_assert_uint_eq(vol->uid, 0);

	/* The inline appVolume overrides the pod volume of the same name. */
	mnt = pod_app_find_mount(web, &web->app->mount_points[1]);
	ck_assert_ptr_eq(mnt, &web->mounts[1]);
	vol = pod_manifest_find_volume(pm, mnt);
	ck_assert_ptr_eq(vol, web->mounts[1].app_volume);
	ck_assert_int_eq(vol->kind, MANIFEST_VOLUME_HOST);
	ck_assert_str_eq(vol->source, "/etc");
	ck_assert_int_eq(vol->read_only, MANIFEST_TRUE);
	ck_assert_int_eq(vol->recursive, MANIFEST_UNSET);

	ck_assert_ptr_null(
		pod_manifest_find_volume(pm, &(struct pod_mount){.volume = "x", .path = "/"}));

	/* Matching by path first, then by volume name. */
	mp.name = "other";
	mp.path = "/data";
	ck_assert_ptr_eq(pod_app_find_mount(web, &mp), &web->mounts[0]);
	mp.name = "etc";
	mp.path = "/elsewhere";
	ck_assert_ptr_eq(pod_app_find_mount(web, &mp), &web->mounts[1]);
	mp.name = "none";
	mp.path = "/none";
	ck_assert_ptr_null(pod_app_find_mount(web, &mp));
}
END_TEST

static char *repeat_json(const char *head, const char *item, size_t n, const char *tail)
{
	size_t hl = strlen(head), il = strlen(item), tl = strlen(tail);
	char *s = malloc(hl + n * (il + 1) + tl + 1), *p;

	ck_assert_ptr_nonnull(s);
	p = stpcpy(s, head);
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			*p++ = ',';
		p = stpcpy(p, item);
	}
	strcpy(p, tail);
	return s;
}

START_TEST(test_limits_give_clean_errors)
{
	_cleanup_free_ char *big = NULL, *arr = NULL, *longstr = NULL, *deep = NULL;
	struct cc_error err;
	size_t prefix;

	/* Larger than MANIFEST_SIZE_MAX: refused before parsing. */
	big = repeat_json("{\"acKind\":\"PodManifest\",\"x\":[", "0", MANIFEST_SIZE_MAX / 2 + 1,
			  "]}");
	ASSERT_ERRNO(manifest_validate(big, strlen(big), NULL, &err), EFBIG);
	ck_assert_str_eq(err.context, "$");

	/* Too many elements in one array. */
	arr = repeat_json("{\"acKind\":\"ImageManifest\",\"acVersion\":\"0.8.11\",\"name\":\"a\","
			  "\"pathWhitelist\":[",
			  "\"/a\"", MANIFEST_ARRAY_MAX + 1, "]}");
	ASSERT_ERRNO(manifest_validate(arr, strlen(arr), NULL, &err), E2BIG);
	ck_assert_str_eq(err.context, "pathWhitelist");

	/* A string over MANIFEST_STRING_MAX. */
	longstr = malloc(MANIFEST_STRING_MAX + 200);
	ck_assert_ptr_nonnull(longstr);
	strcpy(longstr, "{\"acKind\":\"ImageManifest\",\"acVersion\":\"0.8.11\",\"name\":\"");
	prefix = strlen(longstr);
	memset(longstr + prefix, 'a', MANIFEST_STRING_MAX + 1);
	longstr[prefix + MANIFEST_STRING_MAX + 1] = '\0';
	strcat(longstr, "\"}");
	ASSERT_ERRNO(manifest_validate(longstr, strlen(longstr), NULL, &err), E2BIG);
	ck_assert_str_eq(err.context, "name");

	/* Deep nesting inside an unknown isolator value. */
	deep = repeat_json("{\"acKind\":\"PodManifest\",\"x\":", "[", 10000, "");
	ASSERT_ERRNO(manifest_validate(deep, strlen(deep), NULL, &err), EBADMSG);

	/* Arguments. */
	ASSERT_ERRNO(manifest_validate(NULL, 0, NULL, &err), EBADMSG);
	ASSERT_ERRNO(pod_manifest_parse("{}", 2, NULL, &err), EINVAL);
}
END_TEST

START_TEST(test_error_path_is_truncated_safely)
{
	_cleanup_free_ char *json = NULL;
	struct cc_error err;
	char key[201];

	/* A 200-byte key on the error path does not overflow the 128-byte path buffer. */
	memset(key, 'k', 200);
	key[200] = '\0';
	ck_assert_int_ge(asprintf(&json,
				  "{\"acKind\":\"ImageManifest\",\"acVersion\":\"0.8.11\",\"name\":"
				  "\"a\",\"app\":{\"user\":\"0\",\"group\":\"0\","
				  "\"userLabels\":{\"%s\":1}}}",
				  key),
			 0);
	ASSERT_ERRNO(manifest_validate(json, strlen(json), NULL, &err), EINVAL);
	ck_assert_uint_eq(strlen(err.context), CC_ERROR_CONTEXT_MAX - 1);
	ck_assert(strncmp(err.context, "app.userLabels.kkk", 18) == 0);
}
END_TEST

START_TEST(test_error_path_has_no_control_characters)
{
	static const char json[] = "{\"acKind\":\"ImageManifest\",\"acVersion\":\"0.8.11\","
				   "\"name\":\"a\",\"app\":{\"user\":\"0\",\"group\":\"0\","
				   "\"userAnnotations\":{\"a\\nb\\u0001\":false}}}";
	struct cc_error err;

	ASSERT_ERRNO(manifest_validate(json, strlen(json), NULL, &err), EINVAL);
	ck_assert_str_eq(err.context, "app.userAnnotations.a?b?");
	ck_assert_str_eq(err.msg, "expected a string, got a boolean");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("manifest-helpers");
	TCase *tc = tcase_create("helpers");

	tcase_add_test(tc, test_effective_app_pod_app_replaces_image_app);
	tcase_add_test(tc, test_isolator_lookup_is_typed);
	tcase_add_test(tc, test_resource_without_limit_has_no_data);
	tcase_add_test(tc, test_volume_lookup_prefers_app_volume);
	suite_add_tcase(s, tc);

	tc = tcase_create("limits");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_limits_give_clean_errors);
	tcase_add_test(tc, test_error_path_is_truncated_safely);
	tcase_add_test(tc, test_error_path_has_no_control_characters);
	suite_add_tcase(s, tc);
	return cctest_run_suite(s);
}
