/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Start a command in an app's context: a transient service (systemd-run) with the app
 * unit's own sandbox, from the enter file (enter-run.h): its root, user and groups, working
 * directory, environment, capability bounding set, seccomp filter, no_new_privs, hidden
 * paths and cgroup limits, with pipes or a pty. The command is resolved in the app's root
 * first, so a missing one is still 127.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "agent.h"
#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "cc/spawn.h"
#include "enter-config.h"
#include "enter-run.h"

struct spawn_ctx {
	const struct agent_exec *e;
	struct enter_config cfg;
	char **env;
	char *path; /* the command, resolved in the app's root */
	char unit[ENTER_UNIT_MAX];
	char **run_argv;
	char stdio[3][64]; /* the pipes as systemd opens them (not with a pty) */
	char pts[64];
	int in[2], out[2], err[2];
};

static void spawn_ctx_done(struct spawn_ctx *s)
{
	enter_config_done(&s->cfg);
	enter_env_free(s->env);
	free(s->path);
	enter_argv_free(s->run_argv);
	for (size_t i = 0; i < 2; i++) {
		safe_close(s->in[i]);
		safe_close(s->out[i]);
		safe_close(s->err[i]);
	}
}

/* The app's PATH (its environment file), or NULL for systemd's default. */
static const char *spawn_env_path(char **env)
{
	for (size_t i = 0; env && env[i]; i++)
		if (strncmp(env[i], "PATH=", 5) == 0)
			return env[i] + 5;
	return NULL;
}

/* The command, as the app would find it: 127 or 126 before any unit exists. */
static int spawn_resolve(struct spawn_ctx *s, struct cc_error *err)
{
	_cleanup_free_ char *root = NULL;
	_cleanup_close_ int rootfd = -EBADF;
	const char *argv0 = s->e->argv[0];
	int r;

	if (asprintf(&root, "%s/%s/rootfs", AGENT_STAGE2, s->e->app) < 0)
		return -ENOMEM;
	rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return cc_error_set(err, -errno, "cannot open the app's root %s: %m", root);
	r = enter_command_resolve(rootfd, argv0, spawn_env_path(s->env), s->cfg.cwd, &s->path);
	if (r < 0)
		return cc_error_set_status(err,
					   r == -ENOENT ? AGENT_CODE_NOTFOUND : AGENT_CODE_NOEXEC,
					   r, "cannot execute %s: %m", argv0);
	return 0;
}

/* A unit name of our own: "cc-enter-<16 hex digits>.service". */
static int spawn_unit_name(char unit[ENTER_UNIT_MAX])
{
	uint64_t id;

	if (getrandom(&id, sizeof(id), 0) != (ssize_t) sizeof(id))
		return -EIO;
	snprintf(unit, ENTER_UNIT_MAX, "cc-enter-%016llx.service", (unsigned long long) id);
	return 0;
}

/* The enter file, the app's environment (for its PATH), the command. */
static int spawn_load(struct spawn_ctx *s, struct cc_error *err)
{
	_cleanup_free_ char *path = NULL, *text = NULL, *envtext = NULL;
	const char *app = s->e->app;
	int r;

	if (asprintf(&path, "%s/%s", AGENT_ENTER_DIR, app) < 0)
		return -ENOMEM;
	r = read_full_file(path, ENTER_FILE_MAX, &text, NULL);
	if (r == -ENOENT)
		return cc_error_set(err, r, "the pod has no app named %s", app);
	if (r >= 0)
		r = enter_config_parse(text, app, &s->cfg);
	if (r < 0)
		return cc_error_set(err, r, "cannot read %s: %m", path);
	r = read_full_file(s->cfg.env_file, ENTER_FILE_MAX, &envtext, NULL);
	if (r >= 0)
		r = enter_env_parse(envtext, &s->env);
	if (r < 0)
		return cc_error_set(err, r, "cannot read %s: %m", s->cfg.env_file);
	if (s->cfg.n_properties == 0)
		/* Never unconfined: an enter file without the app's sandbox is refused. */
		return cc_error_set(err, -EBADMSG, "%s gives no sandbox for app %s", path, app);
	r = spawn_resolve(s, err);
	if (r < 0)
		return r;
	r = spawn_unit_name(s->unit);
	if (r < 0)
		return r;
	return 0;
}

