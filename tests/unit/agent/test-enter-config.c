/* SPDX-License-Identifier: Apache-2.0 */
/* cc-agent's readers of the pod layer: etc/cc/enter/<app> and the EnvironmentFile. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cc/cleanup.h"
#include "cctest.h"
#include "enter-config.h"

START_TEST(test_enter_config_layer_format)
{
	/* What ccpod's pod layer writes (stage1/podlayer.h). */
	struct enter_config c;

	ASSERT_OK(enter_config_parse("app=web\nroot=/opt/stage2/web/rootfs\nuid=1000\ngid=100\n"
				     "groups=4,27,1001\ncwd=/srv/www\nenv=/etc/cc/env/web\n",
				     "web", &c));
	ck_assert_uint_eq(c.uid, 1000);
	ck_assert_uint_eq(c.gid, 100);
	ck_assert_uint_eq(c.n_groups, 3);
	ck_assert_uint_eq(c.groups[0], 4);
	ck_assert_uint_eq(c.groups[2], 1001);
	ck_assert_str_eq(c.cwd, "/srv/www");
	ck_assert_str_eq(c.env_file, "/etc/cc/env/web");
	enter_config_done(&c);

	ASSERT_OK(enter_config_parse("uid=0\ngid=0\ngroups=\n", "db", &c));
	ck_assert_uint_eq(c.n_groups, 0);
	ck_assert_str_eq(c.cwd, "/");
	ck_assert_str_eq(c.env_file, "/etc/cc/env/db");
	enter_config_done(&c);

	/* Long names, comments, CRLF and unknown keys. */
	ASSERT_OK(enter_config_parse("# x\r\nuid=5\r\n gid=6\nsupplementary_gids=7 8\n"
				     "working_directory=/a b\nenvironment_file=/e\nfuture=1\n",
				     "x", &c));
	ck_assert_uint_eq(c.uid, 5);
	ck_assert_uint_eq(c.gid, 6);
	ck_assert_uint_eq(c.n_groups, 2);
	ck_assert_str_eq(c.cwd, "/a b");
	ck_assert_str_eq(c.env_file, "/e");
	enter_config_done(&c);
}
END_TEST

START_TEST(test_enter_config_rejects)
{
	static const char *const bad[] = {
		"gid=0\n",
		"uid=0\n",
		"uid=x\ngid=0\n",
		"uid=-1\ngid=0\n",
		"uid=4294967295\ngid=0\n",
		"uid=99999999999\ngid=0\n",
		"uid=0\ngid=0\ngroups=1,x\n",
		"uid=0\ngid=0\ncwd=relative\n",
		"uid=0\ngid=0\nenv=relative\n",
		"uid=0\ngid=0\nno equals sign\n",
		"uid= 1\ngid=0\n",
	};
	struct enter_config c = {};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(enter_config_parse(bad[i], "a", &c) == -EBADMSG, "accepted: %s",
			      bad[i]);
	ck_assert_ptr_null(c.cwd);
}
END_TEST

static const char *env_get(char **env, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; env[i]; i++)
		if (strncmp(env[i], name, n) == 0 && env[i][n] == '=')
			return env[i] + n + 1;
	return NULL;
}

START_TEST(test_env_parse)
{
	char **env = NULL;
	size_t n = 0;

	ASSERT_OK(enter_env_parse(
		"PATH=\"/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\"\n"
		"AC_APP_NAME=\"web\"\n"
		"# a comment\n; another\n\n"
		"Q=\"a \\\"b\\\" \\\\ \\$HOME \\` \\n\"\n"
		"ML=\"line1\nline2\"\n"
		"SQ='it''s $x'\n"
		"U=  plain value  \n"
		"UE=a\\ b\\\\c\n"
		"EMPTY=\n"
		"EQ=\"a=b\"\n"
		"DUP=1\nDUP=\"2\"\n"
		"_x1 = spaced\n",
		&env));
	while (env[n])
		n++;
	ck_assert_uint_eq(n, 11);
	ck_assert_str_eq(env_get(env, "PATH"),
			 "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
	ck_assert_str_eq(env_get(env, "AC_APP_NAME"), "web");
	ck_assert_str_eq(env_get(env, "Q"), "a \"b\" \\ $HOME ` \\n");
	ck_assert_str_eq(env_get(env, "ML"), "line1\nline2");
	ck_assert_str_eq(env_get(env, "SQ"), "its $x");
	ck_assert_str_eq(env_get(env, "U"), "plain value");
	ck_assert_str_eq(env_get(env, "UE"), "a b\\c");
	ck_assert_str_eq(env_get(env, "EMPTY"), "");
	ck_assert_str_eq(env_get(env, "EQ"), "a=b");
	ck_assert_str_eq(env_get(env, "DUP"), "2");
	ck_assert_str_eq(env_get(env, "_x1"), "spaced");
	/* Order is kept (first occurrence's slot). */
	ck_assert_str_eq(env[0],
			 "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
	enter_env_free(env);

	ASSERT_OK(enter_env_parse("", &env));
	ck_assert_ptr_null(env[0]);
	enter_env_free(env);
}
END_TEST

START_TEST(test_env_rejects)
{
	static const char *const bad[] = {
		"1X=a\n", "A-B=1\n", "=x\n", "NOVALUE\n", "A=\"open\n", "A='open\n", "A.B=1\n",
	};
	_cleanup_free_ char *many = NULL;
	char **env = NULL;
	size_t n = 0;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(enter_env_parse(bad[i], &env) == -EBADMSG, "accepted: %s", bad[i]);
	ck_assert_ptr_null(env);

	many = malloc((ENTER_ENV_MAX + 1) * 16);
	ck_assert_ptr_nonnull(many);
	for (int i = 0; i <= ENTER_ENV_MAX; i++)
		n += (size_t) sprintf(many + n, "V%d=1\n", i);
	ASSERT_ERRNO(enter_env_parse(many, &env), E2BIG);
}
END_TEST

static Suite *enter_suite(void)
{
	Suite *s = suite_create("agent-enter-config");
	TCase *tc = tcase_create("enter-config");

	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, test_enter_config_layer_format);
	tcase_add_test(tc, test_enter_config_rejects);
	tcase_add_test(tc, test_env_parse);
	tcase_add_test(tc, test_env_rejects);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(enter_suite());
}
