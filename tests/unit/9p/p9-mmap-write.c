/* SPDX-License-Identifier: Apache-2.0 */
/*
 * p9-mmap-write FILE: write "mmap!" at offset 0 and "page2" at 4096 of FILE through a shared
 * writable mapping, then msync. Test tool for v9fs-fd-check (the test host's Python has no
 * mmap module).
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char *p;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: %s FILE\n", argv[0]);
		return 2;
	}
	fd = open(argv[1], O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	memcpy(p, "mmap!", 5);
	memcpy(p + 4096, "page2", 5);
	if (msync(p, 8192, MS_SYNC) < 0) {
		perror("msync");
		return 1;
	}
	munmap(p, 8192);
	return close(fd) < 0 ? 1 : 0;
}
