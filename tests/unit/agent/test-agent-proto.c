/* SPDX-License-Identifier: Apache-2.0 */
/* agent/proto: frames, EXEC/ERROR/EXIT/WINCH payloads, the socket reader. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent-io.h"
#include "agent-proto.h"
#include "cc/cleanup.h"
#include "cctest.h"

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t) v;
	p[1] = (uint8_t) (v >> 8);
	p[2] = (uint8_t) (v >> 16);
	p[3] = (uint8_t) (v >> 24);
}

START_TEST(test_frame_parse)
{
	uint8_t buf[64] = {};
	struct agent_frame f;
	size_t used;

	ck_assert_int_eq(agent_frame_parse(buf, 0, &f, &used), 0);
	ASSERT_OK(agent_frame_header(buf, AGENT_STDOUT, 3));
	memcpy(buf + 8, "abc", 3);
	for (size_t n = 0; n < 11; n++)
		ck_assert_int_eq(agent_frame_parse(buf, n, &f, &used), 0);
	ck_assert_int_eq(agent_frame_parse(buf, 11, &f, &used), 1);
	ck_assert_uint_eq(f.type, AGENT_STDOUT);
	ck_assert_uint_eq(f.len, 3);
	ck_assert_mem_eq(f.payload, "abc", 3);
	ck_assert_uint_eq(used, 11);
	/* Trailing bytes belong to the next frame. */
	ck_assert_int_eq(agent_frame_parse(buf, 40, &f, &used), 1);
	ck_assert_uint_eq(used, 11);
}
END_TEST

START_TEST(test_frame_parse_rejects_on_header)
{
	static const struct {
		uint32_t type, len;
	} bad[] = {
		{0, 0},
		{11, 0},
		{0xffffffff, 1},
		{AGENT_STDOUT, 0},
		{AGENT_STDOUT, AGENT_PAYLOAD_MAX + 1},
		{AGENT_STDIN, 0xffffffff},
		{AGENT_EXIT, 3},
		{AGENT_EXIT, 5},
		{AGENT_WINCH, 0},
		{AGENT_STOP, 0},
		{AGENT_ACCEPTED, 1},
		{AGENT_STDIN_EOF, 4},
		{AGENT_ERROR, 4},
		{AGENT_ERROR, 4 + AGENT_ERROR_MSG_MAX + 1},
		{AGENT_EXEC, 19},
		{AGENT_EXEC, AGENT_PAYLOAD_MAX + 1},
	};
	uint8_t hdr[8];
	struct agent_frame f;
	size_t used;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		put32(hdr, bad[i].type);
		put32(hdr + 4, bad[i].len);
		/* Refused from the header alone: no waiting for a payload that is not allowed. */
		ck_assert_msg(agent_frame_parse(hdr, sizeof(hdr), &f, &used) == -EBADMSG,
			      "type %u len %u", bad[i].type, bad[i].len);
	}
	ASSERT_ERRNO(agent_frame_header(hdr, AGENT_STDOUT, AGENT_PAYLOAD_MAX + 1), EMSGSIZE);
	ASSERT_ERRNO(agent_frame_header(hdr, 77, 0), EINVAL);
	ASSERT_ERRNO(agent_frame_header(hdr, AGENT_EXIT, 3), EINVAL);
	ASSERT_ERRNO(agent_frame_parse(NULL, 8, &f, &used), EINVAL);
}
END_TEST

START_TEST(test_exec_round_trip)
{
	char *argv[] = {(char *) "/bin/sh", (char *) "-c", (char *) "", (char *) "x y", NULL};
	struct agent_exec e = {.app = (char *) "my-app1",
			       .term = (char *) "xterm-256color",
			       .tty = true,
			       .rows = 50,
			       .cols = 132,
			       .argc = 4,
			       .argv = argv};
	_cleanup_free_ uint8_t *buf = NULL;
	struct agent_exec d;
	struct agent_frame f;
	size_t len, used;

	ASSERT_OK(agent_exec_encode(&e, &buf, &len));
	ck_assert_int_eq(agent_frame_parse(buf, len, &f, &used), 1);
	ck_assert_uint_eq(used, len);
	ck_assert_uint_eq(f.type, AGENT_EXEC);
	ASSERT_OK(agent_exec_decode(f.payload, f.len, &d));
	ck_assert_str_eq(d.app, "my-app1");
	ck_assert_str_eq(d.term, "xterm-256color");
	ck_assert(d.tty);
	ck_assert_uint_eq(d.rows, 50);
	ck_assert_uint_eq(d.cols, 132);
	ck_assert_uint_eq(d.argc, 4);
	for (size_t i = 0; i < 4; i++)
		ck_assert_str_eq(d.argv[i], argv[i]);
	ck_assert_ptr_null(d.argv[4]);
	agent_exec_done(&d);
	ck_assert_ptr_null(d.argv);
}
END_TEST

