/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * What the agent needs to run a command in an app's context, written by the pod layer
 * (ccpod) on the host:
 *
 *   /etc/cc/enter/<app>   key=value lines:
 *                           uid=<n>  gid=<n>  supplementary_gids=<n>[,<n>...]
 *                           working_directory=<absolute path>
 *                           environment_file=<absolute path>  (default /etc/cc/env/<app>)
 *                           property=<Key>=<value>   (repeated, in order: the app unit's
 *                                                     sandbox, passed to systemd-run -p)
 *                         ("groups", "cwd" and "env" are accepted as short names; blank lines,
 *                         "#" comments and unknown keys are skipped)
 *   /etc/cc/env/<app>     the app's environment, systemd EnvironmentFile= syntax
 */

#include <stddef.h>
#include <sys/types.h>

#define ENTER_GROUPS_MAX     256
#define ENTER_ENV_MAX	     4096
#define ENTER_FILE_MAX	     (1024 * 1024)
#define ENTER_PROPERTIES_MAX 128

struct enter_config {
	uid_t uid;
	gid_t gid;
	gid_t *groups;
	size_t n_groups;
	char *cwd;	   /* "/" when not given */
	char *env_file;	   /* absolute */
	char **properties; /* "Key=value", the app unit's sandbox; NULL-terminated */
	size_t n_properties;
};

/* Parse the text of an enter file for app. -EBADMSG for a malformed line or value
 * (a missing uid or gid included; a property that is not Key=value with Key of letters,
 * or holds a control character), -E2BIG beyond ENTER_PROPERTIES_MAX properties. */
int enter_config_parse(const char *text, const char *app, struct enter_config *ret);
void enter_config_done(struct enter_config *c);

/*
 * Parse an EnvironmentFile= text into a NULL-terminated "KEY=value" array (later duplicates
 * replace earlier ones). Supports '#'/';' comments, single quotes (literal), double quotes
 * (backslash escapes \" \\ \$ \` and line continuation) and unquoted values (a backslash
 * escapes the next character; trailing blanks are dropped). -EBADMSG for a bad name or an
 * unterminated quote, -E2BIG beyond ENTER_ENV_MAX variables.
 */
int enter_env_parse(const char *text, char ***ret_env);
void enter_env_free(char **env);
