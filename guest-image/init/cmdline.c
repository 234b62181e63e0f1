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

int cmdline_get(const char *cmdline, const char *key, char **ret_value)
{
	_cleanup_free_ char *found = NULL;
	size_t key_len;
	const char *p = cmdline;
	bool have = false;
	int r;

	if (!cmdline || !key || !ret_value || key[0] == '\0' || strchr(key, '='))
		return -EINVAL;
	if (strnlen(cmdline, CMDLINE_MAX + 1) > CMDLINE_MAX)
		return -E2BIG;
	key_len = strlen(key);

	for (;;) {
		_cleanup_free_ char *word = NULL;

		r = cmdline_next_word(&p, &word);
		if (r < 0)
			return r;
		if (r == 0)
			break;
		if (strncmp(word, key, key_len) != 0)
			continue;
		if (word[key_len] != '\0' && word[key_len] != '=')
			continue;

		free(found);
		found = strdup(word[key_len] == '=' ? word + key_len + 1 : "");
		if (!found)
			return -ENOMEM;
		have = true;
	}
	if (!have)
		return 0;
	*ret_value = TAKE_PTR(found);
	return 1;
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

int cmdline_options_parse(const char *cmdline, struct cmdline_options *ret)
{
	_cleanup_free_ char *pod = NULL, *markers = NULL;
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

	*ret = (struct cmdline_options){
		.pod_tag = TAKE_PTR(pod),
		.markers_console = console,
	};
	return 0;
}

void cmdline_options_done(struct cmdline_options *o)
{
	if (!o)
		return;
	free(o->pod_tag);
	o->pod_tag = NULL;
}