START_TEST(test_exec_encode_rejects)
{
	char *argv[] = {(char *) "ls", NULL};
	char *empty[] = {(char *) "", NULL};
	struct agent_exec e = {.app = (char *) "a", .term = (char *) "", .argc = 1, .argv = argv};
	_cleanup_free_ uint8_t *buf = NULL;
	_cleanup_free_ char *big = malloc(AGENT_PAYLOAD_MAX);
	char *bigv[] = {big, NULL};
	size_t len;

	static const char *const bad_apps[] = {"", "-a", "a-", "A", "a/b", "..", "a b", "a_b"};
	for (size_t i = 0; i < sizeof(bad_apps) / sizeof(bad_apps[0]); i++) {
		e.app = (char *) bad_apps[i];
		ASSERT_ERRNO(agent_exec_encode(&e, &buf, &len), EINVAL);
	}
	e.app = (char *) "a";
	e.term = (char *) "xterm;rm";
	ASSERT_ERRNO(agent_exec_encode(&e, &buf, &len), EINVAL);
	e.term = (char *) "";
	e.argc = 0;
	ASSERT_ERRNO(agent_exec_encode(&e, &buf, &len), EINVAL);
	e.argc = AGENT_ARGC_MAX + 1;
	ASSERT_ERRNO(agent_exec_encode(&e, &buf, &len), EINVAL);
	e.argc = 1;
	e.argv = empty;
	ASSERT_ERRNO(agent_exec_encode(&e, &buf, &len), EINVAL);
	memset(big, 'x', AGENT_PAYLOAD_MAX - 1);
	big[AGENT_PAYLOAD_MAX - 1] = '\0';
	e.argv = bigv;
	ASSERT_ERRNO(agent_exec_encode(&e, &buf, &len), E2BIG);
	ck_assert(agent_app_name_is_valid("a-b-0"));
}
END_TEST

/* A hand-made EXEC payload: version, flags, argc, then strings. */
static size_t mk_exec(uint8_t *p, uint32_t version, uint32_t flags, uint32_t argc,
		      const char *strings, size_t slen)
{
	put32(p, version);
	put32(p + 4, flags);
	put32(p + 8, 0x00280019);
	put32(p + 12, argc);
	memcpy(p + 16, strings, slen);
	return 16 + slen;
}

/* A string literal and its length without the final NUL. */
#define S(x) x, sizeof(x) - 1

START_TEST(test_exec_decode_rejects)
{
	static const struct {
		uint32_t version, flags, argc;
		const char *s;
		size_t slen;
		int err;
	} cases[] = {
		{1, 0, 1, S("app\0\0ls\0"), 0},
		{2, 0, 1, S("app\0\0ls\0"), EPROTONOSUPPORT},
		{1, 2, 1, S("app\0\0ls\0"), EBADMSG},
		{1, 0, 0, S("app\0\0"), EBADMSG},
		{1, 0, 2, S("app\0\0ls\0"), EBADMSG},
		{1, 0, 1, S("app\0\0ls\0x"), EBADMSG},
		{1, 0, 1, S("app\0\0ls"), EBADMSG},
		{1, 0, 1, S("app\0\0\0"), EBADMSG},
		{1, 0, 1, S("App\0\0ls\0"), EBADMSG},
		{1, 0, 1, S("../x\0\0ls\0"), EBADMSG},
		{1, 0, 1, S("app\0x y\0ls\0"), EBADMSG},
		{1, 0, AGENT_ARGC_MAX + 1, S("app\0\0ls\0"), EBADMSG},
		{1, 0, 0xffffffff, S("app\0\0ls\0"), EBADMSG},
	};
	uint8_t p[64];
	struct agent_exec d;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = mk_exec(p, cases[i].version, cases[i].flags, cases[i].argc, cases[i].s,
				   cases[i].slen);
		int r = agent_exec_decode(p, n, &d);

		ck_assert_msg(r == -cases[i].err, "case %zu: %d", i, r);
		if (r == 0) {
			ck_assert_str_eq(d.argv[0], "ls");
			ck_assert_uint_eq(d.rows, 0x19);
			ck_assert_uint_eq(d.cols, 0x28);
			agent_exec_done(&d);
		}
	}
	ASSERT_ERRNO(agent_exec_decode(p, 15, &d), EBADMSG);
}
END_TEST

