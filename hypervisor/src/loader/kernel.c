/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cc/macro.h"
#include "loader/kernel.h"

#define KERNEL_PAGE 4096ull

int kernel_parse(const void *buf, size_t buf_len, uint64_t file_size, struct kernel_image *ret,
		 const char **reterr_msg)
{
	const char *bz_msg;

	assert_return(buf && ret && reterr_msg, -EINVAL);
	if (file_size == 0) {
		*reterr_msg = "kernel file is empty";
		return -ENOEXEC;
	}
	if (buf_len >= 4 && memcmp(buf, "\177ELF", 4) == 0)
		return kernel_parse_elf(buf, buf_len, file_size, ret, reterr_msg);
	if (kernel_parse_bzimage(buf, buf_len, file_size, ret, &bz_msg) == 0)
		return 0;
	*reterr_msg =
		strcmp(bz_msg, "not a bzImage") == 0 ? "not an ELF64 kernel or a bzImage" : bz_msg;
	return -ENOEXEC;
}

static const struct kernel_ram *kernel_ram_find(const struct kernel_ram *ram, unsigned n_ram,
						uint64_t gpa, uint64_t size)
{
	for (unsigned i = 0; i < n_ram; i++)
		if (gpa >= ram[i].gpa && gpa - ram[i].gpa <= ram[i].size &&
		    size <= ram[i].size - (gpa - ram[i].gpa))
			return &ram[i];
	return NULL;
}

int kernel_check_ram(const struct kernel_image *img, const struct kernel_ram *ram, unsigned n_ram,
		     const char **reterr_msg)
{
	assert_return(img && reterr_msg, -EINVAL);
	for (unsigned i = 0; i < img->n_segments; i++) {
		const struct kernel_segment *s = &img->segments[i];

		if (s->gpa < KERNEL_MIN_GPA) {
			*reterr_msg = "kernel segment below 1 MiB (reserved for boot data)";
			return -ENOEXEC;
		}
		if (!kernel_ram_find(ram, n_ram, s->gpa, s->memsz)) {
			*reterr_msg = "kernel segment lies outside guest RAM (try a larger --mem)";
			return -ENOEXEC;
		}
	}
	return 0;
}

int kernel_segment_mappable(const struct kernel_segment *s)
{
	return IS_ALIGNED(s->gpa, KERNEL_PAGE) && IS_ALIGNED(s->file_off, KERNEL_PAGE) &&
	       s->filesz >= KERNEL_PAGE;
}

int kernel_gpa_of(const struct kernel_image *img, uint64_t off, uint64_t n, uint64_t *ret_gpa)
{
	assert_return(img && ret_gpa, -EINVAL);
	for (unsigned i = 0; i < img->n_segments; i++) {
		const struct kernel_segment *s = &img->segments[i];

		if (off >= s->file_off && off - s->file_off <= s->filesz &&
		    n <= s->filesz - (off - s->file_off)) {
			*ret_gpa = s->gpa + (off - s->file_off);
			return 0;
		}
	}
	return -ERANGE;
}

static int kernel_pread_all(int fd, void *buf, uint64_t len, uint64_t off)
{
	uint8_t *p = buf;

	while (len > 0) {
		ssize_t n = pread(fd, p, len, (off_t) off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO; /* the file shrank under us */
		p += n;
		len -= (uint64_t) n;
		off += (uint64_t) n;
	}
	return 0;
}

int kernel_load(int fd, const struct kernel_image *img, const struct kernel_ram *ram,
		unsigned n_ram, struct kernel_ram *ret_mapped, unsigned *ret_n_mapped)
{
	unsigned n_mapped = 0;
	int r;

	assert_return(fd >= 0 && img && ret_mapped && ret_n_mapped, -EINVAL);
	for (unsigned i = 0; i < img->n_segments; i++) {
		const struct kernel_segment *s = &img->segments[i];
		const struct kernel_ram *rr = kernel_ram_find(ram, n_ram, s->gpa, s->memsz);
		uint8_t *hva;
		uint64_t mapped = 0;

		if (!rr)
			return -ERANGE;
		hva = (uint8_t *) rr->hva + (s->gpa - rr->gpa);
		if (kernel_segment_mappable(s)) {
			mapped = ALIGN_DOWN(s->filesz, KERNEL_PAGE);
			if (mmap(hva, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd,
				 (off_t) s->file_off) == MAP_FAILED)
				return -errno;
			ret_mapped[n_mapped++] = (struct kernel_ram){
				.gpa = s->gpa,
				.size = mapped,
				.hva = hva,
			};
		}
		/* The rest (a partial page, or the whole segment) is copied into anonymous RAM,
		 * which is zero already: the bss needs no writes. */
		r = kernel_pread_all(fd, hva + mapped, s->filesz - mapped, s->file_off + mapped);
		if (r < 0)
			return r;
	}
	*ret_n_mapped = n_mapped;
	return 0;
}
