/* SPDX-License-Identifier: Apache-2.0 */
/* The stage1's pod options from annotations (stage1/pod-options.h). */
#include <errno.h>
#include <string.h>

#include "cc/cleanup.h"
#include "cctest.h"
#include "stage1/pod-options.h"

#define APP(name, extra)                                                                      \
	"{\"name\":\"" name "\",\"image\":{\"id\":\"sha512-aa\"},\"app\":{\"exec\":[\"/a\"]," \
	"\"user\":\"0\",\"group\":\"0\"" extra "}}"
#define POD_HEAD   "{\"acVersion\":\"0.8.11\",\"acKind\":\"PodManifest\",\"apps\":[" APP("a", "") "]"
#define KSM_APP(v) ",\"userAnnotations\":{\"clear-containers/ksm\":\"" v "\"}"

static struct pod_manifest *pod_of(const char *tail)
{
	_cleanup_free_ char *json = NULL;
	struct pod_manifest *pod = NULL;
	struct cc_error merr;

	ck_assert_int_ge(asprintf(&json, POD_HEAD "%s}", tail), 0);
	ck_assert_int_eq(pod_manifest_parse(json, strlen(json), &pod, &merr), 0);
	return pod;
}

/* Without the annotation, KSM stays off: cc-vmm gets no --ksm (test-stage1-vmm-argv). */
START_TEST(test_ksm_is_off_by_default)
{
	_cleanup_(pod_manifest_freep) struct pod_manifest *pod = pod_of("");
	_cleanup_(pod_manifest_freep) struct pod_manifest *other = pod_of(
		",\"annotations\":[{\"name\":\"clear-containers/other\",\"value\":\"true\"}]");
	struct pod_options o = {.ksm = true};

	ASSERT_OK(pod_options_parse(pod, &o, NULL));
	ck_assert(!o.ksm);
	o.ksm = true;
	ASSERT_OK(pod_options_parse(other, &o, NULL));
	ck_assert(!o.ksm);
}
END_TEST

START_TEST(test_ksm_opt_in)
{
	_cleanup_(pod_manifest_freep) struct pod_manifest *ann =
		pod_of(",\"annotations\":[{\"name\":\"clear-containers/ksm\",\"value\":\"true\"}]");
	_cleanup_(pod_manifest_freep) struct pod_manifest *user =
		pod_of(",\"userAnnotations\":{\"clear-containers/ksm\":\"true\"}");
	_cleanup_(pod_manifest_freep) struct pod_manifest *both =
		pod_of(",\"annotations\":[{\"name\":\"clear-containers/ksm\",\"value\":\"true\"}],"
		       "\"userAnnotations\":{\"clear-containers/ksm\":\"false\"}");
	struct pod_options o;

	ASSERT_OK(pod_options_parse(ann, &o, NULL));
	ck_assert(o.ksm);
	ASSERT_OK(pod_options_parse(user, &o, NULL));
	ck_assert(o.ksm);
	/* The user's annotation wins. */
	ASSERT_OK(pod_options_parse(both, &o, NULL));
	ck_assert(!o.ksm);
}
END_TEST

/* rkt run IMAGE --user-annotation=clear-containers/ksm=true: one app asks for the pod. */
START_TEST(test_ksm_from_an_app)
{
	static const char two[] =
		"{\"acVersion\":\"0.8.11\",\"acKind\":\"PodManifest\",\"apps\":[" APP(
			"a", "") "," APP("b", KSM_APP("true")) "]";
	static const char pod_off[] = ",\"annotations\":[{\"name\":\"clear-containers/ksm\","
				      "\"value\":\"false\"}]}";
	static const char bad[] =
		"{\"acVersion\":\"0.8.11\",\"acKind\":\"PodManifest\",\"apps\":[" APP(
			"a", KSM_APP("no")) "]}";
	_cleanup_(pod_manifest_freep) struct pod_manifest *p1 = NULL, *p2 = NULL, *p3 = NULL;
	_cleanup_free_ char *j1 = NULL, *j2 = NULL;
	struct cc_error merr;
	struct cc_error err = {};
	struct pod_options o;

	ck_assert_int_ge(asprintf(&j1, "%s}", two), 0);
	ck_assert_int_eq(pod_manifest_parse(j1, strlen(j1), &p1, &merr), 0);
	ASSERT_OK(pod_options_parse(p1, &o, NULL));
	ck_assert(o.ksm);
	/* The pod's own "false" wins over an app's "true". */
	ck_assert_int_ge(asprintf(&j2, "%s%s", two, pod_off), 0);
	ck_assert_int_eq(pod_manifest_parse(j2, strlen(j2), &p2, &merr), 0);
	ASSERT_OK(pod_options_parse(p2, &o, NULL));
	ck_assert(!o.ksm);
	ck_assert_int_eq(pod_manifest_parse(bad, strlen(bad), &p3, &merr), 0);
	ASSERT_ERRNO(pod_options_parse(p3, &o, &err), EINVAL);
	ck_assert_str_eq(err.msg,
			 "pod app userAnnotation clear-containers/ksm: 'no' is not true or false");
}
END_TEST

static const char *const bad_values[] = {"1", "yes", "True", "", "true ", "on"};

START_TEST(test_ksm_bad_value_is_one_line_error)
{
	_cleanup_(pod_manifest_freep) struct pod_manifest *pod = NULL;
	_cleanup_free_ char *tail = NULL;
	struct cc_error err = {};
	struct pod_options o = {.ksm = true};
	char want[128];

	ck_assert_int_ge(asprintf(&tail,
				  ",\"annotations\":[{\"name\":\"clear-containers/ksm\","
				  "\"value\":\"%s\"}]",
				  bad_values[_i]),
			 0);
	pod = pod_of(tail);
	ASSERT_ERRNO(pod_options_parse(pod, &o, &err), EINVAL);
	snprintf(want, sizeof(want),
		 "pod annotation clear-containers/ksm: '%s' is not true or false", bad_values[_i]);
	ck_assert_str_eq(err.msg, want);
	ck_assert(o.ksm); /* untouched on error */
}
END_TEST

int main(void)
{
	Suite *s = suite_create("stage1-pod-options");
	TCase *tc = tcase_create("ksm");

	tcase_add_test(tc, test_ksm_is_off_by_default);
	tcase_add_test(tc, test_ksm_opt_in);
	tcase_add_test(tc, test_ksm_from_an_app);
	tcase_add_loop_test(tc, test_ksm_bad_value_is_one_line_error, 0,
			    (int) (sizeof(bad_values) / sizeof(bad_values[0])));
	suite_add_tcase(s, tc);
	return cctest_run_suite(s);
}
