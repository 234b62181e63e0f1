/* SPDX-License-Identifier: Apache-2.0 */
/* ccpod flags: rkt 1.30's command lines for run, stop, enter and gc, and every error. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cctest.h"
#include "stage1/flags.h"
#include "stage1/uuid.h"

#define UUID	 "44588cb9-14a5-4181-9689-41f1aaff233f"
#define MAX_ARGS 16

/* Split a space-separated command line (no quoting) into argv; argv[0] = "run". */
static int split(const char *line, char *buf, size_t size, char **argv)
{
	int argc = 0;

	ck_assert_uint_lt(strlen(line), size);
	strcpy(buf, line);
	argv[argc++] = (char *) "entry";
	for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
		ck_assert_int_lt(argc, MAX_ARGS - 1);
		argv[argc++] = tok;
	}
	argv[argc] = NULL;
	return argc;
}

START_TEST(test_run_parses_the_observed_rkt_command_line)
{
	/* stage1-contract.md d.6, case A (interface 6), plus the other value flags. */
	char buf[1024], *argv[MAX_ARGS];
	int argc = split("--debug --net=none --interactive --mds-token=6e65a257f344 "
			 "--local-config=/etc/rkt --hostname=myhost "
			 "--dns-conf-mode=resolv=stage0,hosts=stage0 "
			 "--disable-capabilities-restriction --disable-paths --disable-seccomp "
			 "--ipc=private " UUID,
			 buf, sizeof(buf), argv);
	struct run_flags f;
	struct cc_error err = {};

	ASSERT_OK(run_flags_parse(argc, argv, &f, &err));
	ck_assert(f.debug);
	ck_assert_str_eq(f.net, "none");
	ck_assert(run_flags_net_is_none(&f));
	ck_assert(f.interactive);
	ck_assert(!f.private_users);
	ck_assert_str_eq(f.mds_token, "6e65a257f344");
	ck_assert_str_eq(f.local_config, "/etc/rkt");
	ck_assert_str_eq(f.hostname, "myhost");
	ck_assert_int_eq(f.dns_resolv, DNS_RESOLV_STAGE0);
	ck_assert_int_eq(f.dns_hosts, DNS_HOSTS_STAGE0);
	ck_assert(f.disable_capabilities && f.disable_paths && f.disable_seccomp);
	ck_assert(!f.mutable_pod);
	ck_assert_int_eq(f.ipc, IPC_MODE_PRIVATE);
	ck_assert_str_eq(f.uuid, UUID);
	ASSERT_OK(run_flags_check_supported(&f, &err));
}
END_TEST

START_TEST(test_run_defaults)
{
	char buf[256], *argv[MAX_ARGS];
	int argc = split("--net=default --local-config=/etc/rkt " UUID, buf, sizeof(buf), argv);
	struct run_flags f;
	struct cc_error err = {};

	ASSERT_OK(run_flags_parse(argc, argv, &f, &err));
	ck_assert(!f.debug && !f.interactive && !f.disable_paths);
	ck_assert_str_eq(f.net, "default");
	ck_assert_ptr_null(f.hostname);
	ck_assert_ptr_null(f.mds_token);
	ck_assert_int_eq(f.dns_resolv, DNS_RESOLV_DEFAULT);
	ck_assert_int_eq(f.dns_hosts, DNS_HOSTS_DEFAULT);
	ck_assert_int_eq(f.ipc, IPC_MODE_UNSET);

	/* No --net at all (an old rkt or a hand-made call): "default". */
	argc = split(UUID, buf, sizeof(buf), argv);
	ASSERT_OK(run_flags_parse(argc, argv, &f, &err));
	ck_assert_str_eq(f.net, "default");

	/* Upper-case UUIDs are UUIDs; the machine ID is lower case. */
	argc = split("--net=none 44588CB9-14A5-4181-9689-41F1AAFF233F", buf, sizeof(buf), argv);
	ASSERT_OK(run_flags_parse(argc, argv, &f, &err));
	char mid[STAGE1_MACHINE_ID_STRING_MAX];
	ASSERT_OK(stage1_uuid_to_machine_id(f.uuid, mid));
	ck_assert_str_eq(mid, "44588cb914a54181968941f1aaff233f");
}
END_TEST

