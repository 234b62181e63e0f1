/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target: the entrypoints' command lines (NUL-separated arguments) through every
 * ccpod flag parser, and each argument through the environment and Exec*= quoting.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stage1/env.h"
#include "stage1/flags.h"
#include "stage1/unit.h"

#define ARGS_MAX 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_error(int r, const struct cc_error *err)
{
	/* Every failure explains itself in one line. */
	if (r < 0 && (err->msg[0] == '\0' || strchr(err->msg, '\n')))
		abort();
}

static void check_quoted(const char *arg)
{
	char *q = NULL, *cmd = NULL;
	char *argv[] = {(char *) arg};
	struct unit_exec e = {"/bin/x", argv, 1};
	struct cc_error err = {0};
	size_t n;

	if (env_value_quote(arg, &q) < 0)
		return;
	/* Double-quoted, and no unescaped quote inside. */
	n = strlen(q);
	if (n < 2 || q[0] != '"' || q[n - 1] != '"')
		abort();
	for (size_t i = 1; i + 1 < n; i++) {
		if (q[i] == '\\')
			i++;
		else if (q[i] == '"' || q[i] == '$' || q[i] == '`')
			abort();
	}
	free(q);
	if (unit_exec_format("", &e, &cmd, &err) >= 0) {
		/* One line, whatever the argument holds. */
		if (strchr(cmd, '\n'))
			abort();
		free(cmd);
	} else {
		check_error(-1, &err);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, *argv[ARGS_MAX + 2];
	int argc = 0;
	struct cc_error err = {0};
	struct run_flags rf;
	struct stop_flags sf;
	struct enter_flags ef;
	struct gc_flags gf;

	if (size > 8192)
		return 0;
	buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	argv[argc++] = (char *) "entrypoint";
	for (char *p = buf; p < buf + size && argc <= ARGS_MAX; p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;

	check_error(run_flags_parse(argc, argv, &rf, &err), &err);
	if (run_flags_parse(argc, argv, &rf, &err) >= 0) {
		if (!stage1_uuid_is_valid(rf.uuid) || !rf.net)
			abort();
		check_error(run_flags_check_supported(&rf, &err), &err);
	}
	check_error(stop_flags_parse(argc, argv, &sf, &err), &err);
	check_error(gc_flags_parse(argc, argv, &gf, &err), &err);
	if (enter_flags_parse(argc, argv, &ef, &err) >= 0) {
		if (ef.n_cmd < 1 || ef.pid <= 0 || !stage1_ac_name_is_valid(ef.app_name))
			abort();
	} else {
		check_error(-1, &err);
	}
	for (int i = 1; i < argc; i++)
		check_quoted(argv[i]);
	free(buf);
	return 0;
}
