/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cc-test-mem-hog: a VMM gone bad, for test-run-vmm-bound (CC_STAGE1_VMM): it ignores its
 * arguments and allocates and writes memory 1 MiB at a time, as a VMM with an unbounded
 * allocation a guest can drive would. Each MiB it got is counted in $HOG_LOG (rewritten in
 * place). When an allocation fails (RLIMIT_DATA) it says so on stderr and aborts, as
 * cc-vmm's allocation failures end; under a cgroup's memory.max the OOM killer ends it
 * first. $HOG_MAX_MIB (default 4096) is a safety stop: reaching it exits 3, so a test on a
 * host where no bound applied fails instead of taking the host's memory.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK (1u << 20)

int main(void)
{
	const char *log = getenv("HOG_LOG"), *max_env = getenv("HOG_MAX_MIB");
	unsigned long max = max_env ? strtoul(max_env, NULL, 10) : 4096;
	int fd = log ? open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;

	for (unsigned long mib = 0; mib < max; mib++) {
		char *p = malloc(CHUNK);
		char line[32];
		int n;

		if (!p) {
			fprintf(stderr, "cc-test-mem-hog: out of memory after %lu MiB\n", mib);
			abort();
		}
		memset(p, 0x5a, CHUNK);
		n = snprintf(line, sizeof(line), "%lu\n", mib + 1);
		if (fd >= 0 && pwrite(fd, line, (size_t) n, 0) != n)
			return 2;
	}
	fprintf(stderr, "cc-test-mem-hog: %lu MiB and no bound stopped me\n", max);
	return 3;
}