START_TEST(test_run_private_users_and_dns_modes)
{
	char buf[512], *argv[MAX_ARGS];
	int argc = split("--net=host --private-users=6094848:65536 --local-config=/etc/rkt "
			 "--dns-conf-mode=hosts=host,resolv=none " UUID,
			 buf, sizeof(buf), argv);
	struct run_flags f;
	struct cc_error err = {};

	ASSERT_OK(run_flags_parse(argc, argv, &f, &err));
	ck_assert(f.private_users);
	ck_assert_uint_eq(f.private_users_base, 6094848);
	ck_assert_uint_eq(f.private_users_count, 65536);
	ck_assert_int_eq(f.dns_resolv, DNS_RESOLV_NONE);
	ck_assert_int_eq(f.dns_hosts, DNS_HOSTS_HOST);
	ck_assert_str_eq(dns_resolv_mode_to_string(f.dns_resolv), "none");
	ck_assert_str_eq(dns_hosts_mode_to_string(f.dns_hosts), "host");

	/* Refused as unsupported; --net is not checked here (ccnet_select() refuses host). */
	ASSERT_ERRNO(run_flags_check_supported(&f, &err), EOPNOTSUPP);
	ck_assert(strstr(err.msg, "--private-users"));
	f.private_users = false;
	f.ipc = IPC_MODE_PARENT;
	ASSERT_ERRNO(run_flags_check_supported(&f, &err), EOPNOTSUPP);
	ck_assert(strstr(err.msg, "--ipc=parent"));
	f.ipc = IPC_MODE_AUTO;
	f.mutable_pod = true;
	ASSERT_ERRNO(run_flags_check_supported(&f, &err), EOPNOTSUPP);
	ck_assert(strstr(err.msg, "--mutable"));
	f.mutable_pod = false;
	ASSERT_OK(run_flags_check_supported(&f, &err));

	argc = split("--net=foo:IP=10.0.0.5,bar " UUID, buf, sizeof(buf), argv);
	ASSERT_OK(run_flags_parse(argc, argv, &f, &err));
	ck_assert_str_eq(f.net, "foo:IP=10.0.0.5,bar");
	ASSERT_OK(run_flags_check_supported(&f, &err));
}
END_TEST

