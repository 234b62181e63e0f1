/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The GNU build ID of an ELF file (cc/elf-build-id.h): found among other notes, in hex; a
 * truncated note, an empty or oversized ID, a short buffer refused; none in notes without it
 * or in a file without PT_NOTE; not ELF refused; and this test program's own, which the
 * toolchain gives one.
 */
#include <check.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cctest.h"
#include "cc/elf-build-id.h"

/* Appends a note (name "GNU" or "Xen") with desc bytes 0x10, 0x11, ... to buf at *off. */
static void note(uint8_t *buf, size_t *off, const char *name, uint32_t type, uint32_t descsz)
{
	Elf64_Nhdr nh = {
		.n_namesz = (uint32_t) strlen(name) + 1, .n_descsz = descsz, .n_type = type};

	memcpy(buf + *off, &nh, sizeof(nh));
	*off += sizeof(nh);
	memcpy(buf + *off, name, nh.n_namesz);
	*off += (nh.n_namesz + 3) / 4 * 4;
	for (uint32_t i = 0; i < descsz; i++)
		buf[*off + i] = (uint8_t) (0x10 + i);
	*off += (descsz + 3) / 4 * 4;
}

START_TEST(test_notes)
{
	uint8_t buf[512] = {0};
	char hex[2 * ELF_BUILD_ID_MAX + 1];
	size_t len = 0;

	note(buf, &len, "Xen", 5, 8);
	ASSERT_ERRNO(elf_notes_build_id(buf, len, hex, sizeof(hex)), ENOENT);
	note(buf, &len, "GNU", NT_GNU_BUILD_ID, 4);
	ASSERT_OK(elf_notes_build_id(buf, len, hex, sizeof(hex)));
	ck_assert_str_eq(hex, "10111213");
	ASSERT_ERRNO(elf_notes_build_id(buf, len, hex, 8), ENOBUFS);
	ASSERT_ERRNO(elf_notes_build_id(buf, len - 4, hex, sizeof(hex)), ENOEXEC);

	len = 0;
	note(buf, &len, "GNU", NT_GNU_BUILD_ID, 0);
	ASSERT_ERRNO(elf_notes_build_id(buf, len, hex, sizeof(hex)), ENOEXEC);
	len = 0;
	note(buf, &len, "GNU", NT_GNU_BUILD_ID, ELF_BUILD_ID_MAX + 4);
	ASSERT_ERRNO(elf_notes_build_id(buf, len, hex, sizeof(hex)), ENOEXEC);
	/* A header whose sizes run past the end. */
	len = 0;
	note(buf, &len, "GNU", NT_GNU_BUILD_ID, 20);
	((Elf64_Nhdr *) (void *) buf)->n_descsz = 0xfffffff0u;
	ASSERT_ERRNO(elf_notes_build_id(buf, len, hex, sizeof(hex)), ENOEXEC);
}
END_TEST

START_TEST(test_files)
{
	char hex[2 * ELF_BUILD_ID_MAX + 1], path[512];
	char *dir = cctest_mkdtemp();
	Elf64_Ehdr eh = {.e_ident = {ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64},
			 .e_phentsize = sizeof(Elf64_Phdr),
			 .e_phnum = 0};
	int fd;

	/* This program: the toolchain's build ID, 20 bytes of SHA-1 on Debian. */
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ASSERT_OK(elf_file_build_id(fd, hex, sizeof(hex)));
	ck_assert_uint_eq(strlen(hex), 40);
	ck_assert_uint_eq(strspn(hex, "0123456789abcdef"), 40);
	close(fd);

	snprintf(path, sizeof(path), "%s/elf", dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pwrite(fd, &eh, sizeof(eh), 0), sizeof(eh));
	ASSERT_ERRNO(elf_file_build_id(fd, hex, sizeof(hex)), ENOENT);
	ck_assert_int_eq(pwrite(fd, "not an ELF file at all", 22, 0), 22);
	ASSERT_ERRNO(elf_file_build_id(fd, hex, sizeof(hex)), ENOEXEC);
	ck_assert_int_eq(ftruncate(fd, 10), 0);
	ASSERT_ERRNO(elf_file_build_id(fd, hex, sizeof(hex)), ENOEXEC);
	close(fd);
	cctest_rm_rf(dir);
	free(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("build-id");
	TCase *tc = tcase_create("build-id");

	tcase_add_test(tc, test_notes);
	tcase_add_test(tc, test_files);
	suite_add_tcase(s, tc);
	return cctest_run_suite(s);
}
