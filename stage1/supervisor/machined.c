/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/spawn.h"
#include "machined.h"
#include "pod-paths.h"

#define SYSTEM_BUS_SOCKET "/run/dbus/system_bus_socket" /* sd-bus's default address */
#define ARGS_MAX	  16

/* Nothing to talk to: no address given and no socket at the default one. */
static bool bus_absent(void)
{
	return !getenv("DBUS_SYSTEM_BUS_ADDRESS") && access(SYSTEM_BUS_SOCKET, F_OK) < 0 &&
	       errno == ENOENT;
}

/*
 * Run cc-stage1-machined with args (NULL-terminated): the stage1 image's copy through its own
 * loader, or $CC_STAGE1_MACHINED as is. Returns its exit status, with its stderr line in *err
 * when it failed, or a negative errno.
 */
static int machined_run(char *const *args, const char *what, struct cc_error *err)
{
	_cleanup_free_ char *cwd = NULL, *loader = NULL, *libs = NULL, *prog = NULL, *out = NULL,
			    *bus_env = NULL;
	const char *test = getenv("CC_STAGE1_MACHINED"), *bus = getenv("DBUS_SYSTEM_BUS_ADDRESS");
	char *argv[ARGS_MAX + 8], *envp[2] = {};
	size_t n = 0;
	int r, status, code;

	if (test && *test) {
		argv[n++] = (char *) test;
	} else {
		cwd = getcwd(NULL, 0);
		/* ld.so splits --library-path at ':' and ';' and expands '$ORIGIN' and the like. */
		if (cwd && cwd[strcspn(cwd, ":;$")])
			return cc_error_set(err, -EINVAL,
					    "%s: the pod dir's path has ':', ';' or '$'", what);
		if (!cwd ||
		    asprintf(&loader, "%s/%s/%s", cwd, POD_STAGE1_ROOTFS, MACHINED_LOADER) < 0 ||
		    asprintf(&libs, "%s/%s/%s", cwd, POD_STAGE1_ROOTFS, MACHINED_LIB_DIR) < 0 ||
		    asprintf(&prog, "%s/%s/%s", cwd, POD_STAGE1_ROOTFS, MACHINED_PROGRAM) < 0)
			return cc_error_set(err, -ENOMEM, "%s: %m", what);
		/* Not the host's ld.so.cache: the image's libraries (cc/lib has all it links). */
		argv[n++] = loader;
		argv[n++] = (char *) "--inhibit-cache";
		argv[n++] = (char *) "--library-path";
		argv[n++] = libs;
		argv[n++] = (char *) "--argv0";
		argv[n++] = (char *) "cc-stage1-machined";
		argv[n++] = prog;
	}
	for (size_t i = 0; i < ARGS_MAX && args[i]; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	/* Of our environment, only the bus address (no LD_PRELOAD, no SYSTEMD_LOG_LEVEL). */
	if (bus && asprintf(&bus_env, "DBUS_SYSTEM_BUS_ADDRESS=%s", bus) < 0)
		return cc_error_set(err, -ENOMEM, "%s: %m", what);
	envp[0] = bus_env;

	struct spawn_req req = {
		.path = argv[0],
		.argv = argv,
		.envp = envp,
		.out_max = CC_ERROR_MSG_MAX,
		.timeout_ms = MACHINED_TIMEOUT_MS,
		.err = SPAWN_STDERR_CAPTURE,
	};

	r = spawn_run(&req, &status, &out, NULL);
	if (r == -ETIMEDOUT)
		return cc_error_set(err, r, "%s: no answer within %d s", what,
				    MACHINED_TIMEOUT_MS / 1000);
	if (r < 0)
		return cc_error_set(err, r, "%s: cannot run %s: %m", what, argv[0]);
	code = spawn_exit_code(status);
	if (code == MACHINED_EXIT_FAILED || code == MACHINED_EXIT_USAGE || code == 127 ||
	    code > 128) {
		out[strcspn(out, "\n")] = '\0';
		if (*out)
			return cc_error_set(err, -EIO, "%s", out);
		return cc_error_set(err, -EIO, "%s: %s exited with %d", what, argv[0], code);
	}
	return code;
}

int machined_register(const struct machined_machine *m, bool *ret_scope, struct cc_error *err)
{
	static const char what[] = "cannot register the pod with systemd-machined";
	char name[300], id[40], leader[32], root[4200], mem[40], tasks[40];
	char *args[ARGS_MAX] = {(char *) "register", name, id, leader, root};
	int r;

	*ret_scope = false;
	if (bus_absent())
		return -EOPNOTSUPP;
	(void) snprintf(name, sizeof(name), "--name=%s", m->name);
	(void) snprintf(id, sizeof(id), "--id=");
	for (size_t i = 0; i < sizeof(m->id); i++)
		(void) snprintf(id + 5 + 2 * i, sizeof(id) - 5 - 2 * i, "%02x", m->id[i]);
	(void) snprintf(leader, sizeof(leader), "--leader=%d", (int) m->leader);
	if ((size_t) snprintf(root, sizeof(root), "--root=%s", m->root_directory) >= sizeof(root))
		return cc_error_set(err, -ENAMETOOLONG, "%s: the stage1 rootfs path is too long",
				    what);
	if (m->memory_max && m->tasks_max) {
		(void) snprintf(mem, sizeof(mem), "--memory-max=%" PRIu64, m->memory_max);
		(void) snprintf(tasks, sizeof(tasks), "--tasks-max=%" PRIu64, m->tasks_max);
		args[5] = mem;
		args[6] = tasks;
	}
	r = machined_run(args, what, err);
	if (r < 0)
		return r;
	switch (r) {
	case MACHINED_EXIT_SCOPE:
		*ret_scope = true;
		return 0;
	case MACHINED_EXIT_UNIT:
		return 0;
	case MACHINED_EXIT_ABSENT:
		return -EOPNOTSUPP;
	default:
		return cc_error_set(err, -EIO, "%s: cc-stage1-machined exited with %d", what, r);
	}
}

int machined_unregister(const char *name, struct cc_error *err)
{
	static const char what[] = "cannot unregister the pod from systemd-machined";
	char arg[300];
	char *args[] = {(char *) "unregister", arg, NULL};
	int r;

	if (bus_absent())
		return 0;
	(void) snprintf(arg, sizeof(arg), "--name=%s", name);
	r = machined_run(args, what, err);
	if (r < 0)
		return r;
	if (r != MACHINED_EXIT_SCOPE)
		return cc_error_set(err, -EIO, "%s: cc-stage1-machined exited with %d", what, r);
	return 0;
}