static const struct {
	const char *line;
	const char *msg; /* substring of the message */
} run_errors[] = {
	{"", "missing the pod UUID"},
	{"--net=none", "missing the pod UUID"},
	{"--net=none not-a-uuid", "'not-a-uuid' is not a valid pod UUID"},
	{"--net=none 44588cb9-14a5-4181-9689-41f1aaff233", "is not a valid pod UUID"},
	{"--net=none 44588cb9x14a5-4181-9689-41f1aaff233f", "is not a valid pod UUID"},
	{"--net=none 44588cb9-14a5-4181-9689-41f1aaff233g", "is not a valid pod UUID"},
	{"--net=none " UUID " " UUID, "unexpected argument"},
	{UUID " --net=none", "after the pod UUID"},
	{"--frobnicate " UUID, "unknown flag '--frobnicate'"},
	{"-d " UUID, "unknown flag '-d'"},
	{"-- " UUID, "unknown flag '--'"},
	{"--uuid=" UUID " " UUID, "unknown flag '--uuid="},
	{"--debugger " UUID, "unknown flag '--debugger'"},
	{"--debug --debug " UUID, "--debug given twice"},
	{"--net=none --net=host " UUID, "--net given twice"},
	{"--debug=true " UUID, "--debug takes no value"},
	{"--interactive=1 " UUID, "--interactive takes no value"},
	{"--disable-paths=yes " UUID, "--disable-paths takes no value"},
	{"--net " UUID, "--net: expected --net=<value>"},
	{"--net= " UUID, "--net: expected a value"},
	{"--hostname " UUID, "--hostname: expected --hostname=<value>"},
	{"--hostname= " UUID, "not a valid host name"},
	{"--hostname=-bad " UUID, "not a valid host name"},
	{"--hostname=bad- " UUID, "not a valid host name"},
	{"--hostname=a..b " UUID, "not a valid host name"},
	{"--hostname=a_b " UUID, "not a valid host name"},
	{"--hostname=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa " UUID,
	 "not a valid host name"},
	{"--local-config=etc/rkt " UUID, "expected an absolute path"},
	{"--local-config= " UUID, "expected an absolute path"},
	{"--mds-token= " UUID, "--mds-token: expected 1 to 256 characters"},
	{"--mds-token=ab/cd " UUID, "only letters and digits"},
	{"--private-users=0:65536 " UUID, "--private-users=0:65536: expected"},
	{"--private-users=65536 " UUID, "expected <uid base>:<count>"},
	{"--private-users=65536:0 " UUID, "expected <uid base>:<count>"},
	{"--private-users=65536: " UUID, "expected <uid base>:<count>"},
	{"--private-users=:1 " UUID, "expected <uid base>:<count>"},
	{"--private-users=-1:1 " UUID, "expected <uid base>:<count>"},
	{"--private-users=4294967295:2 " UUID, "expected <uid base>:<count>"},
	{"--private-users=99999999999:2 " UUID, "expected <uid base>:<count>"},
	{"--dns-conf-mode= " UUID, "--dns-conf-mode=: expected"},
	{"--dns-conf-mode=resolv=foo,hosts=host " UUID, "expected resolv="},
	{"--dns-conf-mode=resolv=host,hosts=none " UUID, "expected resolv="},
	{"--dns-conf-mode=resolv=host,resolv=host " UUID, "expected resolv="},
	{"--dns-conf-mode=resolv=host, " UUID, "expected resolv="},
	{"--dns-conf-mode=dns=host " UUID, "expected resolv="},
	{"--dns-conf-mode=resolv=hostx " UUID, "expected resolv="},
	{"--ipc=shared " UUID, "--ipc=shared: expected auto, private or parent"},
	{"--ipc= " UUID, "expected auto, private or parent"},
};

START_TEST(test_run_errors)
{
	char buf[512], *argv[MAX_ARGS];
	int argc = split(run_errors[_i].line, buf, sizeof(buf), argv);
	struct run_flags f = {};
	struct cc_error err = {};

	ASSERT_ERRNO(run_flags_parse(argc, argv, &f, &err), EINVAL);
	ck_assert_msg(strstr(err.msg, run_errors[_i].msg), "'%s': got '%s', expected '%s'",
		      run_errors[_i].line, err.msg, run_errors[_i].msg);
	ck_assert_ptr_null(strchr(err.msg, '\n'));
	/* Nothing was filled in. */
	ck_assert_ptr_null(f.net);
}
END_TEST

START_TEST(test_run_error_messages_are_one_printable_line)
{
	char arg[] = "--hostname=a\nb\x01-and-a-rather-long-tail-that-goes-on-and-on-and-on-and-on-"
		     "and-on-and-on-and-on-and-on";
	char *argv[] = {(char *) "run", arg, (char *) UUID, NULL};
	struct run_flags f;
	struct cc_error err = {};

	ASSERT_ERRNO(run_flags_parse(3, argv, &f, &err), EINVAL);
	ck_assert_ptr_null(strchr(err.msg, '\n'));
	ck_assert_ptr_null(strchr(err.msg, '\x01'));
	ck_assert(strstr(err.msg, "a?b?-and"));
	ck_assert(strstr(err.msg, "...: not a valid host name"));
}
END_TEST

