/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fuzz target: the kernel image parser (ELF64 and bzImage headers), then the RAM check, as
 * cc-vmm runs them on a --kernel file. The input is the head of the file; its size is also the
 * file size, so truncation checks are exercised.
 */
#include <stddef.h>
#include <stdint.h>

#include "loader/kernel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct kernel_ram ram[2] = {
		{.gpa = 0, .size = 0xc0000000ull},
		{.gpa = 0x100000000ull, .size = 0x40000000ull},
	};
	struct kernel_image img;
	const char *msg = NULL;
	size_t head = size < KERNEL_HEADER_READ ? size : KERNEL_HEADER_READ;

	if (kernel_parse(data, head, size, &img, &msg) < 0)
		return 0;
	if (img.n_segments == 0 || img.n_segments > KERNEL_MAX_SEGMENTS)
		__builtin_trap();
	(void) kernel_check_ram(&img, ram, 2, &msg);
	return 0;
}
