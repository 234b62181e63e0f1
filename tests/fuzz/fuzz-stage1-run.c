/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target: the stage1 supervisor's own parsers of pod-dir files and paths. The
 * first byte picks one: cc/resources records, cc-pod-exit contents, volume target paths.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pod-exit.h"
#include "pod-resources.h"
#include "volume-plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_resources(const char *buf, size_t len)
{
	struct pod_resource *v = NULL;
	unsigned line = 0;
	size_t n = 0;

	if (pod_resources_parse(buf, len, &v, &n, &line) < 0)
		return;
	for (size_t i = 0; i < n; i++) {
		char out[POD_RESOURCE_NAME_MAX + 32];
		struct pod_resource *w = NULL;
		size_t m = 0;
		int k;

		/* Every accepted entry is valid and survives a round trip. */
		if (!pod_resource_name_valid(v[i].kind, v[i].name))
			abort();
		k = snprintf(out, sizeof(out), "%s %s\n", pod_resource_kind_to_string(v[i].kind),
			     v[i].name);
		if (pod_resources_parse(out, (size_t) k, &w, &m, NULL) < 0 || m != 1 ||
		    w[0].kind != v[i].kind || strcmp(w[0].name, v[i].name) != 0)
			abort();
		free(w);
	}
	free(v);
}

static void fuzz_pod_exit(const char *buf, size_t len)
{
	int code = -1;

	if (pod_exit_parse(buf, len, &code) == 0 && (code < 0 || code > 255))
		abort();
}

static void fuzz_path(const char *buf, size_t len)
{
	char *s = strndup(buf, len), *norm = NULL, *again = NULL;

	if (!s)
		return;
	if (volume_path_normalize(s, &norm) == 0) {
		/* Normalized: absolute, no "//", "/." or "/.." left, idempotent. */
		if (norm[0] != '/' || strstr(norm, "//") || strstr(norm, "/./") ||
		    strstr(norm, "/../") || volume_path_normalize(norm, &again) < 0 ||
		    strcmp(norm, again) != 0 || !volume_paths_overlap(norm, norm))
			abort();
	}
	free(again);
	free(norm);
	free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	switch (data[0] % 3) {
	case 0:
		fuzz_resources((const char *) data + 1, size - 1);
		break;
	case 1:
		fuzz_pod_exit((const char *) data + 1, size - 1);
		break;
	default:
		fuzz_path((const char *) data + 1, size - 1);
		break;
	}
	return 0;
}
