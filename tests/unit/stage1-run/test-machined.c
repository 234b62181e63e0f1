/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pod's systemd-machined registration (stage1/supervisor/machined.c over cc-stage1-machined and
 * sd-bus), against a private dbus-daemon of the test's own and a fake machined on it that
 * records what it is sent: CreateMachine's exact arguments and scope properties, the fallback
 * to RegisterMachine, machined's refusals passed on in one line, UnregisterMachine and its
 * NoSuchMachine, no bus and no machined (nothing to report), a socket that does not speak
 * D-Bus (an error, not a hang), and the helper's refusal of bad arguments. The real machined
 * is met in tests/e2e/stage1/pods (lifecycle). Skipped without dbus-daemon (failed in CI).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cctest.h"
#include "machined.h"

#define DBUS_DAEMON "/usr/bin/dbus-daemon"

static char *tmp;
static char address[400], helper[512];
static pid_t daemon_pid, fake_pid;

/* --- the fake machined: a child on the private bus --- */

enum fake_mode {
	FAKE_SCOPE,
	FAKE_UNIT,
	FAKE_FAIL,
	FAKE_LIAR, /* owns the name and answers ServiceUnknown, as machined without systemd */
	FAKE_HANG, /* never answers */
};
static enum fake_mode mode;

static void record(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void record(const char *fmt, ...)
{
	char path[600];
	va_list ap;
	FILE *f;

	(void) snprintf(path, sizeof(path), "%s/calls", tmp);
	f = fopen(path, "ae");
	if (!f)
		_exit(3);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
}

static int read_machine(sd_bus_message *m, const char *member, bool props)
{
	const char *name, *service, *class, *root;
	char line[2048], hex[33] = "";
	const uint8_t *id;
	size_t len, n;
	uint32_t leader;
	int r;

	if (sd_bus_message_read(m, "s", &name) < 0 ||
	    sd_bus_message_read_array(m, 'y', (const void **) &id, &len) < 0 || len != 16 ||
	    sd_bus_message_read(m, "ssus", &service, &class, &leader, &root) < 0)
		return -EBADMSG;
	for (size_t i = 0; i < 16; i++)
		(void) snprintf(hex + 2 * i, 3, "%02x", id[i]);
	n = (size_t) snprintf(line, sizeof(line), "%s %s %s %s %s %u %s", member, name, hex,
			      service, class, leader, root);
	if (props) {
		r = sd_bus_message_enter_container(m, 'a', "(sv)");
		if (r < 0)
			return r;
		while ((r = sd_bus_message_enter_container(m, 'r', "sv")) > 0) {
			const char *key;
			uint64_t v;

			if (sd_bus_message_read(m, "s", &key) < 0 ||
			    sd_bus_message_read(m, "v", "t", &v) < 0 ||
			    sd_bus_message_exit_container(m) < 0)
				return -EBADMSG;
			n += (size_t) snprintf(line + n, sizeof(line) - n, " %s=%llu", key,
					       (unsigned long long) v);
		}
		if (r < 0 || sd_bus_message_exit_container(m) < 0)
			return -EBADMSG;
	}
	record("%s", line);
	return 0;
}

static int on_create(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	(void) userdata;
	if (read_machine(m, "CreateMachine", true) < 0)
		return sd_bus_error_set(e, SD_BUS_ERROR_INVALID_ARGS, "bad CreateMachine");
	if (mode == FAKE_HANG)
		return 1; /* no reply */
	if (mode == FAKE_LIAR)
		return sd_bus_error_set(e, SD_BUS_ERROR_SERVICE_UNKNOWN, "systemd is not there");
	if (mode != FAKE_SCOPE)
		return sd_bus_error_set(e, "org.freedesktop.DBus.Error.NotSupported",
					"no systemd to make scopes");
	return sd_bus_reply_method_return(m, "o", "/org/freedesktop/machine1/machine/x");
}

static int on_register(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	(void) userdata;
	if (read_machine(m, "RegisterMachine", false) < 0)
		return sd_bus_error_set(e, SD_BUS_ERROR_INVALID_ARGS, "bad RegisterMachine");
	if (mode == FAKE_HANG)
		return 1;
	if (mode == FAKE_FAIL || mode == FAKE_LIAR)
		return sd_bus_error_set(e, SD_BUS_ERROR_ACCESS_DENIED, "the leader is not ours");
	return sd_bus_reply_method_return(m, "o", "/org/freedesktop/machine1/machine/x");
}

static int on_unregister(sd_bus_message *m, void *userdata, sd_bus_error *e)
{
	const char *name;

	(void) userdata;
	if (sd_bus_message_read(m, "s", &name) < 0)
		return sd_bus_error_set(e, SD_BUS_ERROR_INVALID_ARGS, "bad UnregisterMachine");
	record("UnregisterMachine %s", name);
	if (strcmp(name, "rkt-unknown") == 0)
		return sd_bus_error_set(e, "org.freedesktop.machine1.NoSuchMachine", "no such");
	if (mode == FAKE_FAIL)
		return sd_bus_error_set(e, SD_BUS_ERROR_ACCESS_DENIED, "not yours to remove");
	return sd_bus_reply_method_return(m, "");
}

static const sd_bus_vtable fake_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_METHOD("CreateMachine", "sayssusa(sv)", "o", on_create, 0),
	SD_BUS_METHOD("RegisterMachine", "sayssus", "o", on_register, 0),
	SD_BUS_METHOD("UnregisterMachine", "s", "", on_unregister, 0),
	SD_BUS_VTABLE_END,
};