/* The systemd-run command line, once the pty (if any) exists. */
static int spawn_argv(struct spawn_ctx *s)
{
	struct enter_run run = {
		.app = s->e->app,
		.unit = s->unit,
		.tty = s->e->tty ? s->pts : NULL,
		.term = s->e->term,
		.stdio = {s->stdio[0], s->stdio[1], s->stdio[2]},
		.path = s->path,
		.argv = s->e->argv,
	};

	return enter_run_argv(&s->cfg, &run, &s->run_argv);
}

static int spawn_stdio(struct spawn_ctx *s, struct agent_child *c)
{
	if (s->e->tty) {
		struct winsize ws = {.ws_row = s->e->rows, .ws_col = s->e->cols};
		int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);

		if (m < 0)
			return -errno;
		c->in = c->out = m;
		if (grantpt(m) < 0 || unlockpt(m) < 0 || ptsname_r(m, s->pts, sizeof(s->pts)) != 0)
			return -errno;
		if (ws.ws_row > 0 && ws.ws_col > 0)
			(void) ioctl(m, TIOCSWINSZ, &ws);
		return 0;
	}
	if (pipe2(s->in, O_CLOEXEC) < 0 || pipe2(s->out, O_CLOEXEC) < 0 ||
	    pipe2(s->err, O_CLOEXEC) < 0)
		return -errno;
	c->in = TAKE_FD(s->in[1]);
	c->out = TAKE_FD(s->out[0]);
	c->err = TAKE_FD(s->err[0]);
	return 0;
}

/* /proc/<agent>/fd/<n>: systemd opens our end of a pipe again, as the other end. */
static void spawn_stdio_paths(struct spawn_ctx *s, const struct agent_child *c)
{
	const int fds[3] = {c->in, c->out, c->err};

	for (size_t i = 0; i < 3; i++)
		snprintf(s->stdio[i], sizeof(s->stdio[i]), "/proc/%d/fd/%d", (int) getpid(),
			 fds[i]);
}

/*
 * systemd-run: returns once systemd has executed the command (Type=exec), with its exit
 * status and, on failure, the first line it wrote on stderr in *ret_err.
 */
static int spawn_systemd_run(struct spawn_ctx *s, char **ret_err)
{
	struct spawn_req req = {
		.path = s->run_argv[0],
		.argv = s->run_argv,
		.out_max = 64 * 1024,
		.err = SPAWN_STDERR_CAPTURE, /* its first line is the message */
	};
	_cleanup_free_ char *err = NULL;
	int r, status;

	r = spawn_run(&req, &status, &err, NULL);
	if (r < 0)
		return r;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	err[strcspn(err, "\n")] = '\0';
	if (!err[0] && WIFEXITED(status) && WEXITSTATUS(status) == 127)
		*ret_err = strdup("cannot execute it");
	else
		*ret_err = strdup(err[0] ? err : "systemd-run failed");
	return spawn_exit_code(status);
}

/* MainPID of the unit, 0 when it has none (its command already ended). */
static int spawn_main_pid(const char *unit, pid_t *ret)
{
	char *argv[] = {
		(char *) AGENT_SYSTEMCTL, (char *) "show", (char *) "-p", (char *) "MainPID",
		(char *) "--value",	  (char *) unit,   NULL};
	_cleanup_free_ char *out = NULL;
	char *end;
	long v;
	int r;

	r = agent_run(argv, &out, 64);
	if (r < 0)
		return r;
	if (r != 0)
		return -EIO;
	errno = 0;
	v = strtol(out, &end, 10);
	if (errno != 0 || end == out || (*end != '\n' && *end != '\0') || v < 0 || v > 0x3fffffff)
		return -EBADMSG;
	*ret = (pid_t) v;
	return 0;
}

/* A pidfd on the command (the unit's main process), -1 when it has already ended. */
static int spawn_watch(struct spawn_ctx *s, struct agent_child *c)
{
	pid_t pid = 0, again = 0;
	int fd, r;

	r = spawn_main_pid(s->unit, &pid);
	if (r < 0 || pid == 0)
		return r;
	fd = (int) syscall(SYS_pidfd_open, pid, 0);
	if (fd < 0)
		return errno == ESRCH ? 0 : -errno;
	/* Still the unit's main process once the pidfd exists: not a reused pid. */
	r = spawn_main_pid(s->unit, &again);
	if (r < 0 || again != pid) {
		close(fd);
		return r < 0 ? r : 0;
	}
	c->pid = pid;
	c->pidfd = fd;
	return 0;
}

