/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: pod manifest parsing, validation, lookups and normalized output. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "manifest/pod-manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pod_manifest *m = NULL, *m2 = NULL;
	struct cc_error err;
	char *json = NULL;

	if (pod_manifest_parse((const char *) data, size, &m, &err) < 0) {
		/* Errors are always terminated and name a path. */
		if (strlen(err.context) == 0 || strlen(err.msg) == 0)
			abort();
		return 0;
	}
	for (size_t i = 0; i < m->n_apps; i++) {
		const struct pod_app *pa = &m->apps[i];
		const struct manifest_app *app = pod_app_effective_app(pa, NULL);

		if (pod_manifest_find_app(m, pa->name) != pa)
			abort();
		for (size_t j = 0; j < pa->n_mounts; j++)
			(void) pod_manifest_find_volume(m, &pa->mounts[j]);
		for (size_t j = 0; app && j < app->isolators.n; j++) {
			uint64_t v;

			(void) manifest_resource_get_limit(&app->isolators.items[j], &v);
			(void) manifest_resource_get_request(&app->isolators.items[j], &v);
		}
	}
	/* The normalized form must parse again. */
	if (pod_manifest_to_json(m, &json) >= 0) {
		if (pod_manifest_parse(json, strlen(json), &m2, &err) < 0)
			abort();
	}
	free(json);
	pod_manifest_free(m2);
	pod_manifest_free(m);
	return 0;
}
