/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cni-exec.h"
#include "cni-result.h"
#include "cc/spawn.h"

extern char **environ;

/* Our environment minus what must not reach a plugin, plus the CNI_* parameters. */
static char **env_build(const struct cni_call *c)
{
	const char *vars[][2] = {
		{"CNI_COMMAND", c->command}, {"CNI_CONTAINERID", c->container_id},
		{"CNI_NETNS", c->netns},     {"CNI_IFNAME", c->ifname},
		{"CNI_ARGS", c->args},	     {"CNI_PATH", c->path},
	};
	size_t n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	env = calloc(n + ARRAY_SIZE(vars) + 1, sizeof(*env));
	if (!env)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "CNI_", 4) != 0 &&
		    strncmp(environ[i], "RKT_LOCK_FD=", 12) != 0)
			env[k++] = environ[i];
	for (size_t i = 0; i < ARRAY_SIZE(vars); i++) {
		char *s = NULL;

		if (asprintf(&s, "%s=%s", vars[i][0], vars[i][1] ? vars[i][1] : "") < 0) {
			for (size_t j = 0; j < i; j++)
				free(env[k - i + j]);
			free(env);
			return NULL;
		}
		env[k++] = s;
	}
	env[k] = NULL;
	return env;
}

static void env_free(char **env, size_t n_ours)
{
	size_t n = 0;

	if (!env)
		return;
	while (env[n])
		n++;
	for (size_t i = n - n_ours; i < n; i++)
		free(env[i]);
	free(env);
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

int cni_call_run(const struct cni_call *c, char **ret_out, size_t *ret_len, struct cc_error *reterr)
{
	char *argv[] = {(char *) c->plugin, NULL};
	_cleanup_free_ char *out = NULL;
	char msg[CC_ERROR_MSG_MAX / 2];
	char **env = env_build(c);
	struct spawn_req req = {
		.path = c->plugin,
		.argv = argv,
		.envp = env,
		.in = c->conf,
		.in_len = c->conf_len,
		.out_max = CNI_OUTPUT_MAX,
		.timeout_ms = c->timeout_ms,
	};
	const char *name = base_name(c->plugin);
	int status = 0, r;
	size_t len = 0;

	if (!env)
		return -ENOMEM;
	r = spawn_run(&req, &status, &out, &len);
	env_free(env, 6);
	if (r == -ETIMEDOUT)
		return cc_error_set(reterr, r, "CNI plugin %s %s: no answer after %d ms, killed",
				    name, c->command, c->timeout_ms);
	if (r == -EFBIG)
		return cc_error_set(reterr, r, "CNI plugin %s %s: more than %u bytes of output",
				    name, c->command, CNI_OUTPUT_MAX);
	if (r < 0)
		return cc_error_set(reterr, r, "CNI plugin %s %s: %m", name, c->command);
	if (WIFSIGNALED(status))
		return cc_error_set(reterr, -EPROTO, "CNI plugin %s %s: killed by signal %d", name,
				    c->command, WTERMSIG(status));
	if (WEXITSTATUS(status) == 127 && len == 0)
		return cc_error_set(reterr, -ENOEXEC, "CNI plugin %s %s: cannot execute %s", name,
				    c->command, c->plugin);
	if (WEXITSTATUS(status) != 0) {
		(void) cni_error_describe(out, len, msg, sizeof(msg));
		return cc_error_set(reterr, -EPROTO, "CNI plugin %s %s failed (exit %d): %s", name,
				    c->command, WEXITSTATUS(status), msg);
	}
	if (ret_out)
		*ret_out = TAKE_PTR(out);
	if (ret_len)
		*ret_len = len;
	return 0;
}

int cni_plugin_find(const char *type, const char *const *dirs, char **ret)
{
	if (!type || !*type || strchr(type, '/') || strcmp(type, ".") == 0 ||
	    strcmp(type, "..") == 0)
		return -EINVAL;
	for (size_t i = 0; dirs && dirs[i]; i++) {
		char *p = NULL;
		struct stat st;

		if (asprintf(&p, "%s/%s", dirs[i], type) < 0)
			return -ENOMEM;
		if (stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0) {
			*ret = p;
			return 0;
		}
		free(p);
	}
	return -ENOENT;
}

char *cni_path_join(const char *const *dirs)
{
	size_t len = 1;
	char *s;

	for (size_t i = 0; dirs && dirs[i]; i++)
		len += strlen(dirs[i]) + 1;
	s = calloc(1, len);
	if (!s)
		return NULL;
	for (size_t i = 0; dirs && dirs[i]; i++) {
		if (i)
			strcat(s, ":");
		strcat(s, dirs[i]);
	}
	return s;
}