/* Start the command's unit and watch its main process. */
static int spawn_start(struct spawn_ctx *s, struct agent_child *c, struct cc_error *reterr)
{
	_cleanup_free_ char *err = NULL;
	int r;

	r = spawn_systemd_run(s, &err);
	if (r < 0)
		return cc_error_set(reterr, r, "cannot run %s: %m", ENTER_SYSTEMD_RUN);
	if (r > 0) {
		int code = agent_unit_code(s->unit, AGENT_CODE_SETUP);

		/* systemd could not set the command up (e.g. 200 CHDIR, 203 EXEC): its code. */
		return cc_error_set_status(
			reterr, code, -EIO, "the command could not be started: %s%s", err,
			code != AGENT_CODE_SETUP ? " (see the pod's journal)" : "");
	}
	memcpy(c->unit, s->unit, sizeof(c->unit));
	r = spawn_watch(s, c);
	if (r < 0) {
		agent_unit_kill(c->unit);
		return cc_error_set(reterr, r, "cannot watch the command's unit %s: %m", s->unit);
	}
	return 0;
}

int agent_spawn(const struct agent_exec *e, struct agent_child *ret, struct cc_error *err)
{
	struct spawn_ctx s = {.e = e, .in = {-1, -1}, .out = {-1, -1}, .err = {-1, -1}};
	struct agent_child c = {.in = -1, .out = -1, .err = -1, .pidfd = -1, .tty = e->tty};
	int r;

	assert_return(err, -EINVAL);
	*err = (struct cc_error){0};
	r = spawn_load(&s, err);
	if (r >= 0) {
		r = spawn_stdio(&s, &c);
		if (r < 0)
			(void) cc_error_set(err, r, "cannot create the command's stdio: %m");
	}
	if (r >= 0) {
		spawn_stdio_paths(&s, &c);
		r = spawn_argv(&s);
	}
	if (r >= 0)
		r = spawn_start(&s, &c, err);
	spawn_ctx_done(&s);
	if (r < 0) {
		agent_child_close(&c);
		if (!err->msg[0])
			(void) cc_error_set(err, r, "cannot start the command: %m");
		if (!err->status)
			err->status = AGENT_CODE_SETUP;
		return r;
	}
	*ret = c;
	return 0;
}

void agent_child_close(struct agent_child *c)
{
	if (c->in >= 0 && c->in != c->out)
		safe_close(c->in);
	c->in = -1;
	c->out = safe_close(c->out);
	c->err = safe_close(c->err);
	c->pidfd = safe_close(c->pidfd);
}

/* ExecMainCode/ExecMainStatus of the unit as a code (enter_result_parse()). */
static int agent_unit_result(const char *unit, int *ret_code)
{
	char *argv[] = {(char *) AGENT_SYSTEMCTL,
			(char *) "show",
			(char *) "-p",
			(char *) "ExecMainCode",
			(char *) "-p",
			(char *) "ExecMainStatus",
			(char *) unit,
			NULL};
	_cleanup_free_ char *out = NULL;
	int r = agent_run(argv, &out, 256);

	if (r < 0)
		return r;
	if (r != 0)
		return -EIO;
	return enter_result_parse(out, ret_code);
}

static void agent_unit_systemctl(const char *verb, const char *unit)
{
	char *argv[] = {(char *) AGENT_SYSTEMCTL, (char *) verb, (char *) unit, NULL};

	(void) agent_run(argv, NULL, 0);
}

int agent_unit_code(const char *unit, int fallback)
{
	int code;

	if (agent_unit_result(unit, &code) < 0)
		code = fallback;
	agent_unit_systemctl("reset-failed", unit);
	return code;
}

int agent_unit_finish(const char *unit)
{
	int code = AGENT_CODE_SETUP, r = -EBADMSG;

	/* The pidfd says the process ended; systemd records it once it has reaped it. */
	for (int i = 0; i < 1000 && r == -EBADMSG; i++) {
		r = agent_unit_result(unit, &code);
		if (r == -EBADMSG)
			(void) usleep(10 * 1000);
	}
	if (r < 0)
		code = AGENT_CODE_SETUP;
	/* RemainAfterExit=yes keeps a unit whose command exited 0 active: stop it (and what the
	 * command left running); a failed one is reset. */
	agent_unit_systemctl(code == 0 ? "stop" : "reset-failed", unit);
	return code;
}

void agent_unit_kill(const char *unit)
{
	char *argv[] = {(char *) AGENT_SYSTEMCTL, (char *) "kill", (char *) "--signal=SIGKILL",
			(char *) unit, NULL};

	if (unit[0] == '\0')
		return;
	(void) agent_run(argv, NULL, 0);
	agent_unit_systemctl("stop", unit);
	agent_unit_systemctl("reset-failed", unit);
}