START_TEST(test_small_payloads)
{
	uint8_t p[4 + AGENT_ERROR_MSG_MAX + 8];
	struct agent_frame f = {.type = AGENT_EXIT, .len = 4, .payload = p};
	_cleanup_free_ char *msg = NULL;
	char *m2 = NULL;
	uint16_t rows, cols;
	size_t len;
	int code;

	agent_u32_encode(p, 255);
	ASSERT_OK(agent_exit_decode(&f, &code));
	ck_assert_int_eq(code, 255);
	agent_u32_encode(p, 256);
	ASSERT_ERRNO(agent_exit_decode(&f, &code), EBADMSG);
	f.type = AGENT_STDOUT;
	ASSERT_ERRNO(agent_exit_decode(&f, &code), EBADMSG);

	agent_winch_encode(p, 24, 80);
	f = (struct agent_frame){.type = AGENT_WINCH, .len = 4, .payload = p};
	ASSERT_OK(agent_winch_decode(&f, &rows, &cols));
	ck_assert_uint_eq(rows, 24);
	ck_assert_uint_eq(cols, 80);

	ASSERT_OK(agent_error_encode(p, sizeof(p), 127, "no \x1b[2Jsuch\ncommand", &len));
	f = (struct agent_frame){.type = AGENT_ERROR, .len = (uint32_t) len, .payload = p};
	ASSERT_OK(agent_error_decode(&f, &code, &msg));
	ck_assert_int_eq(code, 127);
	ck_assert_str_eq(msg, "no ?[2Jsuch?command");
	/* A hostile peer's control characters are refused, not printed. */
	p[6] = '\x1b';
	ASSERT_ERRNO(agent_error_decode(&f, &code, &m2), EBADMSG);
	p[6] = 'x';
	put32(p, 300);
	ASSERT_ERRNO(agent_error_decode(&f, &code, &m2), EBADMSG);
	ck_assert_ptr_null(m2);
	ASSERT_OK(agent_error_encode(p, sizeof(p), 1, "", &len));
	ck_assert_uint_eq(len, 4 + 5);
	ASSERT_ERRNO(agent_error_encode(p, 6, 1, "long message", &len), ENOBUFS);
	ASSERT_ERRNO(agent_error_encode(p, sizeof(p), 256, "x", &len), EINVAL);
}
END_TEST

START_TEST(test_reader_over_socket)
{
	int sv[2];
	struct agent_reader rd;
	struct agent_frame f;
	uint8_t big[AGENT_PAYLOAD_MAX];
	pid_t pid;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	memset(big, 'b', sizeof(big));
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		uint8_t hdr[8];

		close(sv[0]);
		/* Byte by byte, then whole frames, then a truncated one. */
		agent_frame_header(hdr, AGENT_STDIN, 2);
		for (int i = 0; i < 8; i++)
			(void) !write(sv[1], hdr + i, 1);
		(void) !write(sv[1], "hi", 2);
		agent_send(sv[1], AGENT_STDIN, big, sizeof(big));
		agent_send(sv[1], AGENT_STDIN_EOF, NULL, 0);
		agent_send(sv[1], AGENT_STDIN, big, sizeof(big));
		agent_frame_header(hdr, AGENT_STDIN, 10);
		(void) !write(sv[1], hdr, 8);
		(void) !write(sv[1], "abc", 3);
		_exit(0);
	}
	close(sv[1]);
	ASSERT_OK(agent_reader_init(&rd));
	ck_assert_int_eq(agent_reader_wait(&rd, sv[0], 5000, &f), 1);
	ck_assert_uint_eq(f.len, 2);
	ck_assert_mem_eq(f.payload, "hi", 2);
	ck_assert_int_eq(agent_reader_wait(&rd, sv[0], 5000, &f), 1);
	ck_assert_uint_eq(f.len, sizeof(big));
	ck_assert_mem_eq(f.payload, big, sizeof(big));
	ck_assert_int_eq(agent_reader_wait(&rd, sv[0], 5000, &f), 1);
	ck_assert_uint_eq(f.type, AGENT_STDIN_EOF);
	ck_assert_int_eq(agent_reader_wait(&rd, sv[0], 5000, &f), 1);
	ck_assert_uint_eq(f.len, sizeof(big));
	ASSERT_ERRNO(agent_reader_wait(&rd, sv[0], 5000, &f), ECONNRESET);
	agent_reader_done(&rd);
	close(sv[0]);
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
}
END_TEST

START_TEST(test_reader_timeout_and_garbage)
{
	int sv[2];
	struct agent_reader rd;
	struct agent_frame f;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	ASSERT_OK(agent_reader_init(&rd));
	ASSERT_ERRNO(agent_reader_wait(&rd, sv[0], 50, &f), ETIMEDOUT);
	ck_assert_int_eq(write(sv[1], "GET / HTTP/1.0\r\n", 16), 16);
	ASSERT_ERRNO(agent_reader_wait(&rd, sv[0], 1000, &f), EBADMSG);
	agent_reader_done(&rd);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

static Suite *proto_suite(void)
{
	Suite *s = suite_create("agent-proto");
	TCase *tc = tcase_create("proto");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_frame_parse);
	tcase_add_test(tc, test_frame_parse_rejects_on_header);
	tcase_add_test(tc, test_exec_round_trip);
	tcase_add_test(tc, test_exec_encode_rejects);
	tcase_add_test(tc, test_exec_decode_rejects);
	tcase_add_test(tc, test_small_payloads);
	tcase_add_test(tc, test_reader_over_socket);
	tcase_add_test(tc, test_reader_timeout_and_garbage);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(proto_suite());
}
