/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "cc/cleanup.h"
#include "cc/macro.h"
#include "enter-run.h"

void enter_argv_free(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

_printf_(3, 4) static int argv_add(char **v, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vasprintf(&v[*n], fmt, ap);
	va_end(ap);
	if (k < 0) {
		v[*n] = NULL;
		return -ENOMEM;
	}
	(*n)++;
	return 0;
}

/* An argument as systemd passes it on: it substitutes $NAME and ${NAME} in ExecStart=
 * arguments at exec time, and "$$" is one '$'. */
static int argv_add_literal(char **v, size_t *n, const char *a)
{
	size_t k = 0;
	char *s = malloc(2 * strlen(a) + 1);

	if (!s)
		return -ENOMEM;
	for (; *a; a++) {
		if (*a == '$')
			s[k++] = '$';
		s[k++] = *a;
	}
	s[k] = '\0';
	v[(*n)++] = s;
	return 0;
}

int enter_run_argv(const struct enter_config *c, const struct enter_run *e, char ***ret)
{
	size_t argc = 0, n = 0, max;
	char **v;
	int r = 0;

	assert_return(c && e && e->app && e->unit && e->path && e->argv && e->argv[0] && ret,
		      -EINVAL);
	if (c->n_properties == 0)
		return -EINVAL;
	while (e->argv[argc])
		argc++;
	if (!e->tty && !(e->stdio[0] && e->stdio[1] && e->stdio[2]))
		return -EINVAL;
	/* 9 fixed, 8 for stdio, 2 per property, "--", the command, NULL */
	max = 9 + 8 + 2 * c->n_properties + 1 + argc + 1;
	v = calloc(max, sizeof(char *));
	if (!v)
		return -ENOMEM;
	r = argv_add(v, &n, "%s", ENTER_SYSTEMD_RUN);
	if (r >= 0)
		r = argv_add(v, &n, "%s", "--quiet");
	if (r >= 0)
		r = argv_add(v, &n, "--unit=%s", e->unit);
	if (r >= 0)
		r = argv_add(v, &n, "--description=rkt enter %s", e->app);
	/* systemd-run returns once the command runs; its exit status stays readable. */
	if (r >= 0)
		r = argv_add(v, &n, "%s", "--service-type=exec");
	if (r >= 0)
		r = argv_add(v, &n, "%s", "-p");
	if (r >= 0)
		r = argv_add(v, &n, "%s", "RemainAfterExit=yes");
	if (r >= 0 && e->tty && e->term && e->term[0])
		r = argv_add(v, &n, "--setenv=TERM=%s", e->term);
	if (r >= 0 && !e->tty) {
		static const char *const keys[] = {"StandardInput", "StandardOutput",
						   "StandardError"};

		for (size_t i = 0; r >= 0 && i < ARRAY_SIZE(keys); i++) {
			r = argv_add(v, &n, "%s", "-p");
			if (r >= 0)
				r = argv_add(v, &n, "%s=file:%s", keys[i], e->stdio[i]);
		}
	}
	if (r >= 0 && e->tty) {
		static const char *const tty_props[] = {"StandardInput=tty-force",
							"StandardOutput=tty", "StandardError=tty"};

		r = argv_add(v, &n, "%s", "-p");
		if (r >= 0)
			r = argv_add(v, &n, "TTYPath=%s", e->tty);
		for (size_t i = 0; r >= 0 && i < ARRAY_SIZE(tty_props); i++) {
			r = argv_add(v, &n, "%s", "-p");
			if (r >= 0)
				r = argv_add(v, &n, "%s", tty_props[i]);
		}
	}
	for (size_t i = 0; r >= 0 && i < c->n_properties; i++) {
		r = argv_add(v, &n, "%s", "-p");
		if (r >= 0)
			r = argv_add(v, &n, "%s", c->properties[i]);
	}
	if (r >= 0)
		r = argv_add(v, &n, "%s", "--");
	if (r >= 0)
		r = argv_add(v, &n, "%s", e->path);
	for (size_t i = 1; r >= 0 && i < argc; i++)
		r = argv_add_literal(v, &n, e->argv[i]);
	if (r < 0) {
		enter_argv_free(v);
		return r;
	}
	*ret = v;
	return 0;
}

/* Open path (absolute, in the app's view) beneath rootfd, symlinks resolved inside it. */
static int resolve_open(int rootfd, const char *path)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, rootfd, path, &how, sizeof(how));

	return fd < 0 ? -errno : (int) fd;
}

