/* SPDX-License-Identifier: Apache-2.0 */
/*
 * --net selection (ccnet_select): rkt's rules for default, default-restricted, none, host,
 * all, named networks with CNI_ARGS, file order and duplicates, and the error cases.
 * Configs from tests/data/net/net.d-{a,b}; broken ones written to a temporary dir.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "ccnet.h"
#include "cctest.h"

static char dir_a[PATH_MAX], dir_b[PATH_MAX];

static void dirs_init(void)
{
	(void) snprintf(dir_a, sizeof(dir_a), "%s/tests/data/net/net.d-a", cctest_source_dir());
	(void) snprintf(dir_b, sizeof(dir_b), "%s/tests/data/net/net.d-b", cctest_source_dir());
}

static int sel(const char *v, const char *d1, const char *d2, struct ccnet_selection *s,
	       struct cc_error *e)
{
	const char *dirs[] = {d1, d2, NULL};

	dirs_init();
	memset(e, 0, sizeof(*e));
	return ccnet_select(v, dirs, s, e);
}

START_TEST(test_default_builtin)
{
	struct ccnet_selection s;
	struct cc_error e;

	ASSERT_OK(sel("default", "/nonexistent", NULL, &s, &e));
	ck_assert_uint_eq(s.n, 1);
	ck_assert_str_eq(s.nets[0].name, "default");
	ck_assert_str_eq(s.nets[0].type, "ptp");
	ck_assert_str_eq(s.nets[0].source, "built-in");
	ck_assert(s.nets[0].ip_masq);
	ck_assert_ptr_nonnull(strstr(s.nets[0].conf, "172.16.28.0/24"));
	ck_assert_ptr_nonnull(strstr(s.nets[0].conf, "\"cniVersion\""));
	ck_assert_str_eq(s.nets[0].args, "");
	ccnet_selection_done(&s);

	/* An empty value is rkt's "default". */
	ASSERT_OK(sel("", NULL, NULL, &s, &e));
	ck_assert_uint_eq(s.n, 1);
	ck_assert_str_eq(s.nets[0].name, "default");
	ccnet_selection_done(&s);
}
END_TEST

START_TEST(test_restricted)
{
	struct ccnet_selection s;
	struct cc_error e;

	ASSERT_OK(sel("default-restricted", NULL, NULL, &s, &e));
	ck_assert_uint_eq(s.n, 1);
	ck_assert_str_eq(s.nets[0].name, "default-restricted");
	ck_assert(!s.nets[0].ip_masq);
	ck_assert_ptr_nonnull(strstr(s.nets[0].conf, "172.17.0.0/16"));
	ck_assert_ptr_null(strstr(s.nets[0].conf, "0.0.0.0/0"));
	ccnet_selection_done(&s);
}
END_TEST

START_TEST(test_none_and_host)
{
	struct ccnet_selection s;
	struct cc_error e;

	ASSERT_OK(sel("none", dir_a, NULL, &s, &e));
	ck_assert_uint_eq(s.n, 0);
	ccnet_selection_done(&s);

	ASSERT_ERRNO(sel("host", dir_a, NULL, &s, &e), EOPNOTSUPP);
	ck_assert_ptr_nonnull(strstr(e.msg, "--net=host"));
	ck_assert_ptr_nonnull(strstr(e.msg, "VM"));
	ASSERT_ERRNO(sel("foo,host", dir_a, NULL, &s, &e), EOPNOTSUPP);
	ASSERT_ERRNO(sel("none,foo", dir_a, NULL, &s, &e), EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "none"));
	ASSERT_ERRNO(sel("none:X=1", dir_a, NULL, &s, &e), EINVAL);
}
END_TEST

START_TEST(test_named_with_args)
{
	struct ccnet_selection s;
	struct cc_error e;

	/* foo comes from 10-foo.conf (30-foo-again.conf is ignored); rkt adds default-restricted.
	 */
	ASSERT_OK(sel("bar:IP=10.99.2.7;X=y,foo", dir_a, NULL, &s, &e));
	ck_assert_uint_eq(s.n, 3);
	ck_assert_str_eq(s.nets[0].name, "foo");
	ck_assert_str_eq(s.nets[0].type, "bridge");
	ck_assert_str_eq(s.nets[0].args, "");
	ck_assert_ptr_nonnull(strstr(s.nets[0].source, "10-foo.conf"));
	ck_assert_str_eq(s.nets[1].name, "bar");
	ck_assert_str_eq(s.nets[1].args, "IP=10.99.2.7;X=y");
	ck_assert_str_eq(s.nets[2].name, "default-restricted");
	ck_assert_str_eq(s.nets[2].source, "built-in");
	ccnet_selection_done(&s);

	/* Asking for default too gives the full default instead of the restricted one. */
	ASSERT_OK(sel("foo,default", dir_a, NULL, &s, &e));
	ck_assert_uint_eq(s.n, 2);
	ck_assert_str_eq(s.nets[1].name, "default");
	ccnet_selection_done(&s);
}
END_TEST

