/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cc-vmlinux-prewrite VMLINUX: writes into the guest kernel file, ahead of boot, the
 * alternatives its kernel would write into its text at boot on a CPU with SMAP: clac, stac
 * and lfence at the sites loader/altinstr.h lets a build pre-write. The kernel (with
 * patches/0005-text-poke-early-same.patch) then finds those bytes in place and writes none, so
 * those text pages stay the host's page cache, shared by every pod, instead of a private copy
 * in each VM; cc-vmm puts the NOPs back for a guest without SMAP (docs/guest-image.md,
 * "Pre-written alternatives"). Idempotent: a site that already holds its bytes is left alone;
 * one that holds neither NOPs nor them fails the run. Prints how many sites it wrote.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "loader/altinstr.h"

struct prewrite {
	uint8_t *file;
	unsigned written, present;
};

static int prewrite_site(const struct altinstr_site *site, void *userdata)
{
	struct prewrite *pw = userdata;
	uint8_t *at = pw->file + site->file_off;

	if (!memcmp(at, site->repl, site->len)) {
		pw->present++;
		return 0;
	}
	for (unsigned i = 0; i < site->len; i++)
		if (at[i] != ALTINSTR_NOP)
			return -EILSEQ;
	memcpy(at, site->repl, site->len);
	pw->written++;
	return 0;
}

int main(int argc, char **argv)
{
	_cleanup_close_ int fd = -1;
	struct prewrite pw = {};
	const char *msg = "";
	struct stat st;
	void *p;
	int r;

	if (argc != 2) {
		fprintf(stderr, "usage: cc-vmlinux-prewrite VMLINUX\n");
		return 2;
	}
	fd = open(argv[1], O_RDWR | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size == 0) {
		fprintf(stderr, "cc-vmlinux-prewrite: cannot open '%s': %s\n", argv[1],
			fd < 0 ? strerror(errno) : "empty or unreadable");
		return 1;
	}
	p = mmap(NULL, (size_t) st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "cc-vmlinux-prewrite: cannot map '%s': %m\n", argv[1]);
		return 1;
	}
	pw.file = p;
	r = altinstr_for_each(p, (size_t) st.st_size, prewrite_site, &pw, &msg);
	if (r >= 0 && msync(p, (size_t) st.st_size, MS_SYNC) < 0)
		r = -errno;
	(void) munmap(p, (size_t) st.st_size);
	if (r < 0) {
		fprintf(stderr, "cc-vmlinux-prewrite: '%s': %s\n", argv[1],
			r == -ENOEXEC ? msg
			: r == -EILSEQ
				? "a site to pre-write holds neither NOPs nor its replacement"
				: strerror(-r));
		return 1;
	}
	printf("cc-vmlinux-prewrite: %s: %u sites written, %u already in place\n", argv[1],
	       pw.written, pw.present);
	return 0;
}
