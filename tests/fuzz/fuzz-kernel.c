/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fuzz target: the kernel image parser (ELF64 and bzImage headers), then the RAM check, as
 * cc-vmm runs them on a --kernel file. The input is the head of the file; its size is also the
 * file size, so truncation checks are exercised. Then the whole input as the file whose
 * pre-written alternatives cc-vmm and cc-vmlinux-prewrite look for (loader/altinstr.h), and
 * as the notes in which cc-vmm looks for the kernel's build ID (cc/elf-build-id.h).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "loader/altinstr.h"
#include "cc/elf-build-id.h"
#include "loader/kernel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fuzz_site(const struct altinstr_site *site, void *userdata)
{
	const size_t *size = userdata;

	if (site->len == 0 || site->file_off > *size || site->len > *size - site->file_off)
		__builtin_trap();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct kernel_ram ram[2] = {
		{.gpa = 0, .size = 0xc0000000ull},
		{.gpa = 0x100000000ull, .size = 0x40000000ull},
	};
	struct kernel_image img;
	const char *msg = NULL;
	size_t head = size < KERNEL_HEADER_READ ? size : KERNEL_HEADER_READ;

	char hex[2 * ELF_BUILD_ID_MAX + 1];

	(void) altinstr_for_each(data, size, fuzz_site, &size, &msg);
	if (elf_notes_build_id(data, size, hex, sizeof(hex)) == 0 &&
	    strspn(hex, "0123456789abcdef") != strlen(hex))
		__builtin_trap();
	if (kernel_parse(data, head, size, &img, &msg) < 0)
		return 0;
	if (img.n_segments == 0 || img.n_segments > KERNEL_MAX_SEGMENTS)
		__builtin_trap();
	(void) kernel_check_ram(&img, ram, 2, &msg);
	return 0;
}