static void fake_start(enum fake_mode m)
{
	int p[2];
	char c;

	mode = m;
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	fake_pid = fork();
	ck_assert_int_ge(fake_pid, 0);
	if (fake_pid == 0) {
		sd_bus *b = NULL;

		close(p[0]);
		if (sd_bus_new(&b) < 0 || sd_bus_set_address(b, address) < 0 ||
		    sd_bus_set_bus_client(b, 1) < 0 || sd_bus_start(b) < 0 ||
		    sd_bus_add_object_vtable(b, NULL, "/org/freedesktop/machine1",
					     "org.freedesktop.machine1.Manager", fake_vtable,
					     NULL) < 0 ||
		    sd_bus_request_name(b, "org.freedesktop.machine1", 0) < 0)
			_exit(2);
		(void) !write(p[1], "r", 1);
		for (;;) {
			int r = sd_bus_process(b, NULL);

			if (r < 0)
				_exit(4);
			if (r == 0 && sd_bus_wait(b, UINT64_MAX) < 0)
				_exit(5);
		}
	}
	close(p[1]);
	ck_assert_int_eq(read(p[0], &c, 1), 1);
	close(p[0]);
}

static void fake_stop(void)
{
	if (fake_pid > 0) {
		(void) kill(fake_pid, SIGKILL);
		(void) waitpid(fake_pid, NULL, 0);
		fake_pid = 0;
	}
}

/* --- the private bus --- */

static void daemon_start(void)
{
	char conf[512], sock[300];
	FILE *f;

	tmp = cctest_mkdtemp();
	(void) snprintf(sock, sizeof(sock), "%s/bus", tmp);
	(void) snprintf(conf, sizeof(conf), "%s/bus.conf", tmp);
	(void) snprintf(address, sizeof(address), "unix:path=%s", sock);
	f = fopen(conf, "we");
	ck_assert_ptr_nonnull(f);
	fprintf(f,
		"<!DOCTYPE busconfig PUBLIC \"-//freedesktop//DTD D-Bus Bus Configuration "
		"1.0//EN\"\n"
		" \"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd\">\n"
		"<busconfig><type>cc-test</type><listen>unix:path=%s</listen>"
		"<auth>EXTERNAL</auth><policy context=\"default\"><allow send_destination=\"*\"/>"
		"<allow receive_sender=\"*\"/><allow own=\"*\"/><allow user=\"*\"/></policy>"
		"</busconfig>\n",
		sock);
	ck_assert_int_eq(fclose(f), 0);
	daemon_pid = fork();
	ck_assert_int_ge(daemon_pid, 0);
	if (daemon_pid == 0) {
		char arg[600];

		(void) snprintf(arg, sizeof(arg), "--config-file=%s", conf);
		execl(DBUS_DAEMON, DBUS_DAEMON, arg, "--nofork", "--nopidfile", (char *) NULL);
		_exit(127);
	}
	for (int i = 0; i < 500 && access(sock, F_OK) < 0; i++)
		usleep(10000);
	ck_assert_int_eq(access(sock, F_OK), 0);
	ck_assert_int_eq(setenv("DBUS_SYSTEM_BUS_ADDRESS", address, 1), 0);
	ck_assert_int_eq(setenv("CC_STAGE1_MACHINED", helper, 1), 0);
}

