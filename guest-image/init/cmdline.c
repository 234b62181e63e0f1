/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cc/cleanup.h"
#include "cmdline.h"

static bool cmdline_is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/*
 * Copy the next word starting at *p into a new string, dropping the quotes. Returns 1 and
 * advances *p, 0 at the end of the line, or a negative errno.
 */
static int cmdline_next_word(const char **p, char **ret_word)
{
	const char *s = *p;
	bool quoted = false;
	size_t n = 0;
	char *word;

	while (cmdline_is_blank(*s))
		s++;
	if (*s == '\0')
		return 0;

	word = malloc(strlen(s) + 1);
	if (!word)
		return -ENOMEM;
	for (; *s != '\0'; s++) {
		if (*s == '"') {
			quoted = !quoted;
			continue;
		}
		if (!quoted && cmdline_is_blank(*s))
			break;
		word[n++] = *s;
	}
	if (quoted) {
		free(word);
		return -EINVAL;
	}
	word[n] = '\0';
	*p = s;
	*ret_word = word;
	return 1;
}

static int cmdline_check(const char *cmdline, const char *key)
{
	if (!cmdline || !key || key[0] == '\0' || strchr(key, '='))
		return -EINVAL;
	if (strnlen(cmdline, CMDLINE_MAX + 1) > CMDLINE_MAX)
		return -E2BIG;
	return 0;
}

/*
 * The next occurrence of key at or after *p: 1 with a copy of its value and *p advanced,
 * 0 at the end of the line, or a negative errno.
 */
static int cmdline_next_value(const char **p, const char *key, char **ret_value)
{
	size_t key_len = strlen(key);
	int r;

	for (;;) {
		_cleanup_free_ char *word = NULL;

		r = cmdline_next_word(p, &word);
		if (r <= 0)
			return r;
		if (strncmp(word, key, key_len) != 0)
			continue;
		if (word[key_len] != '\0' && word[key_len] != '=')
			continue;
		*ret_value = strdup(word[key_len] == '=' ? word + key_len + 1 : "");
		return *ret_value ? 1 : -ENOMEM;
	}
}

int cmdline_get(const char *cmdline, const char *key, char **ret_value)
{
	_cleanup_free_ char *found = NULL;
	const char *p = cmdline;
	bool have = false;
	int r;

	if (!ret_value)
		return -EINVAL;
	r = cmdline_check(cmdline, key);
	if (r < 0)
		return r;

	for (;;) {
		char *v = NULL;

		r = cmdline_next_value(&p, key, &v);
		if (r < 0)
			return r;
		if (r == 0)
			break;
		free(found);
		found = v;
		have = true;
	}
	if (!have)
		return 0;
	*ret_value = TAKE_PTR(found);
	return 1;
}

static void cmdline_strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

int cmdline_get_all(const char *cmdline, const char *key, size_t max, char ***ret_values)
{
	const char *p = cmdline;
	char **values;
	size_t n = 0;
	int r;

	if (!ret_values)
		return -EINVAL;
	r = cmdline_check(cmdline, key);
	if (r < 0)
		return r;
	values = calloc(max + 1, sizeof(char *));
	if (!values)
		return -ENOMEM;

	for (;;) {
		char *v = NULL;

		r = cmdline_next_value(&p, key, &v);
		if (r == 0)
			break;
		if (r > 0 && n == max) {
			free(v);
			r = -E2BIG;
		}
		if (r < 0) {
			cmdline_strv_free(values);
			return r;
		}
		values[n++] = v;
	}
	if (n == 0) {
		free(values);
		return 0;
	}
	*ret_values = values;
	return (int) n;
}

bool cmdline_pod_tag_is_valid(const char *tag)
{
	size_t n;

	if (!tag)
		return false;
	n = strlen(tag);
	if (n == 0 || n > CMDLINE_POD_TAG_MAX)
		return false;
	/* The tag becomes a mount source: no separators, no option syntax, no path syntax. */
	return strspn(tag, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") ==
	       n;
}

static void cmdline_mounts_free(struct cmdline_mount *m, size_t n)
{
	for (size_t i = 0; m && i < n; i++)
		cmdline_mount_done(&m[i]);
	free(m);
}

static int cmdline_mounts_parse(const char *cmdline, struct cmdline_mount **ret, size_t *ret_n)
{
	char **values = NULL;
	struct cmdline_mount *m;
	size_t n;
	int r;

	r = cmdline_get_all(cmdline, "cc.mount", CMDLINE_MOUNTS_MAX, &values);
	if (r <= 0) {
		*ret = NULL;
		*ret_n = 0;
		return r;
	}
	n = (size_t) r;
	m = calloc(n, sizeof(*m));
	r = m ? 0 : -ENOMEM;
	for (size_t i = 0; r >= 0 && i < n; i++) {
		r = cmdline_mount_parse(values[i], &m[i]);
		for (size_t j = 0; r >= 0 && j < i; j++)
			if (strcmp(m[j].path, m[i].path) == 0)
				r = -EINVAL;
	}
	cmdline_strv_free(values);
	if (r < 0) {
		cmdline_mounts_free(m, n);
		return r;
	}
	*ret = m;
	*ret_n = n;
	return 0;
}

int cmdline_options_parse(const char *cmdline, struct cmdline_options *ret)
{
	_cleanup_free_ char *pod = NULL, *markers = NULL;
	struct cmdline_mount *mounts = NULL;
	size_t n_mounts = 0;
	bool console = false;
	int r;

	if (!ret)
		return -EINVAL;

	r = cmdline_get(cmdline, "cc.pod", &pod);
	if (r < 0)
		return r;
	if (r > 0 && !cmdline_pod_tag_is_valid(pod))
		return -EINVAL;

	r = cmdline_get(cmdline, "cc.markers", &markers);
	if (r < 0)
		return r;
	if (r > 0) {
		if (strcmp(markers, "console") == 0)
			console = true;
		else if (strcmp(markers, "port") != 0)
			return -EINVAL;
	}

	r = cmdline_mounts_parse(cmdline, &mounts, &n_mounts);
	if (r < 0)
		return r;

	*ret = (struct cmdline_options){
		.pod_tag = TAKE_PTR(pod),
		.markers_console = console,
		.mounts = mounts,
		.n_mounts = n_mounts,
	};
	return 0;
}

void cmdline_options_done(struct cmdline_options *o)
{
	if (!o)
		return;
	free(o->pod_tag);
	o->pod_tag = NULL;
	cmdline_mounts_free(o->mounts, o->n_mounts);
	o->mounts = NULL;
	o->n_mounts = 0;
}
