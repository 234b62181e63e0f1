/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The GNU build ID of an ELF file (its NT_GNU_BUILD_ID note): what names a kernel build, for
 * the host-wide file of its shared pages (cc/kernel-pages-file.h). A vmlinux has one (Linux links
 * with --build-id).
 */

#include <stddef.h>
#include <stdint.h>

#define ELF_BUILD_ID_MAX 64 /* bytes of ID taken; a SHA-1 ID has 20 */

/*
 * The build ID in the bytes of one PT_NOTE segment (len bytes), as lower-case hex into hex
 * (size bytes, NUL-terminated). 0; -ENOENT without that note; -ENOEXEC for a note that runs
 * past the end or an ID longer than ELF_BUILD_ID_MAX; -ENOBUFS when hex is too small.
 */
int elf_notes_build_id(const uint8_t *notes, size_t len, char *hex, size_t size);

/*
 * The same for the ELF64 file open at fd: its header and each PT_NOTE segment (up to 64 KiB
 * each) are read with pread(). -ENOEXEC for a file that is not ELF64 or whose program headers
 * are malformed, -ENOENT without a build ID, -errno for a failed read.
 */
int elf_file_build_id(int fd, char *hex, size_t size);