START_TEST(test_stop_flags)
{
	char buf[256], *argv[MAX_ARGS];
	struct stop_flags f;
	struct cc_error err = {};
	int argc;

	argc = split(UUID, buf, sizeof(buf), argv);
	ASSERT_OK(stop_flags_parse(argc, argv, &f, &err));
	ck_assert(!f.force);
	ck_assert_str_eq(f.uuid, UUID);
	argc = split("--force " UUID, buf, sizeof(buf), argv);
	ASSERT_OK(stop_flags_parse(argc, argv, &f, &err));
	ck_assert(f.force);

	static const struct {
		const char *line, *msg;
	} errors[] = {
		{"", "missing the pod UUID"},
		{"--force", "missing the pod UUID (last argument is '--force')"},
		{"--force --force " UUID, "--force given twice"},
		{"--forced " UUID, "unknown flag '--forced'"},
		{"--force=true " UUID, "unknown flag"},
		{UUID " " UUID, "unexpected argument"},
		{"--force nope", "'nope' is not a valid pod UUID"},
	};
	for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++) {
		argc = split(errors[i].line, buf, sizeof(buf), argv);
		ASSERT_ERRNO(stop_flags_parse(argc, argv, &f, &err), EINVAL);
		ck_assert_msg(strstr(err.msg, errors[i].msg), "'%s': got '%s'", errors[i].line,
			      err.msg);
	}
}
END_TEST

START_TEST(test_enter_flags)
{
	char buf[256], *argv[MAX_ARGS];
	struct enter_flags f;
	struct cc_error err = {};
	int argc;

	/* stage1-contract.md d.4: enter's argv as rkt built it. */
	argc = split("--pid=5357 --appname=smoke-app -- /bin/sh -c echo", buf, sizeof(buf), argv);
	ASSERT_OK(enter_flags_parse(argc, argv, &f, &err));
	ck_assert_int_eq(f.pid, 5357);
	ck_assert_str_eq(f.app_name, "smoke-app");
	ck_assert_uint_eq(f.n_cmd, 3);
	ck_assert_str_eq(f.cmd[0], "/bin/sh");
	ck_assert_str_eq(f.cmd[2], "echo");

	/* Flags after "--" belong to the command. */
	argc = split("--appname=a --pid=1 -- id --pid=2", buf, sizeof(buf), argv);
	ASSERT_OK(enter_flags_parse(argc, argv, &f, &err));
	ck_assert_int_eq(f.pid, 1);
	ck_assert_uint_eq(f.n_cmd, 2);
	ck_assert_str_eq(f.cmd[1], "--pid=2");

	static const struct {
		const char *line, *msg;
	} errors[] = {
		{"", "missing --pid=<pid>"},
		{"--appname=a -- id", "missing --pid=<pid>"},
		{"--pid=1 -- id", "missing --appname=<app>"},
		{"--pid=1 --appname=a", "missing '--' before the command"},
		{"--pid=1 --appname=a --", "missing the command after '--'"},
		{"--pid=1 --appname=a id", "unexpected argument 'id' before '--'"},
		{"--pid=0 --appname=a -- id", "--pid=0: expected a process ID"},
		{"--pid=-5 --appname=a -- id", "--pid=-5: expected a process ID"},
		{"--pid=12x --appname=a -- id", "expected a process ID"},
		{"--pid=99999999999999999999 --appname=a -- id", "expected a process ID"},
		{"--pid 1 --appname=a -- id", "--pid: expected --pid=<pid>"},
		{"--pid=1 --pid=2 --appname=a -- id", "--pid given twice"},
		{"--pid=1 --appname=a --appname=b -- id", "--appname given twice"},
		{"--pid=1 --appname=Bad -- id", "--appname=Bad: expected an app name"},
		{"--pid=1 --appname=../x -- id", "expected an app name"},
		{"--pid=1 --appname= -- id", "expected an app name"},
		{"--pid=1 --appname=a --tty -- id", "unknown flag '--tty'"},
	};
	for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++) {
		argc = split(errors[i].line, buf, sizeof(buf), argv);
		ASSERT_ERRNO(enter_flags_parse(argc, argv, &f, &err), EINVAL);
		ck_assert_msg(strstr(err.msg, errors[i].msg), "'%s': got '%s'", errors[i].line,
			      err.msg);
	}
}
END_TEST

