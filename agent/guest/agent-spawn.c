/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Start a command in an app's context: the app's mount namespace (through its running main
 * process) or a plain chroot into its rootfs, its cgroup, user, groups, working directory
 * and environment, with pipes or a pty.
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
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "agent.h"
#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "enter-config.h"

extern char **environ;

/* Child setup steps, reported through the error pipe. */
enum spawn_step {
	STEP_TTY,
	STEP_STDIO,
	STEP_ROOT,
	STEP_USER,
	STEP_CWD,
	STEP_EXEC,
};

struct spawn_error {
	int step;
	int err;
};

struct spawn_ctx {
	const struct agent_exec *e;
	struct enter_config cfg;
	char **env;
	pid_t main_pid; /* the app's running main process, 0 when none */
	char pts[64];
	int in[2], out[2], err[2];
};

static void spawn_ctx_done(struct spawn_ctx *s)
{
	enter_config_done(&s->cfg);
	enter_env_free(s->env);
	for (size_t i = 0; i < 2; i++) {
		safe_close(s->in[i]);
		safe_close(s->out[i]);
		safe_close(s->err[i]);
	}
}

/* MainPID of <app>.service, 0 when it has none (not running). */
static int spawn_main_pid(const char *app, pid_t *ret)
{
	_cleanup_free_ char *unit = NULL, *out = NULL;
	char *argv[] = {(char *) AGENT_SYSTEMCTL,
			(char *) "show",
			(char *) "-p",
			(char *) "MainPID",
			(char *) "--value",
			NULL,
			NULL};
	char *end;
	long v;
	int r;

	if (asprintf(&unit, "%s.service", app) < 0)
		return -ENOMEM;
	argv[5] = unit;
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

/* Environment: the app's file, then TERM for a pty. */
static int spawn_load(struct spawn_ctx *s, char **ret_msg)
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
	if (s->e->tty && s->e->term[0] != '\0') {
		size_t n = 0;
		char *var;

		if (asprintf(&var, "TERM=%s", s->e->term) < 0)
			return -ENOMEM;
		while (s->env[n] && strncmp(s->env[n], "TERM=", 5) != 0)
			n++;
		if (!s->env[n] && n == ENTER_ENV_MAX) {
			free(var);
			return 0;
		}
		free(s->env[n]);
		s->env[n] = var;
	}
	r = spawn_main_pid(app, &s->main_pid);
	if (r < 0) {
		/* Without systemd's answer the command still runs, in a plain chroot. */
		s->main_pid = 0;
	}
	return 0;
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
	fd = open(s->pts, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, TIOCSCTTY, 0) < 0)
		return -errno;
	if (dup2(fd, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
		return -errno;
	return 0;
}

/* An app that is not running has no cgroup: then the command stays in the agent's. */
static void child_join_cgroup(const char *app)
{
	_cleanup_free_ char *path = NULL;
	_cleanup_close_ int fd = -EBADF;

	if (asprintf(&path, AGENT_APP_CGROUP_FMT, app) < 0)
		return;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd >= 0)
		(void) loop_write(fd, "0", 1);
}

/* Into the app's cgroup, mount namespace and root. */
static int child_root(struct spawn_ctx *s)
{
	_cleanup_close_ int rootfd = -EBADF, nsfd = -EBADF;
	_cleanup_free_ char *path = NULL;
	char p[64];

	/* Its cgroup first: memory and CPU limits apply, and stopping the app ends us. */
	child_join_cgroup(s->e->app);

	if (s->main_pid > 0) {
		snprintf(p, sizeof(p), "/proc/%d/root", (int) s->main_pid);
		rootfd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
		snprintf(p, sizeof(p), "/proc/%d/ns/mnt", (int) s->main_pid);
		nsfd = open(p, O_RDONLY | O_CLOEXEC);
	}
	if (rootfd >= 0 && nsfd >= 0) {
		if (setns(nsfd, CLONE_NEWNS) < 0 || fchdir(rootfd) < 0)
			return -errno;
	} else {
		if (asprintf(&path, "%s/%s/rootfs", AGENT_STAGE2, s->e->app) < 0)
			return -ENOMEM;
		if (chdir(path) < 0)
			return -errno;
	}
	if (chroot(".") < 0)
		return -errno;
	return 0;
}

static int child_user(const struct enter_config *c)
{
	if (setgroups(c->n_groups, c->groups) < 0 || setresgid(c->gid, c->gid, c->gid) < 0 ||
	    setresuid(c->uid, c->uid, c->uid) < 0)
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
	*step = STEP_ROOT;
	r = child_root(s);
	if (r < 0)
		return r;
	*step = STEP_USER;
	r = child_user(&s->cfg);
	if (r < 0)
		return r;
	*step = STEP_CWD;
	if (chdir(s->cfg.cwd) < 0)
		return -errno;
	*step = STEP_EXEC;
	environ = s->env;
	execvp(s->e->argv[0], s->e->argv);
	return -errno;
}

static const char *spawn_step_name(int step)
{
	switch (step) {
	case STEP_TTY:
		return "cannot set up the terminal";
	case STEP_STDIO:
		return "cannot set up stdio";
	case STEP_ROOT:
		return "cannot enter the app's root";
	case STEP_USER:
		return "cannot switch to the app's user and groups";
	case STEP_CWD:
		return "cannot change to the working directory";
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
		_exit(step == STEP_EXEC ? (r == -ENOENT ? AGENT_CODE_NOTFOUND : AGENT_CODE_NOEXEC)
					: AGENT_CODE_SETUP);
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
	*ret_code = se.step == STEP_EXEC
			    ? (se.err == ENOENT ? AGENT_CODE_NOTFOUND : AGENT_CODE_NOEXEC)
			    : AGENT_CODE_SETUP;
	if (se.step == STEP_CWD)
		agent_msg(ret_msg, "%s %s: %s", spawn_step_name(se.step), s->cfg.cwd,
			  strerror(se.err));
	else if (se.step == STEP_EXEC)
		agent_msg(ret_msg, "%s %s: %s", spawn_step_name(se.step), s->e->argv[0],
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
	r = spawn_load(&s, ret_msg);
	if (r >= 0) {
		r = spawn_stdio(&s, &c);
		if (r < 0)
			agent_msg(ret_msg, "cannot create the command's stdio: %s", strerror(-r));
	}
	if (r >= 0)
		r = spawn_fork(&s, &c, ret_code, ret_msg);
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