static void daemon_stop(void)
{
	fake_stop();
	if (daemon_pid > 0) {
		(void) kill(daemon_pid, SIGTERM);
		(void) waitpid(daemon_pid, NULL, 0);
		daemon_pid = 0;
	}
	(void) unsetenv("DBUS_SYSTEM_BUS_ADDRESS");
	if (tmp)
		cctest_rm_rf(tmp);
	free(tmp);
	tmp = NULL;
}

static struct machined_machine machine(void)
{
	struct machined_machine m = {
		.name = "rkt-test",
		.id = {0x2d, 0xfb, 0x5b, 0xa0, 0xe8, 0x99, 0x49, 0x31, 0x8f, 0xc6, 0x40, 0xa3, 0x68,
		       0x50, 0xde, 0xf6},
		.service = "rkt",
		.class = "container",
		.leader = 4242,
		.root_directory = "/var/lib/rkt/pods/run/x/stage1/rootfs",
		.memory_max = 196u << 20,
		.tasks_max = 17,
	};
	return m;
}

static const char *calls(void)
{
	char path[600];

	(void) snprintf(path, sizeof(path), "%s/calls", tmp);
	if (access(path, F_OK) < 0)
		return "";
	return cctest_read_at(tmp, "calls");
}

START_TEST(test_create_machine_in_a_scope)
{
	struct machined_machine m = machine();
	struct cc_error err = {};
	bool scope = false;

	fake_start(FAKE_SCOPE);
	ASSERT_OK(machined_register(&m, &scope, &err));
	ck_assert(scope);
	ck_assert_str_eq(calls(), "CreateMachine rkt-test 2dfb5ba0e89949318fc640a36850def6 rkt "
				  "container 4242 /var/lib/rkt/pods/run/x/stage1/rootfs "
				  "MemoryMax=205520896 MemorySwapMax=0 TasksMax=17\n");
}
END_TEST

START_TEST(test_no_bound_no_properties)
{
	struct machined_machine m = machine();
	struct cc_error err = {};
	bool scope = false;

	m.memory_max = 0;
	fake_start(FAKE_SCOPE);
	ASSERT_OK(machined_register(&m, &scope, &err));
	ck_assert_str_eq(calls(), "CreateMachine rkt-test 2dfb5ba0e89949318fc640a36850def6 rkt "
				  "container 4242 /var/lib/rkt/pods/run/x/stage1/rootfs\n");
}
END_TEST

START_TEST(test_falls_back_to_register_machine)
{
	struct machined_machine m = machine();
	struct cc_error err = {};
	bool scope = true;

	fake_start(FAKE_UNIT);
	ASSERT_OK(machined_register(&m, &scope, &err));
	ck_assert(!scope);
	ck_assert_ptr_nonnull(strstr(calls(), "\nRegisterMachine rkt-test "
					      "2dfb5ba0e89949318fc640a36850def6 rkt container 4242 "
					      "/var/lib/rkt/pods/run/x/stage1/rootfs\n"));
}
END_TEST

START_TEST(test_refusals_in_one_line)
{
	struct machined_machine m = machine();
	struct cc_error err = {};
	bool scope = true;
	int r;

	fake_start(FAKE_FAIL);
	r = machined_register(&m, &scope, &err);
	ck_assert_int_lt(r, 0);
	ck_assert_int_ne(r, -EOPNOTSUPP);
	ck_assert(!scope);
	ck_assert_msg(strstr(err.msg, "no systemd to make scopes") &&
			      strstr(err.msg, "the leader is not ours") && !strchr(err.msg, '\n'),
		      "%s", err.msg);
	err = (struct cc_error){0};
	ck_assert_int_lt(machined_unregister("rkt-test", &err), 0);
	ck_assert_msg(strstr(err.msg, "not yours to remove"), "%s", err.msg);
}
END_TEST

/* machined itself relays ServiceUnknown when systemd is missing: that is a failure, not "absent".
 */
