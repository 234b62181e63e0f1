/* SPDX-License-Identifier: Apache-2.0 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "cc/macro.h"
#include "cc/elf-build-id.h"

#define BUILD_ID_MAX_PHNUM 64
#define BUILD_ID_MAX_NOTES (64u * 1024u)

int elf_notes_build_id(const uint8_t *notes, size_t len, char *hex, size_t size)
{
	static const char digits[] = "0123456789abcdef";
	size_t off = 0;

	while (len - off >= sizeof(Elf64_Nhdr)) {
		Elf64_Nhdr nh;
		size_t name_len, desc_len;

		memcpy(&nh, notes + off, sizeof(nh));
		off += sizeof(nh);
		name_len = ALIGN_UP((size_t) nh.n_namesz, 4);
		desc_len = ALIGN_UP((size_t) nh.n_descsz, 4);
		if (name_len > len - off || desc_len > len - off - name_len)
			return -ENOEXEC;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp(notes + off, "GNU", 4) == 0) {
			const uint8_t *id = notes + off + name_len;

			if (nh.n_descsz == 0 || nh.n_descsz > ELF_BUILD_ID_MAX)
				return -ENOEXEC;
			if (size < 2 * (size_t) nh.n_descsz + 1)
				return -ENOBUFS;
			for (size_t i = 0; i < nh.n_descsz; i++) {
				hex[2 * i] = digits[id[i] >> 4];
				hex[2 * i + 1] = digits[id[i] & 0xf];
			}
			hex[2 * nh.n_descsz] = '\0';
			return 0;
		}
		off += name_len + desc_len;
	}
	return -ENOENT;
}

/* A read that ends early means a truncated file. */
static int build_id_read(int fd, void *buf, size_t n, uint64_t off)
{
	int r = pread_exact(fd, buf, n, (off_t) off);

	return r == -ENODATA ? -ENOEXEC : r;
}

int elf_file_build_id(int fd, char *hex, size_t size)
{
	Elf64_Phdr ph[BUILD_ID_MAX_PHNUM];
	Elf64_Ehdr eh;
	int r;

	r = build_id_read(fd, &eh, sizeof(eh), 0);
	if (r < 0)
		return r;
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > BUILD_ID_MAX_PHNUM)
		return -ENOEXEC;
	r = build_id_read(fd, ph, (size_t) eh.e_phnum * sizeof(Elf64_Phdr), eh.e_phoff);
	if (r < 0)
		return r;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		_cleanup_free_ uint8_t *notes = NULL;

		if (ph[i].p_type != PT_NOTE || ph[i].p_filesz == 0 ||
		    ph[i].p_filesz > BUILD_ID_MAX_NOTES)
			continue;
		notes = malloc(ph[i].p_filesz);
		if (!notes)
			return -ENOMEM;
		r = build_id_read(fd, notes, ph[i].p_filesz, ph[i].p_offset);
		if (r >= 0)
			r = elf_notes_build_id(notes, ph[i].p_filesz, hex, size);
		if (r != -ENOENT)
			return r;
	}
	return -ENOENT;
}