START_TEST(test_gc_flags)
{
	char buf[256], *argv[MAX_ARGS];
	struct gc_flags f;
	struct cc_error err = {};
	int argc;

	/* As rkt sends it to interface >= 5: a separate argument. */
	argc = split("--debug --local-config /etc/rkt " UUID, buf, sizeof(buf), argv);
	ASSERT_OK(gc_flags_parse(argc, argv, &f, &err));
	ck_assert(f.debug);
	ck_assert_str_eq(f.local_config, "/etc/rkt");
	ck_assert_str_eq(f.uuid, UUID);
	/* Interface < 5: the UUID alone. */
	argc = split(UUID, buf, sizeof(buf), argv);
	ASSERT_OK(gc_flags_parse(argc, argv, &f, &err));
	ck_assert(!f.debug);
	ck_assert_ptr_null(f.local_config);
	argc = split("--local-config=/etc/rkt " UUID, buf, sizeof(buf), argv);
	ASSERT_OK(gc_flags_parse(argc, argv, &f, &err));
	ck_assert_str_eq(f.local_config, "/etc/rkt");

	static const struct {
		const char *line, *msg;
	} errors[] = {
		{"", "missing the pod UUID"},
		{"--local-config " UUID, "--local-config: missing the directory"},
		{"--local-config etc " UUID, "--local-config etc: expected an absolute path"},
		{"--local-config=/a --local-config=/b " UUID, "--local-config given twice"},
		{"--debug --debug " UUID, "--debug given twice"},
		{"--force " UUID, "unknown flag '--force'"},
		{"/etc/rkt " UUID, "unexpected argument '/etc/rkt'"},
		{"--debug", "missing the pod UUID (last argument is '--debug')"},
	};
	for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++) {
		argc = split(errors[i].line, buf, sizeof(buf), argv);
		ASSERT_ERRNO(gc_flags_parse(argc, argv, &f, &err), EINVAL);
		ck_assert_msg(strstr(err.msg, errors[i].msg), "'%s': got '%s'", errors[i].line,
			      err.msg);
	}
}
END_TEST

START_TEST(test_names)
{
	ck_assert(stage1_ac_name_is_valid("a"));
	ck_assert(stage1_ac_name_is_valid("smoke-app-2"));
	ck_assert(!stage1_ac_name_is_valid(""));
	ck_assert(!stage1_ac_name_is_valid("-a"));
	ck_assert(!stage1_ac_name_is_valid("a-"));
	ck_assert(!stage1_ac_name_is_valid("A"));
	ck_assert(!stage1_ac_name_is_valid("a.b"));
	ck_assert(!stage1_ac_name_is_valid("a/b"));
	ck_assert(stage1_hostname_is_valid("rkt-" UUID));
	ck_assert(stage1_hostname_is_valid("a.b-c.D9"));
	ck_assert(!stage1_hostname_is_valid("a."));
	ck_assert(!stage1_hostname_is_valid(".a"));
	ck_assert(!stage1_hostname_is_valid("a b"));
	ck_assert(!stage1_uuid_is_valid(UUID "0"));
	ck_assert(!stage1_uuid_is_valid(NULL));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("stage1-flags");
	TCase *tc = tcase_create("run");

	tcase_add_test(tc, test_run_parses_the_observed_rkt_command_line);
	tcase_add_test(tc, test_run_defaults);
	tcase_add_test(tc, test_run_private_users_and_dns_modes);
	tcase_add_loop_test(tc, test_run_errors, 0,
			    (int) (sizeof(run_errors) / sizeof(run_errors[0])));
	tcase_add_test(tc, test_run_error_messages_are_one_printable_line);
	suite_add_tcase(s, tc);

	tc = tcase_create("others");
	tcase_add_test(tc, test_stop_flags);
	tcase_add_test(tc, test_enter_flags);
	tcase_add_test(tc, test_gc_flags);
	tcase_add_test(tc, test_names);
	suite_add_tcase(s, tc);
	return cctest_run_suite(s);
}
