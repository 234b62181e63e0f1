/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc/cleanup.h"
#include "cc/macro.h"
#include "enter-config.h"

static int enter_parse_id(const char *s, unsigned *ret)
{
	unsigned long v;
	char *end;

	if (s[0] < '0' || s[0] > '9')
		return -EBADMSG;
	errno = 0;
	v = strtoul(s, &end, 10);
	/* (uid_t) -1 means "unchanged" to setuid(2) and friends: never a valid id here. */
	if (errno != 0 || *end != '\0' || v >= 0xffffffffUL)
		return -EBADMSG;
	*ret = (unsigned) v;
	return 0;
}

static int enter_parse_groups(const char *s, struct enter_config *c)
{
	_cleanup_free_ char *copy = strdup(s);
	char *save = NULL;

	if (!copy)
		return -ENOMEM;
	free(c->groups);
	c->groups = NULL;
	c->n_groups = 0;
	for (char *w = strtok_r(copy, ", ", &save); w; w = strtok_r(NULL, ", ", &save)) {
		unsigned g;
		gid_t *n;

		if (enter_parse_id(w, &g) < 0 || c->n_groups == ENTER_GROUPS_MAX)
			return -EBADMSG;
		n = realloc(c->groups, (c->n_groups + 1) * sizeof(gid_t));
		if (!n)
			return -ENOMEM;
		c->groups = n;
		c->groups[c->n_groups++] = g;
	}
	return 0;
}

static int enter_set_path(char **dst, const char *v)
{
	if (v[0] != '/')
		return -EBADMSG;
	free(*dst);
	*dst = strdup(v);
	return *dst ? 0 : -ENOMEM;
}

/* "Key=value": Key of letters (a systemd property name), a value without control bytes. */
static int enter_add_property(struct enter_config *c, const char *v)
{
	size_t k = 0;
	char **n;

	while ((v[k] >= 'A' && v[k] <= 'Z') || (v[k] >= 'a' && v[k] <= 'z'))
		k++;
	if (k == 0 || v[k] != '=')
		return -EBADMSG;
	for (const char *p = v; *p; p++)
		if ((unsigned char) *p < 0x20 || *p == 0x7f)
			return -EBADMSG;
	if (c->n_properties == ENTER_PROPERTIES_MAX)
		return -E2BIG;
	n = realloc(c->properties, (c->n_properties + 2) * sizeof(char *));
	if (!n)
		return -ENOMEM;
	c->properties = n;
	c->properties[c->n_properties] = strdup(v);
	if (!c->properties[c->n_properties])
		return -ENOMEM;
	c->properties[++c->n_properties] = NULL;
	return 0;
}

static int enter_config_line(struct enter_config *c, char *line, bool *have_uid, bool *have_gid)
{
	char *eq, *key, *value;
	unsigned id;
	int r;

	line[strcspn(line, "\r")] = '\0';
	key = line + strspn(line, " \t");
	if (key[0] == '\0' || key[0] == '#')
		return 0;
	eq = strchr(key, '=');
	if (!eq)
		return -EBADMSG;
	*eq = '\0';
	value = eq + 1;
	key[strcspn(key, " \t")] = '\0';

	if (strcmp(key, "uid") == 0 || strcmp(key, "gid") == 0) {
		r = enter_parse_id(value, &id);
		if (r < 0)
			return r;
		if (key[0] == 'u') {
			c->uid = id;
			*have_uid = true;
		} else {
			c->gid = id;
			*have_gid = true;
		}
		return 0;
	}
	if (strcmp(key, "supplementary_gids") == 0 || strcmp(key, "groups") == 0)
		return enter_parse_groups(value, c);
	if (strcmp(key, "working_directory") == 0 || strcmp(key, "cwd") == 0)
		return enter_set_path(&c->cwd, value);
	if (strcmp(key, "environment_file") == 0 || strcmp(key, "env") == 0)
		return enter_set_path(&c->env_file, value);
	if (strcmp(key, "property") == 0)
		return enter_add_property(c, value);
	return 0;
}

