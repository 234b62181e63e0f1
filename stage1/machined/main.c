/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cc-stage1-machined: run's and gc's door to systemd-machined, through libsystemd's sd-bus.
 * The entrypoints are static (they run on any host's glibc) and Debian ships no static
 * libsystemd, so they run this one dynamically linked program through the stage1 image's own
 * loader and libraries (stage1/supervisor/machined.c), as rkt's coreos stage1 runs systemd-nspawn.
 *
 *   cc-stage1-machined register --name=NAME --id=32HEX --leader=PID --root=DIR
 *                               [--memory-max=BYTES --tasks-max=N]
 *   cc-stage1-machined unregister --name=NAME
 *
 * Exit status (stage1/supervisor/machined.h): 0 registered in a scope of its own (CreateMachine) or
 * unregistered; 10 registered with the leader's own unit (RegisterMachine); 3 no system bus
 * or no machined on it (register only; nothing is printed); 2 usage; 1 failed, with one line
 * on stderr.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine1.h"
#include "machined.h"

static int usage(const char *why)
{
	fprintf(stderr, "cc-stage1-machined: %s\n", why);
	return MACHINED_EXIT_USAGE;
}

/* A decimal number in [min, max], nothing else. */
static int number(const char *s, uint64_t min, uint64_t max, uint64_t *ret)
{
	char *end;
	uint64_t v;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*ret = v;
	return 0;
}

static int hex_id(const char *s, uint8_t id[16])
{
	if (!s || strlen(s) != 32)
		return -EINVAL;
	for (size_t i = 0; i < 16; i++) {
		unsigned v;

		if (sscanf(s + 2 * i, "%2x", &v) != 1 || !strchr("0123456789abcdef", s[2 * i]) ||
		    !strchr("0123456789abcdef", s[2 * i + 1]))
			return -EINVAL;
		id[i] = (uint8_t) v;
	}
	return 0;
}

int main(int argc, char *argv[])
{
	static const struct option options[] = {
		{"name", required_argument, NULL, 'n'},
		{"id", required_argument, NULL, 'i'},
		{"leader", required_argument, NULL, 'l'},
		{"root", required_argument, NULL, 'r'},
		{"memory-max", required_argument, NULL, 'm'},
		{"tasks-max", required_argument, NULL, 't'},
		{},
	};
	struct machined_machine m = {.service = "rkt", .class = "container"};
	const char *id = NULL, *leader = NULL, *mem = NULL, *tasks = NULL;
	struct cc_error err = {0};
	uint64_t v;
	bool reg, scope;
	int c, r;

	if (argc < 2 || (strcmp(argv[1], "register") != 0 && strcmp(argv[1], "unregister") != 0))
		return usage("expected register or unregister");
	reg = strcmp(argv[1], "register") == 0;
	optind = 2;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", options, NULL)) >= 0) {
		switch (c) {
		case 'n':
			m.name = optarg;
			break;
		case 'i':
			id = optarg;
			break;
		case 'l':
			leader = optarg;
			break;
		case 'r':
			m.root_directory = optarg;
			break;
		case 'm':
			mem = optarg;
			break;
		case 't':
			tasks = optarg;
			break;
		default:
			return usage("unknown option or missing value");
		}
	}
	if (optind != argc)
		return usage("unexpected argument");
	if (!m.name || !*m.name || strlen(m.name) > 255)
		return usage("--name: expected 1-255 bytes");
	if (!reg) {
		if (id || leader || m.root_directory || mem || tasks)
			return usage("unregister takes --name only");
		r = machine1_unregister(m.name, &err);
		if (r < 0) {
			fprintf(stderr, "%s\n", cc_error_message(&err));
			return MACHINED_EXIT_FAILED;
		}
		return MACHINED_EXIT_SCOPE;
	}
	if (hex_id(id, m.id) < 0)
		return usage("--id: expected 32 lowercase hex digits");
	if (number(leader, 1, INT32_MAX, &v) < 0)
		return usage("--leader: expected a process ID");
	m.leader = (pid_t) v;
	if (!m.root_directory || m.root_directory[0] != '/')
		return usage("--root: expected an absolute path");
	if (!mem != !tasks)
		return usage("--memory-max and --tasks-max go together");
	if (mem && (number(mem, 1, UINT64_MAX, &m.memory_max) < 0 ||
		    number(tasks, 1, UINT64_MAX, &m.tasks_max) < 0))
		return usage("--memory-max, --tasks-max: expected positive numbers");
	r = machine1_register(&m, &scope, &err);
	if (r == -EOPNOTSUPP)
		return MACHINED_EXIT_ABSENT;
	if (r < 0) {
		fprintf(stderr, "%s\n", cc_error_message(&err));
		return MACHINED_EXIT_FAILED;
	}
	return scope ? MACHINED_EXIT_SCOPE : MACHINED_EXIT_UNIT;
}
