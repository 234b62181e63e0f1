/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cc-manifest: validate appc image/pod manifests, or print one as normalized JSON.
 *
 *   cc-manifest validate FILE...   "FILE: ok" or "FILE: <json path>: <message>" per file;
 *                                  exit 0 all valid, 1 any invalid, 2 usage or I/O error
 *   cc-manifest show FILE          normalized JSON on stdout
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "cc/log.h"
#include "manifest/limits.h"
#include "manifest/manifest.h"

enum {
	EXIT_VALID = 0,
	EXIT_INVALID = 1,
	EXIT_USAGE = 2,
};

static void help(void)
{
	printf("Usage: cc-manifest validate FILE...\n"
	       "       cc-manifest show FILE\n\n"
	       "Validate appc image and pod manifests (kind from acKind), or print one as\n"
	       "normalized JSON. Exit status: 0 valid, 1 invalid, 2 usage or I/O error.\n");
}

/* Returns EXIT_* for one file; fills *ret_json when ret_json is non-NULL and it is valid. */
static int file_check(const char *path, char **ret_json)
{
	_cleanup_free_ char *buf = NULL;
	struct cc_error err;
	size_t len;
	int r;

	r = read_full_file(path, MANIFEST_SIZE_MAX, &buf, &len);
	if (r == -EFBIG) {
		fprintf(ret_json ? stderr : stdout, "%s: $: document is larger than %u bytes\n",
			path, MANIFEST_SIZE_MAX);
		return EXIT_INVALID;
	}
	if (r < 0) {
		(void) log_error_errno(r, "%s: cannot read: %m", path);
		return EXIT_USAGE;
	}
	if (ret_json)
		r = manifest_normalize(buf, len, ret_json, &err);
	else
		r = manifest_validate(buf, len, NULL, &err);
	if (r == -ENOMEM) {
		(void) log_oom();
		return EXIT_USAGE;
	}
	if (r < 0) {
		fprintf(ret_json ? stderr : stdout, "%s: %s: %s\n", path, err.context, err.msg);
		return EXIT_INVALID;
	}
	if (!ret_json)
		printf("%s: ok\n", path);
	return EXIT_VALID;
}

static int verb_validate(int argc, char **argv)
{
	int ret = EXIT_VALID;

	if (argc < 1) {
		(void) log_error_errno(EINVAL, "validate: expected at least one FILE");
		return EXIT_USAGE;
	}
	for (int i = 0; i < argc; i++) {
		int r = file_check(argv[i], NULL);

		ret = MAX(ret, r);
	}
	return ret;
}

static int verb_show(int argc, char **argv)
{
	_cleanup_free_ char *json = NULL;
	int r;

	if (argc != 1) {
		(void) log_error_errno(EINVAL, "show: expected exactly one FILE");
		return EXIT_USAGE;
	}
	r = file_check(argv[0], &json);
	if (r != EXIT_VALID)
		return r;
	printf("%s\n", json);
	return EXIT_VALID;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{"help", no_argument, NULL, 'h'},
		{},
	};
	int c;

	log_set_prefix("cc-manifest");
	while ((c = getopt_long(argc, argv, "+h", options, NULL)) >= 0) {
		switch (c) {
		case 'h':
			help();
			return EXIT_VALID;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		help();
		return EXIT_USAGE;
	}
	if (strcmp(argv[optind], "validate") == 0)
		return verb_validate(argc - optind - 1, argv + optind + 1);
	if (strcmp(argv[optind], "show") == 0)
		return verb_show(argc - optind - 1, argv + optind + 1);
	(void) log_error_errno(EINVAL, "unknown command '%s'", argv[optind]);
	return EXIT_USAGE;
}
