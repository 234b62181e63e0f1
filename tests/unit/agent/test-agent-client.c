/* SPDX-License-Identifier: Apache-2.0 */
/*
 * agent/host (ccagentclient) against a scripted fake VMM + agent on a unix socket: the vsock
 * handshake, EXEC with stdio both ways and the exit code, ERROR replies, a hostile agent,
 * a vanished agent, STOP.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent-client.h"
#include "agent-io.h"
#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "cctest.h"

enum scenario {
	FAKE_EXEC,
	FAKE_ERROR,
	FAKE_HOSTILE,
	FAKE_VANISH,
	FAKE_REFUSE,
	FAKE_BAD_OK,
	FAKE_STOP_OK,
	FAKE_STOP_ERROR,
	FAKE_BIG,
};

static char *dir;
static char sock_path[512];

/* The fake's checks end its process with a distinct code; the test asserts 0. */
static void fake_check(bool ok, int code)
{
	if (!ok)
		_exit(code);
}

static void fake_exec(int c, struct agent_reader *rd)
{
	struct agent_frame f;
	struct agent_exec e;
	char in[256];
	size_t in_len = 0;
	uint8_t v[4];

	fake_check(agent_reader_wait(rd, c, 5000, &f) == 1 && f.type == AGENT_EXEC, 10);
	fake_check(agent_exec_decode(f.payload, f.len, &e) == 0, 11);
	fake_check(strcmp(e.app, "web") == 0 && e.argc == 2 && strcmp(e.argv[1], "-x") == 0 &&
			   !e.tty,
		   12);
	agent_exec_done(&e);
	agent_send(c, AGENT_STDOUT, "out1\n", 5);
	agent_send(c, AGENT_STDERR, "err1\n", 5);
	for (;;) {
		fake_check(agent_reader_wait(rd, c, 5000, &f) == 1, 13);
		if (f.type == AGENT_STDIN_EOF)
			break;
		fake_check(f.type == AGENT_STDIN && in_len + f.len < sizeof(in), 14);
		memcpy(in + in_len, f.payload, f.len);
		in_len += f.len;
	}
	agent_send(c, AGENT_STDOUT, in, in_len);
	agent_u32_encode(v, 7);
	agent_send(c, AGENT_EXIT, v, 4);
}

static void fake_big(int c, struct agent_reader *rd)
{
	_cleanup_free_ uint8_t *buf = malloc(AGENT_PAYLOAD_MAX);
	struct agent_frame f;
	uint8_t v[4];

	fake_check(agent_reader_wait(rd, c, 5000, &f) == 1 && f.type == AGENT_EXEC, 30);
	/* 4 MiB of output without reading the client's stdin in between. */
	memset(buf, 'z', AGENT_PAYLOAD_MAX);
	for (int i = 0; i < 64; i++)
		fake_check(agent_send(c, AGENT_STDOUT, buf, AGENT_PAYLOAD_MAX) == 0, 31);
	agent_u32_encode(v, 0);
	agent_send(c, AGENT_EXIT, v, 4);
	/* Drain what the client sent, so that closing does not reset the connection. */
	while (agent_reader_wait(rd, c, 2000, &f) == 1)
		;
}

static void fake_run(int l, enum scenario sc)
{
	_cleanup_close_ int c = accept4(l, NULL, NULL, SOCK_CLOEXEC);
	struct agent_reader rd;
	struct agent_frame f;
	uint8_t buf[64];
	char line[32];
	size_t n = 0;

	fake_check(c >= 0, 2);
	while (n < sizeof(line) - 1 && read(c, line + n, 1) == 1 && line[n] != '\n')
		n++;
	line[n] = '\0';
	fake_check(strcmp(line, "CONNECT 1024") == 0, 3);
	if (sc == FAKE_REFUSE)
		_exit(0);
	if (sc == FAKE_BAD_OK) {
		(void) !write(c, "OK x\n", 5);
		_exit(0);
	}
	(void) !write(c, "OK 1073741824\n", 14);
	fake_check(agent_reader_init(&rd) == 0, 4);

	switch (sc) {
	case FAKE_EXEC:
		fake_exec(c, &rd);
		break;
	case FAKE_BIG:
		fake_big(c, &rd);
		break;
	case FAKE_ERROR:
		fake_check(agent_reader_wait(&rd, c, 5000, &f) == 1, 20);
		agent_error_encode(buf, sizeof(buf), 127, "cannot execute nope: not found", &n);
		agent_send(c, AGENT_ERROR, buf, n);
		break;
	case FAKE_HOSTILE:
		fake_check(agent_reader_wait(&rd, c, 5000, &f) == 1, 21);
		agent_send(c, AGENT_STDOUT, "fine", 4);
		/* STDIN is a host → guest frame. */
		agent_send(c, AGENT_STDIN, "x", 1);
		break;
	case FAKE_VANISH:
		fake_check(agent_reader_wait(&rd, c, 5000, &f) == 1, 22);
		agent_send(c, AGENT_STDOUT, "partial", 7);
		break;
	case FAKE_STOP_OK:
	case FAKE_STOP_ERROR:
		fake_check(agent_reader_wait(&rd, c, 5000, &f) == 1 && f.type == AGENT_STOP, 23);
		if (sc == FAKE_STOP_OK) {
			agent_send(c, AGENT_ACCEPTED, NULL, 0);
		} else {
			agent_error_encode(buf, sizeof(buf), 1, "no apps", &n);
			agent_send(c, AGENT_ERROR, buf, n);
		}
		break;
	default:
		break;
	}
	agent_reader_done(&rd);
	_exit(0);
}