START_TEST(test_machined_relaying_service_unknown_is_a_failure)
{
	struct machined_machine m = machine();
	struct cc_error err = {};
	bool scope;
	int r;

	fake_start(FAKE_LIAR);
	r = machined_register(&m, &scope, &err);
	ck_assert_int_lt(r, 0);
	ck_assert_int_ne(r, -EOPNOTSUPP);
	ck_assert_msg(strstr(err.msg, "systemd is not there"), "%s", err.msg);
}
END_TEST

/* A machined that never answers: both calls time out, one line, within run's limit. */
START_TEST(test_hung_machined)
{
	struct machined_machine m = machine();
	struct cc_error err = {};
	bool scope;
	int r;

	fake_start(FAKE_HANG);
	r = machined_register(&m, &scope, &err);
	ck_assert_int_lt(r, 0);
	ck_assert_int_ne(r, -EOPNOTSUPP);
	ck_assert_msg(err.msg[0] && !strchr(err.msg, '\n') && !strstr(err.msg, "no answer within"),
		      "%s", err.msg);
}
END_TEST

/* Whatever the helper does, run gets one line: an exit status of its own, a signal. */
START_TEST(test_helper_crashes)
{
	struct machined_machine m = machine();
	struct cc_error err = {};
	char path[600];
	bool scope;

	(void) snprintf(path, sizeof(path), "%s/helper", tmp);
	ck_assert_int_eq(setenv("CC_STAGE1_MACHINED", path, 1), 0);
	cctest_write_at(tmp, "helper", "#!/bin/sh\nexit 7\n");
	ck_assert_int_eq(chmod(path, 0755), 0);
	ck_assert_int_lt(machined_register(&m, &scope, &err), 0);
	ck_assert_msg(strstr(err.msg, "exited with 7"), "%s", err.msg);
	cctest_write_at(tmp, "helper", "#!/bin/sh\nkill -9 $$\n");
	err = (struct cc_error){0};
	ck_assert_int_lt(machined_register(&m, &scope, &err), 0);
	ck_assert_msg(strstr(err.msg, "exited with 137"), "%s", err.msg);
	/* Its environment is the bus address alone: no LD_PRELOAD, no SYSTEMD_LOG_LEVEL. */
	cctest_write_at(
		tmp, "helper",
		"#!/bin/sh\nenv | grep -v '^DBUS_SYSTEM_BUS_ADDRESS=\\|^PWD=\\|^SHLVL=\\|^_=' "
		"| tr '\\n' ' ' >&2\nexit 1\n");
	ck_assert_int_eq(setenv("SYSTEMD_LOG_LEVEL", "debug", 1), 0);
	err = (struct cc_error){0};
	ck_assert_int_lt(machined_register(&m, &scope, &err), 0);
	ck_assert_int_eq(unsetenv("SYSTEMD_LOG_LEVEL"), 0);
	ck_assert_msg(strstr(err.msg, "exited with 1"), "got '%s'", err.msg);
}
END_TEST

START_TEST(test_unregister)
{
	struct cc_error err = {};

	fake_start(FAKE_SCOPE);
	ASSERT_OK(machined_unregister("rkt-test", &err));
	ASSERT_OK(machined_unregister("rkt-unknown", &err)); /* NoSuchMachine: gone already */
	ck_assert_str_eq(calls(), "UnregisterMachine rkt-test\nUnregisterMachine rkt-unknown\n");
}
END_TEST

