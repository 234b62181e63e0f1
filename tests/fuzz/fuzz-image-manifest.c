/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: image manifest parsing, validation and normalized output. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "manifest/image-manifest.h"
#include "manifest/quantity.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct image_manifest *m = NULL, *m2 = NULL;
	struct cc_error err;
	char *json = NULL;

	if (image_manifest_parse((const char *) data, size, &m, &err) < 0) {
		if (strlen(err.context) == 0 || strlen(err.msg) == 0)
			abort();
		return 0;
	}
	for (size_t j = 0; m->app && j < m->app->isolators.n; j++) {
		const struct manifest_isolator *iso = &m->app->isolators.items[j];
		uint64_t v;

		(void) manifest_resource_get_limit(iso, &v);
		if (manifest_isolators_find(&m->app->isolators, iso->name) == NULL)
			abort();
	}
	if (image_manifest_to_json(m, &json) >= 0) {
		if (image_manifest_parse(json, strlen(json), &m2, &err) < 0)
			abort();
	}
	free(json);
	image_manifest_free(m2);
	image_manifest_free(m);
	return 0;
}