/* Start the fake for one connection; returns its pid. */
static pid_t fake_start(enum scenario sc)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int l;
	pid_t pid;

	unlink(sock_path);
	strcpy(sa.sun_path, sock_path);
	l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(l, 0);
	ck_assert_int_eq(bind(l, (struct sockaddr *) &sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(l, 1), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		fake_run(l, sc);
	close(l);
	return pid;
}

static void fake_end(pid_t pid)
{
	int status;

	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "fake agent failed: %d",
		      status);
}

static void setup(void)
{
	dir = cctest_mkdtemp();
	snprintf(sock_path, sizeof(sock_path), "%s/vsock", dir);
	signal(SIGPIPE, SIG_IGN);
}

static void teardown(void)
{
	cctest_rm_rf(dir);
}

static int connect_fake(struct cc_error *msg)
{
	int fd = -1;

	ASSERT_OK(agent_client_connect(sock_path, 1024, 5000, &fd, msg));
	return fd;
}

START_TEST(test_exec_relay)
{
	char *argv[] = {(char *) "/bin/tool", (char *) "-x", NULL};
	int in[2], out[2], err[2], code = -1;
	struct cc_error msg = {0};
	_cleanup_free_ char *o = NULL, *e = NULL;
	pid_t pid = fake_start(FAKE_EXEC);
	int fd = connect_fake(&msg);
	struct agent_client_stdio io;

	ck_assert_int_eq(pipe2(in, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(out, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(err, O_CLOEXEC), 0);
	ck_assert_int_eq(write(in[1], "hello stdin", 11), 11);
	close(in[1]);
	io = (struct agent_client_stdio){.in = in[0], .out = out[1], .err = err[1]};
	ASSERT_OK(agent_client_exec(fd, "web", argv, 2, &io, &code, &msg));
	ck_assert_int_eq(code, 7);
	ck_assert_str_eq(msg.msg, "");
	close(out[1]);
	close(err[1]);
	ASSERT_OK(read_full_fd(out[0], 4096, &o, NULL));
	ASSERT_OK(read_full_fd(err[0], 4096, &e, NULL));
	ck_assert_str_eq(o, "out1\nhello stdin");
	ck_assert_str_eq(e, "err1\n");
	close(in[0]);
	close(out[0]);
	close(err[0]);
	close(fd);
	fake_end(pid);
}
END_TEST

START_TEST(test_exec_big_output_while_stdin_open)
{
	char *argv[] = {(char *) "cat", NULL};
	int in[2], out, code = -1;
	struct cc_error msg = {0};
	pid_t pid = fake_start(FAKE_BIG);
	int fd = connect_fake(&msg);
	struct agent_client_stdio io;
	struct stat st;

	/* stdin never ends (the write end stays open): EXIT alone ends the request. */
	ck_assert_int_eq(pipe2(in, O_CLOEXEC), 0);
	out = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	ck_assert_int_ge(out, 0);
	io = (struct agent_client_stdio){.in = in[0], .out = out, .err = out};
	ASSERT_OK(agent_client_exec(fd, "web", argv, 1, &io, &code, &msg));
	ck_assert_int_eq(code, 0);
	ck_assert_int_eq(fstat(out, &st), 0);
	ck_assert_int_eq(st.st_size, 64 * AGENT_PAYLOAD_MAX);
	close(in[0]);
	close(in[1]);
	close(out);
	close(fd);
	fake_end(pid);
}
END_TEST

START_TEST(test_exec_error_reply)
{
	char *argv[] = {(char *) "nope", NULL};
	struct cc_error msg = {0};
	pid_t pid = fake_start(FAKE_ERROR);
	int fd = connect_fake(&msg), code = -1;
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	struct agent_client_stdio io = {.in = null, .out = null, .err = null};

	ASSERT_ERRNO(agent_client_exec(fd, "web", argv, 1, &io, &code, &msg), EIO);
	ck_assert_int_eq(code, 127);
	ck_assert_int_eq(msg.status, 127);
	ck_assert_str_eq(msg.msg, "cannot execute nope: not found");
	close(null);
	close(fd);
	fake_end(pid);
}
END_TEST

START_TEST(test_exec_hostile_and_vanished_agent)
{
	char *argv[] = {(char *) "x", NULL};
	int null = open("/dev/null", O_RDWR | O_CLOEXEC), fd, code;
	struct agent_client_stdio io = {.in = null, .out = null, .err = null};
	struct cc_error msg = {0};
	pid_t pid;

	pid = fake_start(FAKE_HOSTILE);
	fd = connect_fake(&msg);
	ASSERT_ERRNO(agent_client_exec(fd, "web", argv, 1, &io, &code, &msg), EBADMSG);
	ck_assert_str_eq(msg.msg, "malformed data from the pod's agent");
	close(fd);
	fake_end(pid);

	pid = fake_start(FAKE_VANISH);
	fd = connect_fake(&msg);
	ASSERT_ERRNO(agent_client_exec(fd, "web", argv, 1, &io, &code, &msg), ECONNRESET);
	ck_assert_ptr_nonnull(strstr(msg.msg, "closed the connection"));
	close(fd);
	fake_end(pid);

	/* Bad requests never reach the wire. */
	pid = fake_start(FAKE_VANISH);
	fd = connect_fake(&msg);
	ASSERT_ERRNO(agent_client_exec(fd, "../etc", argv, 1, &io, &code, &msg), EINVAL);
	close(fd);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(null);
}
END_TEST

START_TEST(test_connect_failures)
{
	struct cc_error msg = {0};
	int fd = -1;
	pid_t pid;

	ck_assert_int_lt(agent_client_connect(sock_path, 1024, 1000, &fd, &msg), 0);
	ck_assert_ptr_nonnull(strstr(msg.msg, "cannot reach the pod's VM"));

	pid = fake_start(FAKE_REFUSE);
	ASSERT_ERRNO(agent_client_connect(sock_path, 1024, 5000, &fd, &msg), ECONNREFUSED);
	ck_assert_ptr_nonnull(strstr(msg.msg, "not reachable"));
	fake_end(pid);

	pid = fake_start(FAKE_BAD_OK);
	ASSERT_ERRNO(agent_client_connect(sock_path, 1024, 5000, &fd, &msg), EBADMSG);
	fake_end(pid);
	ck_assert_int_eq(fd, -1);
}
END_TEST

/*
 * The pod's cc/vsock links to vm/vsock, in the directory the jailed VMM writes: a link it plants
 * there to a live socket elsewhere (absolute, or ".." out of cc/) is refused, and the listener
 * gets nothing; so is a first link out of cc/; the relative link beneath cc/ works; a file that
 * is not a socket is refused.
 */
START_TEST(test_connect_beneath)
{
	char cc[256], vm[300], link[300], target[400], file[400];
	struct cc_error msg = {0};
	int fd = -1, cwd;
	pid_t pid;

	snprintf(cc, sizeof(cc), "%s/cc", dir);
	snprintf(vm, sizeof(vm), "%s/vm", cc);
	snprintf(link, sizeof(link), "%s/vsock", cc);
	snprintf(target, sizeof(target), "%s/vsock", vm);
	ck_assert_int_eq(mkdir(cc, 0700), 0);
	ck_assert_int_eq(mkdir(vm, 0700), 0);
	ck_assert_int_eq(symlink("vm/vsock", link), 0);

	/* A live socket outside cc/ (the fake agent at <dir>/vsock), named two ways. */
	pid = fake_start(FAKE_STOP_OK);
	ck_assert_int_eq(symlink(sock_path, target), 0);
	ASSERT_ERRNO(agent_client_connect(link, 1024, 5000, &fd, &msg), ELOOP);
	ck_assert_ptr_nonnull(strstr(msg.msg, "cannot reach the pod's VM"));
	ck_assert_int_eq(unlink(target), 0);
	ck_assert_int_eq(symlink("../../vsock", target), 0);
	ASSERT_ERRNO(agent_client_connect(link, 1024, 5000, &fd, &msg), ELOOP);
	/* The one link followed (cc/vsock) may not leave cc/ either. */
	ck_assert_int_eq(unlink(link), 0);
	ck_assert_int_eq(symlink("../vsock", link), 0);
	ASSERT_ERRNO(agent_client_connect(link, 1024, 5000, &fd, &msg), EXDEV);
	ck_assert_int_eq(unlink(link), 0);
	ck_assert_int_eq(symlink("vm/vsock", link), 0);
	ck_assert_int_eq(fd, -1);
	/* It was listening: the direct path reaches it (and ends the fake). */
	fd = connect_fake(&msg);
	ASSERT_OK(agent_client_stop(fd, 5000, &msg));
	close(fd);
	fake_end(pid);

	/* Not a socket. */
	ck_assert_int_eq(unlink(target), 0);
	snprintf(file, sizeof(file), "%s/vsock", vm);
	close(open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
	ASSERT_ERRNO(agent_client_connect(link, 1024, 5000, &fd, &msg), EBADFD);

	/* The real layout: the socket in cc/vm, reached through cc/vsock. */
	ck_assert_int_eq(unlink(target), 0);
	snprintf(sock_path, sizeof(sock_path), "%s", target);
	pid = fake_start(FAKE_STOP_OK);
	ASSERT_OK(agent_client_connect(link, 1024, 5000, &fd, &msg));
	ASSERT_OK(agent_client_stop(fd, 5000, &msg));
	close(fd);
	fake_end(pid);
	/* As stop and enter name it: relative, from the pod dir. */
	cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(cwd, 0);
	ck_assert_int_eq(chdir(dir), 0);
	pid = fake_start(FAKE_STOP_OK);
	ASSERT_OK(agent_client_connect("cc/vsock", 1024, 5000, &fd, &msg));
	ASSERT_OK(agent_client_stop(fd, 5000, &msg));
	close(fd);
	fake_end(pid);
	ck_assert_int_eq(fchdir(cwd), 0);
	close(cwd);
	snprintf(sock_path, sizeof(sock_path), "%s/vsock", dir);
}
END_TEST

/* A link or a FIFO at the socket's path (planted by a compromised VMM, which makes cc/vsock)
 * must not send the handshake to another host socket, nor block. */
START_TEST(test_connect_refuses_planted_link_and_fifo)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	_cleanup_close_ int l = -1, c = -1;
	struct cc_error msg = {0};
	int fd = -1;

	/* Another host socket, listening: the link's target. */
	ck_assert_int_lt(snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/host.sock", dir),
			 (int) sizeof(sa.sun_path));
	l = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(l, 0);
	ck_assert_int_eq(bind(l, (struct sockaddr *) &sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(l, 1), 0);
	ck_assert_int_eq(symlink(sa.sun_path, sock_path), 0);
	ASSERT_ERRNO(agent_client_connect(sock_path, 1024, 1000, &fd, &msg), ELOOP);
	ck_assert_ptr_nonnull(strstr(msg.msg, "cannot reach the pod's VM"));
	/* Nothing reached the other socket. */
	c = accept4(l, NULL, NULL, SOCK_CLOEXEC);
	ck_assert_int_eq(c, -1);
	ck_assert_int_eq(errno, EAGAIN);

	ck_assert_int_eq(unlink(sock_path), 0);
	ck_assert_int_eq(mkfifo(sock_path, 0600), 0);
	ASSERT_ERRNO(agent_client_connect(sock_path, 1024, 1000, &fd, &msg), EBADFD);
	ck_assert_int_eq(fd, -1);
}
END_TEST

START_TEST(test_stop)
{
	struct cc_error msg = {0};
	pid_t pid;
	int fd;

	pid = fake_start(FAKE_STOP_OK);
	fd = connect_fake(&msg);
	ASSERT_OK(agent_client_stop(fd, 5000, &msg));
	ck_assert_str_eq(msg.msg, "");
	close(fd);
	fake_end(pid);

	pid = fake_start(FAKE_STOP_ERROR);
	fd = connect_fake(&msg);
	ASSERT_ERRNO(agent_client_stop(fd, 5000, &msg), EIO);
	ck_assert_str_eq(msg.msg, "no apps");
	close(fd);
	fake_end(pid);

	/* Anything but ACCEPTED or ERROR is a broken agent. */
	pid = fake_start(FAKE_VANISH);
	fd = connect_fake(&msg);
	ASSERT_ERRNO(agent_client_stop(fd, 5000, &msg), EBADMSG);
	close(fd);
	fake_end(pid);
}
END_TEST

static Suite *client_suite(void)
{
	Suite *s = suite_create("agent-client");
	TCase *tc = tcase_create("client");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_exec_relay);
	tcase_add_test(tc, test_exec_big_output_while_stdin_open);
	tcase_add_test(tc, test_exec_error_reply);
	tcase_add_test(tc, test_exec_hostile_and_vanished_agent);
	tcase_add_test(tc, test_connect_failures);
	tcase_add_test(tc, test_connect_beneath);
	tcase_add_test(tc, test_stop);
	tcase_add_test(tc, test_connect_refuses_planted_link_and_fifo);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(client_suite());
}