START_TEST(test_no_machined_no_bus)
{
	struct machined_machine m = machine();
	struct cc_error err = {};
	bool scope = true;

	/* The bus without machined on it: not worth a word. */
	ASSERT_ERRNO(machined_register(&m, &scope, &err), EOPNOTSUPP);
	ck_assert(!scope);
	ASSERT_OK(machined_unregister("rkt-test", &err));
	/* An address where nobody listens. */
	ck_assert_int_eq(setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/bus", 1), 0);
	ASSERT_ERRNO(machined_register(&m, &scope, &err), EOPNOTSUPP);
	ASSERT_OK(machined_unregister("rkt-test", &err));
	/* No address and no default socket: the helper is not even run. */
	ck_assert_int_eq(unsetenv("DBUS_SYSTEM_BUS_ADDRESS"), 0);
	ck_assert_int_eq(setenv("CC_STAGE1_MACHINED", "/nonexistent/helper", 1), 0);
	if (access("/run/dbus/system_bus_socket", F_OK) < 0) {
		ASSERT_ERRNO(machined_register(&m, &scope, &err), EOPNOTSUPP);
		ASSERT_OK(machined_unregister("rkt-test", &err));
	}
}
END_TEST

START_TEST(test_missing_helper)
{
	struct machined_machine m = machine();
	struct cc_error err = {};
	bool scope;

	ck_assert_int_eq(setenv("CC_STAGE1_MACHINED", "/nonexistent/helper", 1), 0);
	ck_assert_int_lt(machined_register(&m, &scope, &err), 0);
	ck_assert_msg(strstr(err.msg, "/nonexistent/helper"), "%s", err.msg);
}
END_TEST

/* A socket that does not speak D-Bus: an error in one line, not a hang. */
START_TEST(test_not_dbus)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct machined_machine m = machine();
	struct cc_error err = {};
	char addr[300];
	bool scope;
	int s;
	pid_t pid;

	(void) snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/fake", tmp);
	(void) snprintf(addr, sizeof(addr), "unix:path=%s", sa.sun_path);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(s, 0);
	ck_assert_int_eq(bind(s, (struct sockaddr *) &sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(s, 4), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		for (;;) {
			char buf[256];
			int c = accept(s, NULL, NULL);

			(void) !read(c, buf, sizeof(buf));
			(void) !write(c, "REJECTED EXTERNAL\r\n", 19);
			close(c);
		}
	}
	ck_assert_int_eq(setenv("DBUS_SYSTEM_BUS_ADDRESS", addr, 1), 0);
	ck_assert_int_lt(machined_register(&m, &scope, &err), 0);
	ck_assert_msg(err.msg[0] && !strchr(err.msg, '\n'), "%s", err.msg);
	(void) kill(pid, SIGKILL);
	(void) waitpid(pid, NULL, 0);
	close(s);
}
END_TEST

/* The helper itself: anything unexpected is a usage error (2) with one line. */
START_TEST(test_helper_usage)
{
	static const char *const bad[][8] = {
		{"bogus"},
		{"register", "--name=a", "--id=xyz", "--leader=1", "--root=/r"},
		{"register", "--name=a", "--id=2DFB5BA0E89949318FC640A36850DEF6", "--leader=1",
		 "--root=/r"},
		{"register", "--name=a", "--id=2dfb5ba0e89949318fc640a36850def6", "--leader=0",
		 "--root=/r"},
		{"register", "--name=a", "--id=2dfb5ba0e89949318fc640a36850def6", "--leader=1",
		 "--root=rel"},
		{"register", "--name=a", "--id=2dfb5ba0e89949318fc640a36850def6", "--leader=1",
		 "--root=/r", "--memory-max=1"},
		{"unregister", "--name=a", "--leader=1"},
		{"unregister", "--name="},
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[10] = {helper};
		int st;
		pid_t pid;

		for (size_t j = 0; j < 8 && bad[i][j]; j++)
			argv[j + 1] = (char *) bad[i][j];
		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			int null = open("/dev/null", O_WRONLY);

			dup2(null, 2);
			execv(helper, argv);
			_exit(127);
		}
		ck_assert_int_eq(waitpid(pid, &st, 0), pid);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == MACHINED_EXIT_USAGE,
			      "case %zu: status %d", i, st);
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("stage1-machined");
	TCase *tc = tcase_create("private bus");

	tcase_add_checked_fixture(tc, daemon_start, daemon_stop);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_create_machine_in_a_scope);
	tcase_add_test(tc, test_no_bound_no_properties);
	tcase_add_test(tc, test_falls_back_to_register_machine);
	tcase_add_test(tc, test_refusals_in_one_line);
	tcase_add_test(tc, test_machined_relaying_service_unknown_is_a_failure);
	tcase_add_test(tc, test_hung_machined);
	tcase_add_test(tc, test_helper_crashes);
	tcase_add_test(tc, test_unregister);
	tcase_add_test(tc, test_no_machined_no_bus);
	tcase_add_test(tc, test_missing_helper);
	tcase_add_test(tc, test_not_dbus);
	tcase_add_test(tc, test_helper_usage);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	(void) snprintf(helper, sizeof(helper), "%s/bin/cc-stage1-machined", cctest_build_dir());
	if (access(DBUS_DAEMON, X_OK) < 0)
		cctest_skip("%s missing (ci/install-deps installs dbus-daemon)", DBUS_DAEMON);
	return cctest_run_suite(suite());
}