int enter_config_parse(const char *text, const char *app, struct enter_config *ret)
{
	_cleanup_free_ char *copy = NULL;
	struct enter_config c = {};
	bool have_uid = false, have_gid = false;
	char *save = NULL;
	int r = 0;

	assert_return(text && app && ret, -EINVAL);
	copy = strdup(text);
	if (!copy)
		return -ENOMEM;
	for (char *l = strtok_r(copy, "\n", &save); r >= 0 && l; l = strtok_r(NULL, "\n", &save))
		r = enter_config_line(&c, l, &have_uid, &have_gid);
	if (r >= 0 && (!have_uid || !have_gid))
		r = -EBADMSG;
	if (r >= 0 && !c.cwd && !(c.cwd = strdup("/")))
		r = -ENOMEM;
	if (r >= 0 && !c.env_file && asprintf(&c.env_file, "/etc/cc/env/%s", app) < 0) {
		c.env_file = NULL;
		r = -ENOMEM;
	}
	if (r < 0) {
		enter_config_done(&c);
		return r;
	}
	*ret = c;
	return 0;
}

void enter_config_done(struct enter_config *c)
{
	if (!c)
		return;
	free(c->groups);
	free(c->cwd);
	free(c->env_file);
	for (size_t i = 0; i < c->n_properties; i++)
		free(c->properties[i]);
	free(c->properties);
	*c = (struct enter_config){};
}

void enter_env_free(char **env)
{
	for (size_t i = 0; env && env[i]; i++)
		free(env[i]);
	free(env);
}

static bool enter_env_name_is_valid(const char *s, size_t n)
{
	if (n == 0 || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9')))
			return false;
	return true;
}

/* Parse the value at *p (after '=') up to the end of its line into out. */
static int enter_env_value(const char **p, char *out)
{
	const char *s = *p;
	size_t n = 0, keep = 0; /* keep: length without trailing unquoted blanks */

	s += strspn(s, " \t");
	while (*s != '\0' && *s != '\n') {
		if (*s == '\'') {
			const char *e = strchr(s + 1, '\'');

			if (!e)
				return -EBADMSG;
			memcpy(out + n, s + 1, (size_t) (e - s - 1));
			n += (size_t) (e - s - 1);
			keep = n;
			s = e + 1;
		} else if (*s == '"') {
			for (s++; *s != '"'; s++) {
				if (*s == '\0')
					return -EBADMSG;
				if (*s == '\\' && s[1] == '\n') {
					s++;
					continue;
				}
				if (*s == '\\' && s[1] != '\0' && strchr("\"\\$`", s[1]))
					s++;
				out[n++] = *s;
			}
			keep = n;
			s++;
		} else if (*s == '\\') {
			if (s[1] == '\n') {
				s += 2;
				continue;
			}
			if (s[1] != '\0')
				s++;
			out[n++] = *s++;
			keep = n;
		} else {
			out[n++] = *s;
			if (*s != ' ' && *s != '\t')
				keep = n;
			s++;
		}
	}
	out[keep] = '\0';
	*p = s;
	return 0;
}

static int enter_env_set(char **env, size_t *n, char *var, size_t name_len)
{
	for (size_t i = 0; i < *n; i++)
		if (strncmp(env[i], var, name_len + 1) == 0) {
			free(env[i]);
			env[i] = var;
			return 0;
		}
	if (*n == ENTER_ENV_MAX) {
		free(var);
		return -E2BIG;
	}
	env[(*n)++] = var;
	return 0;
}

int enter_env_parse(const char *text, char ***ret_env)
{
	char **env;
	size_t n = 0;
	const char *p = text;
	int r = 0;

	assert_return(text && ret_env, -EINVAL);
	env = calloc(ENTER_ENV_MAX + 1, sizeof(char *));
	if (!env)
		return -ENOMEM;

	while (r >= 0 && *p != '\0') {
		const char *name, *eq;
		size_t name_len;
		char *var;

		p += strspn(p, " \t\r\n");
		if (*p == '\0')
			break;
		if (*p == '#' || *p == ';') {
			p += strcspn(p, "\n");
			continue;
		}
		name = p;
		eq = p + strcspn(p, "=\n");
		if (*eq != '=') {
			r = -EBADMSG;
			break;
		}
		name_len = (size_t) (eq - name);
		while (name_len > 0 && (name[name_len - 1] == ' ' || name[name_len - 1] == '\t'))
			name_len--;
		if (!enter_env_name_is_valid(name, name_len)) {
			r = -EBADMSG;
			break;
		}
		/* The value is never longer than the rest of the text. */
		var = malloc(name_len + 1 + strlen(eq + 1) + 1);
		if (!var) {
			r = -ENOMEM;
			break;
		}
		memcpy(var, name, name_len);
		var[name_len] = '=';
		p = eq + 1;
		r = enter_env_value(&p, var + name_len + 1);
		if (r < 0) {
			free(var);
			break;
		}
		r = enter_env_set(env, &n, var, name_len);
	}
	if (r < 0) {
		enter_env_free(env);
		return r;
	}
	*ret_env = env;
	return 0;
}