/* 0: an executable regular file; -ENOENT: nothing there; -EACCES: something else. */
static int resolve_check(int rootfd, const char *path)
{
	_cleanup_close_ int fd = resolve_open(rootfd, path);
	struct stat st;

	if (fd < 0)
		return fd == -ENOENT || fd == -ENOTDIR ? -ENOENT : fd;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || !(st.st_mode & 0111))
		return -EACCES;
	return 0;
}

int enter_command_resolve(int rootfd, const char *argv0, const char *path_env, const char *cwd,
			  char **ret)
{
	_cleanup_free_ char *copy = NULL;
	char *save = NULL, *p = NULL;
	int r, first_err = -ENOENT;

	assert_return(rootfd >= 0 && argv0 && cwd && cwd[0] == '/' && ret, -EINVAL);
	if (argv0[0] == '\0')
		return -ENOENT;
	if (strchr(argv0, '/')) {
		while (argv0[0] == '.' && argv0[1] == '/')
			argv0 += 2 + strspn(argv0 + 2, "/");
		if (argv0[0] == '/')
			p = strdup(argv0);
		else if (asprintf(&p, "%s%s%s", cwd, strcmp(cwd, "/") ? "/" : "", argv0) < 0)
			p = NULL;
		if (!p)
			return -ENOMEM;
		r = resolve_check(rootfd, p);
		if (r < 0) {
			free(p);
			return r;
		}
		*ret = p;
		return 0;
	}
	copy = strdup(path_env ? path_env : ENTER_DEFAULT_PATH);
	if (!copy)
		return -ENOMEM;
	/* As execvp(): the first executable wins; a non-executable match is reported only
	 * when nothing else is found. Relative entries are skipped (systemd needs a path). */
	for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		if (d[0] != '/')
			continue;
		if (asprintf(&p, "%s%s%s", d, d[strlen(d) - 1] == '/' ? "" : "/", argv0) < 0)
			return -ENOMEM;
		r = resolve_check(rootfd, p);
		if (r == 0) {
			*ret = p;
			return 0;
		}
		free(p);
		p = NULL;
		if (r != -ENOENT && first_err == -ENOENT)
			first_err = r;
	}
	return first_err;
}

static int show_value(const char *show, const char *key, long *ret)
{
	size_t k = strlen(key);

	for (const char *l = show; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		char *end;
		long v;

		if (strncmp(l, key, k) != 0 || l[k] != '=')
			continue;
		errno = 0;
		v = strtol(l + k + 1, &end, 10);
		if (errno != 0 || end == l + k + 1 || (*end != '\n' && *end != '\0'))
			return -EBADMSG;
		*ret = v;
		return 0;
	}
	return -EBADMSG;
}

int enter_result_parse(const char *show, int *ret_code)
{
	long code, status;

	assert_return(show && ret_code, -EINVAL);
	if (show_value(show, "ExecMainCode", &code) < 0 ||
	    show_value(show, "ExecMainStatus", &status) < 0)
		return -EBADMSG;
	/* CLD_EXITED, CLD_KILLED, CLD_DUMPED (waitid(2)) */
	if (code == 1 && status >= 0 && status <= 255)
		*ret_code = (int) status;
	else if ((code == 2 || code == 3) && status > 0 && status < 128)
		*ret_code = 128 + (int) status;
	else
		return -EBADMSG;
	return 0;
}