START_TEST(test_user_default_overrides)
{
	struct ccnet_selection s;
	struct cc_error e;

	/* net.d-b defines "default": no built-in is added at all. */
	ASSERT_OK(sel("default,baz", dir_b, NULL, &s, &e));
	ck_assert_uint_eq(s.n, 2);
	ck_assert_str_eq(s.nets[0].name, "default");
	ck_assert_str_eq(s.nets[0].type, "bridge");
	ck_assert_str_eq(s.nets[1].name, "baz");
	ccnet_selection_done(&s);

	/* Two dirs: the first one's definitions come first; both are searched. */
	ASSERT_OK(sel("baz,bar", dir_a, dir_b, &s, &e));
	ck_assert_uint_eq(s.n, 3);
	ck_assert_str_eq(s.nets[0].name, "bar");
	ck_assert_str_eq(s.nets[1].name, "baz");
	ck_assert_str_eq(s.nets[2].name, "default-restricted");
	ccnet_selection_done(&s);
}
END_TEST

START_TEST(test_all)
{
	struct ccnet_selection s;
	struct cc_error e;

	ASSERT_OK(sel("all", dir_a, NULL, &s, &e));
	ck_assert_uint_eq(s.n, 3);
	ck_assert_str_eq(s.nets[0].name, "foo");
	ck_assert_str_eq(s.nets[1].name, "bar");
	ck_assert_str_eq(s.nets[2].name, "default");
	ccnet_selection_done(&s);
}
END_TEST

START_TEST(test_unknown_and_bad_lists)
{
	struct ccnet_selection s;
	struct cc_error e;

	ASSERT_ERRNO(sel("foo,nope,zip", dir_a, NULL, &s, &e), ENOENT);
	ck_assert_ptr_nonnull(strstr(e.msg, "nope, zip"));
	ck_assert_ptr_nonnull(strstr(e.msg, dir_a));
	ASSERT_ERRNO(sel("foo,foo", dir_a, NULL, &s, &e), EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "twice"));
	ASSERT_ERRNO(sel("foo,,bar", dir_a, NULL, &s, &e), EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "empty"));
	ASSERT_ERRNO(sel(":X=1", dir_a, NULL, &s, &e), EINVAL);
	ASSERT_ERRNO(sel(",", dir_a, NULL, &s, &e), EINVAL);
	ASSERT_ERRNO(sel("../etc", dir_a, NULL, &s, &e), EINVAL);
	ASSERT_ERRNO(sel("foo:A=\n", dir_a, NULL, &s, &e), EINVAL);
	ASSERT_ERRNO(sel("a,b,c,d,e,f,g,h,i", dir_a, NULL, &s, &e), E2BIG);
}
END_TEST

static void write_file(const char *dir, const char *name, const char *content)
{
	char p[PATH_MAX];
	FILE *f;

	(void) snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "we");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(fputs(content, f), 0);
	ck_assert_int_eq(fclose(f), 0);
}

START_TEST(test_broken_configs)
{
	static const struct {
		const char *content, *want;
	} cases[] = {
		{"{ \"name\": \"x\", \"type\": ", "not a JSON object"},
		{"[1, 2]", "not a JSON object"},
		{"{ \"name\": \"x\" }", "no string \"name\" and \"type\""},
		{"{ \"name\": 7, \"type\": \"ptp\" }", "no string"},
		{"{ \"name\": \"x\", \"type\": \"../../bin/sh\" }", "invalid plugin type"},
		{"{ \"name\": \"x\", \"type\": \"ptp\" } trailing", "not a JSON object"},
		{"", "not a JSON object"},
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		_cleanup_free_ char *tmp = cctest_mkdtemp();
		const char *dirs[] = {tmp, NULL};
		struct ccnet_selection s;
		struct cc_error e = {};

		write_file(tmp, "10-ok.conf", "{ \"name\": \"ok\", \"type\": \"ptp\" }");
		write_file(tmp, "20-bad.conf", cases[i].content);
		/* rkt fails on any broken file in net.d, selected or not. */
		ASSERT_ERRNO(ccnet_select("ok", dirs, &s, &e), EBADMSG);
		ck_assert_msg(strstr(e.msg, cases[i].want) && strstr(e.msg, "20-bad.conf"),
			      "case %zu: %s", i, e.msg);
		(void) cctest_rm_rf(tmp);
	}
	{
		_cleanup_free_ char *tmp = cctest_mkdtemp();
		const char *dirs[] = {tmp, NULL};
		struct ccnet_selection s;
		struct cc_error e = {};

		write_file(tmp, "10-x.conf", "{ \"name\": \"bad name!\", \"type\": \"ptp\" }");
		ASSERT_OK(ccnet_select("none", dirs, &s, &e));	  /* none reads nothing */
		ASSERT_OK(ccnet_select("default", dirs, &s, &e)); /* not selected: fine */
		ccnet_selection_done(&s);
		ASSERT_ERRNO(ccnet_select("all", dirs, &s, &e), EBADMSG);
		ck_assert_ptr_nonnull(strstr(e.msg, "invalid network name"));
		(void) cctest_rm_rf(tmp);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("net-select");
	TCase *tc = tcase_create("select");

	tcase_add_test(tc, test_default_builtin);
	tcase_add_test(tc, test_restricted);
	tcase_add_test(tc, test_none_and_host);
	tcase_add_test(tc, test_named_with_args);
	tcase_add_test(tc, test_user_default_overrides);
	tcase_add_test(tc, test_all);
	tcase_add_test(tc, test_unknown_and_bad_lists);
	tcase_add_test(tc, test_broken_configs);
	suite_add_tcase(s, tc);
	return cctest_run_suite(s);
}
