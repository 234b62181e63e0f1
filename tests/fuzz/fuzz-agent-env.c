/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target: cc-agent's readers of the pod layer (etc/cc/enter/<app> and the
 * EnvironmentFile syntax). The first byte picks the parser; every variable produced must be
 * NAME=value with a valid name.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "enter-config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct enter_config c;
	char **env = NULL;
	char *text;

	if (size < 1 || size > ENTER_FILE_MAX)
		return 0;
	text = strndup((const char *) data + 1, size - 1);
	if (!text)
		return 0;
	if (data[0] & 1) {
		if (enter_config_parse(text, "app", &c) == 0) {
			if (!c.cwd || c.cwd[0] != '/' || !c.env_file || c.env_file[0] != '/' ||
			    c.n_groups > ENTER_GROUPS_MAX)
				abort();
			enter_config_done(&c);
		}
	} else if (enter_env_parse(text, &env) == 0) {
		for (size_t i = 0; env[i]; i++) {
			const char *eq = strchr(env[i], '=');

			if (!eq || eq == env[i] || (env[i][0] >= '0' && env[i][0] <= '9'))
				abort();
			if (i >= ENTER_ENV_MAX)
				abort();
		}
		enter_env_free(env);
	}
	free(text);
	return 0;
}
