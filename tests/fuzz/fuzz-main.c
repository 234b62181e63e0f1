/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Corpus replay driver: runs LLVMFuzzerTestOneInput() over every file named on the command
 * line, or every file in a directory, without libFuzzer. This makes each fuzz corpus a
 * regression test in ordinary (gcc) builds.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cc/cleanup.h"
#include "cc/fileio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_INPUT (4u * 1024 * 1024)

static int replay_file(const char *path)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int r;

	r = read_full_file(path, FUZZ_MAX_INPUT, &buf, &len);
	if (r < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(-r));
		return r;
	}
	(void) LLVMFuzzerTestOneInput((const uint8_t *) buf, len);
	return 0;
}

static int replay_path(const char *path, unsigned *count)
{
	_cleanup_closedir_ DIR *d = NULL;
	struct dirent *de;
	struct stat st;
	int r = 0;

	if (stat(path, &st) < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -errno;
	}
	if (!S_ISDIR(st.st_mode)) {
		(*count)++;
		return replay_file(path);
	}
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		_cleanup_free_ char *p = NULL;
		int k;

		if (de->d_name[0] == '.')
			continue;
		if (asprintf(&p, "%s/%s", path, de->d_name) < 0)
			return -ENOMEM;
		k = replay_path(p, count);
		if (k < 0 && r == 0)
			r = k;
	}
	return r;
}

int main(int argc, char **argv)
{
	unsigned count = 0;
	int r = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR|FILE...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		int k = replay_path(argv[i], &count);
		if (k < 0)
			r = k;
	}
	if (count == 0) {
		fprintf(stderr, "no corpus files found\n");
		return 1;
	}
	printf("replayed %u inputs\n", count);
	return r < 0 ? 1 : 0;
}
