/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc/cleanup.h"
#include "stage1/env.h"
#include "stage1/rootfs.h"
#include "strbuf.h"
#include "util.h"

/* systemd's rule for variable names (bash's): [A-Za-z_][A-Za-z0-9_]*. */
static bool env_name_ok(const char *s)
{
	if (!s || !*s || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

/* systemd drops assignments whose value has control characters other than tab and newline. */
static bool env_value_ok(const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char) *s;

		if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f)
			return false;
	}
	return true;
}

static void quote_into(struct strbuf *b, const char *value)
{
	strbuf_append_char(b, '"');
	for (const char *p = value; *p; p++) {
		if (strchr("\"\\`$", *p))
			strbuf_append_char(b, '\\');
		strbuf_append_char(b, *p);
	}
	strbuf_append_char(b, '"');
}

int env_value_quote(const char *value, char **ret)
{
	struct strbuf b = {};

	assert_return(value && ret, -EINVAL);
	quote_into(&b, value);
	return strbuf_steal(&b, ret);
}

static void assign(struct strbuf *b, const char *name, const char *value)
{
	strbuf_append(b, name);
	strbuf_append_char(b, '=');
	quote_into(b, value);
	strbuf_append_char(b, '\n');
}

int app_env_format(const char *app_name, const struct manifest_kv_list *app_env,
		   const char *metadata_url, char **ret, struct cc_warnings *warnings)
{
	struct strbuf b = {};
	const char *path = STAGE1_ACE_PATH, *container = STAGE1_CONTAINER;
	int r;

	assert_return(app_name && ret, -EINVAL);

	/* The app's PATH and container replace the defaults, in place. */
	for (size_t i = 0; app_env && i < app_env->n; i++) {
		const struct manifest_kv *kv = &app_env->items[i];

		if (streq(kv->name, "PATH") && env_value_ok(kv->value))
			path = kv->value;
		else if (streq(kv->name, "container") && env_value_ok(kv->value))
			container = kv->value;
	}
	assign(&b, "PATH", path);
	assign(&b, "AC_APP_NAME", app_name);
	if (metadata_url)
		assign(&b, "AC_METADATA_URL", metadata_url);
	assign(&b, "container", container);

	for (size_t i = 0; app_env && i < app_env->n; i++) {
		const struct manifest_kv *kv = &app_env->items[i];

		if (!kv->name || !kv->value)
			continue;
		if (streq(kv->name, "AC_APP_NAME") || streq(kv->name, "AC_METADATA_URL")) {
			r = cc_warnings_add(warnings,
					    "app %s: environment variable %s is set by the "
					    "executor; the app's value is ignored",
					    app_name, kv->name);
		} else if (!env_name_ok(kv->name)) {
			r = cc_warnings_add(warnings,
					    "app %s: environment variable '%.128s' is ignored: "
					    "systemd only accepts names of [A-Za-z0-9_]",
					    app_name, kv->name);
		} else if (!env_value_ok(kv->value)) {
			r = cc_warnings_add(warnings,
					    "app %s: environment variable %s is ignored: its "
					    "value has control characters (only tab and newline "
					    "can be passed)",
					    app_name, kv->name);
		} else {
			if (!streq(kv->name, "PATH") && !streq(kv->name, "container"))
				assign(&b, kv->name, kv->value);
			r = 0;
		}
		if (r < 0) {
			strbuf_done(&b);
			return r;
		}
	}
	return strbuf_steal(&b, ret);
}

int metadata_url_format(const char *host, const char *token, char **ret)
{
	char *s;
	int k;

	assert_return(host && *host && token && *token && ret, -EINVAL);
	if (strchr(host, ':'))
		k = asprintf(&s, "http://[%s]:%d/%s", host, STAGE1_MDS_PORT, token);
	else
		k = asprintf(&s, "http://%s:%d/%s", host, STAGE1_MDS_PORT, token);
	if (k < 0)
		return -ENOMEM;
	*ret = s;
	return 0;
}
