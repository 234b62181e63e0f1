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
#include "enter-config.h"
#include "enter-run.h"

/* Child setup steps, reported through the error pipe. */
enum spawn_step {
	STEP_TTY,
	STEP_STDIO,
	STEP_EXEC, /* of systemd-run */
};

struct spawn_error {
	int step;
	int err;
};

struct spawn_ctx {
	const struct agent_exec *e;
	struct enter_config cfg;
	char **env;
	char *path; /* the command, resolved in the app's root */
	char unit[ENTER_UNIT_MAX];
	char **run_argv;
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
static int spawn_resolve(struct spawn_ctx *s, int *ret_code, char **ret_msg)
{
	_cleanup_free_ char *root = NULL;
	_cleanup_close_ int rootfd = -EBADF;
	const char *argv0 = s->e->argv[0];
	int r;

	if (asprintf(&root, "%s/%s/rootfs", AGENT_STAGE2, s->e->app) < 0)
		return -ENOMEM;
	rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0) {
		r = -errno;
		agent_msg(ret_msg, "cannot open the app's root %s: %s", root, strerror(-r));
		return r;
	}
	r = enter_command_resolve(rootfd, argv0, spawn_env_path(s->env), s->cfg.cwd, &s->path);
	if (r < 0) {
		*ret_code = r == -ENOENT ? AGENT_CODE_NOTFOUND : AGENT_CODE_NOEXEC;
		agent_msg(ret_msg, "cannot execute %s: %s", argv0, strerror(-r));
	}
	return r;
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
static int spawn_load(struct spawn_ctx *s, int *ret_code, char **ret_msg)
{
	_cleanup_free_ char *path = NULL, *text = NULL, *envtext = NULL;
	const char *app = s->e->app;
	int r;

	if (asprintf(&path, "%s/%s", AGENT_ENTER_DIR, app) < 0)
		return -ENOMEM;
	r = read_full_file(path, ENTER_FILE_MAX, &text, NULL);
	if (r == -ENOENT) {
		agent_msg(ret_msg, "the pod has no app named %s", app);
		return r;
	}
	if (r >= 0)
		r = enter_config_parse(text, app, &s->cfg);
	if (r < 0) {
		agent_msg(ret_msg, "cannot read %s: %s", path, strerror(-r));
		return r;
	}
	r = read_full_file(s->cfg.env_file, ENTER_FILE_MAX, &envtext, NULL);
	if (r >= 0)
		r = enter_env_parse(envtext, &s->env);
	if (r < 0) {
		agent_msg(ret_msg, "cannot read %s: %s", s->cfg.env_file, strerror(-r));
		return r;
	}
	if (s->cfg.n_properties == 0) {
		/* Never unconfined: an enter file without the app's sandbox is refused. */
		agent_msg(ret_msg, "%s gives no sandbox for app %s", path, app);
		return -EBADMSG;
	}
	r = spawn_resolve(s, ret_code, ret_msg);
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

/*
 * systemd-run's stdio: the pipes, which --pipe hands to the service; or the pty, where its
 * own errors go (systemd opens the pty again as the service's terminal, TTYPath=). Not our
 * controlling terminal (O_NOCTTY): the service takes it.
 */
static int child_stdio(struct spawn_ctx *s, enum spawn_step *step)
{
	int fd;

	if (!s->e->tty) {
		*step = STEP_STDIO;
		if (dup2(s->in[0], 0) < 0 || dup2(s->out[1], 1) < 0 || dup2(s->err[1], 2) < 0)
			return -errno;
		return 0;
	}
	*step = STEP_TTY;
	fd = open(s->pts, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (dup2(fd, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
		return -errno;
	return 0;
}

static int child_run(struct spawn_ctx *s, enum spawn_step *step)
{
	sigset_t all;
	int r;

	sigemptyset(&all);
	(void) sigprocmask(SIG_SETMASK, &all, NULL);
	for (int sig = 1; sig < _NSIG; sig++)
		(void) signal(sig, SIG_DFL);
	if (setsid() < 0)
		return -errno;
	r = child_stdio(s, step);
	if (r < 0)
		return r;
	*step = STEP_EXEC;
	execv(s->run_argv[0], s->run_argv);
	return -errno;
}

static const char *spawn_step_name(int step)
{
	switch (step) {
	case STEP_TTY:
		return "cannot set up the terminal";
	case STEP_STDIO:
		return "cannot set up stdio";
	default:
		return "cannot execute";
	}
}

static int spawn_fork(struct spawn_ctx *s, struct agent_child *c, int *ret_code, char **ret_msg)
{
	_cleanup_close_ int rp = -EBADF, wp = -EBADF;
	struct spawn_error se;
	int fds[2];
	ssize_t n;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	rp = fds[0];
	wp = fds[1];
	c->pid = fork();
	if (c->pid < 0)
		return -errno;
	if (c->pid == 0) {
		enum spawn_step step = STEP_TTY;
		int r = child_run(s, &step);

		se = (struct spawn_error){.step = step, .err = -r};
		(void) !write(wp, &se, sizeof(se));
		_exit(AGENT_CODE_SETUP);
	}
	wp = safe_close(wp);
	do
		n = read(rp, &se, sizeof(se));
	while (n < 0 && errno == EINTR);
	if (n == 0)
		return 0; /* exec'd: the pipe closed on exec */
	(void) waitpid(c->pid, NULL, 0);
	c->pid = 0;
	if (n != sizeof(se))
		return n < 0 ? -errno : -EIO;
	/* systemd-run itself could not run: the guest image is broken, not the command. */
	*ret_code = AGENT_CODE_SETUP;
	if (se.step == STEP_EXEC)
		agent_msg(ret_msg, "%s %s: %s", spawn_step_name(se.step), s->run_argv[0],
			  strerror(se.err));
	else
		agent_msg(ret_msg, "%s: %s", spawn_step_name(se.step), strerror(se.err));
	return -se.err ?: -EIO;
}

int agent_spawn(const struct agent_exec *e, struct agent_child *ret, int *ret_code, char **ret_msg)
{
	struct spawn_ctx s = {.e = e, .in = {-1, -1}, .out = {-1, -1}, .err = {-1, -1}};
	struct agent_child c = {.in = -1, .out = -1, .err = -1, .pidfd = -1, .tty = e->tty};
	int r;

	*ret_code = AGENT_CODE_SETUP;
	*ret_msg = NULL;
	r = spawn_load(&s, ret_code, ret_msg);
	if (r >= 0) {
		r = spawn_stdio(&s, &c);
		if (r < 0)
			agent_msg(ret_msg, "cannot create the command's stdio: %s", strerror(-r));
	}
	if (r >= 0)
		r = spawn_argv(&s);
	if (r >= 0) {
		memcpy(c.unit, s.unit, sizeof(c.unit));
		r = spawn_fork(&s, &c, ret_code, ret_msg);
	}
	if (r >= 0) {
		c.pidfd = (int) syscall(SYS_pidfd_open, c.pid, 0);
		if (c.pidfd < 0) {
			r = -errno;
			(void) kill(c.pid, SIGKILL);
			(void) waitpid(c.pid, NULL, 0);
			agent_msg(ret_msg, "pidfd_open: %s", strerror(-r));
		}
	}
	spawn_ctx_done(&s);
	if (r < 0) {
		agent_child_close(&c);
		if (!*ret_msg)
			agent_msg(ret_msg, "cannot start the command: %s", strerror(-r));
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

static void agent_unit_reset(const char *unit)
{
	char *argv[] = {(char *) AGENT_SYSTEMCTL, (char *) "reset-failed", (char *) unit, NULL};

	(void) agent_run(argv, NULL, 0);
}

int agent_unit_code(const char *unit, int code)
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
	int c;

	if (code == 0 || unit[0] == '\0')
		return code;
	/* A unit that never ran a main process (systemd-run's own error) keeps its code. */
	if (agent_run(argv, &out, 256) == 0 && enter_result_parse(out, &c) >= 0)
		code = c;
	agent_unit_reset(unit);
	return code;
}

void agent_unit_kill(const char *unit)
{
	char *argv[] = {(char *) AGENT_SYSTEMCTL, (char *) "kill", (char *) "--signal=SIGKILL",
			(char *) unit, NULL};

	if (unit[0] == '\0')
		return;
	(void) agent_run(argv, NULL, 0);
	agent_unit_reset(unit);
}
