/* SPDX-License-Identifier: Apache-2.0 */
#include <elf.h>
#include <errno.h>
#include <string.h>

#include "cc/macro.h"
#include "loader/kernel.h"

#define ELF_MAX_PHNUM 64

static int elf_fail(const char **reterr_msg, const char *msg)
{
	*reterr_msg = msg;
	return -ENOEXEC;
}

static int elf_check_header(const Elf64_Ehdr *eh, size_t buf_len, const char **reterr_msg)
{
	uint64_t ph_end;

	if (eh->e_ident[EI_CLASS] != ELFCLASS64)
		return elf_fail(reterr_msg, "not an ELF64 file");
	if (eh->e_ident[EI_DATA] != ELFDATA2LSB || eh->e_machine != EM_X86_64)
		return elf_fail(reterr_msg, "not an x86_64 ELF file");
	if (eh->e_type != ET_EXEC && eh->e_type != ET_DYN)
		return elf_fail(reterr_msg, "ELF file is not an executable");
	if (eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phnum == 0 ||
	    eh->e_phnum > ELF_MAX_PHNUM)
		return elf_fail(reterr_msg, "ELF program header table is missing or malformed");
	if (add_overflows_u64(eh->e_phoff, (uint64_t) eh->e_phnum * sizeof(Elf64_Phdr), &ph_end) ||
	    ph_end > buf_len)
		return elf_fail(reterr_msg, "ELF file is truncated (program headers)");
	return 0;
}

static int elf_add_segment(struct kernel_image *img, const Elf64_Phdr *ph, uint64_t file_size,
			   const char **reterr_msg)
{
	uint64_t file_end, mem_end;

	if (ph->p_filesz > ph->p_memsz)
		return elf_fail(reterr_msg, "ELF segment has p_filesz > p_memsz");
	if (add_overflows_u64(ph->p_offset, ph->p_filesz, &file_end) || file_end > file_size)
		return elf_fail(reterr_msg,
				"ELF file is truncated (segment data past end of file)");
	if (add_overflows_u64(ph->p_paddr, ph->p_memsz, &mem_end))
		return elf_fail(reterr_msg, "ELF segment address overflows");
	for (unsigned i = 0; i < img->n_segments; i++) {
		const struct kernel_segment *s = &img->segments[i];

		if (ph->p_paddr < s->gpa + s->memsz && s->gpa < mem_end)
			return elf_fail(reterr_msg, "ELF segments overlap");
	}
	if (img->n_segments >= KERNEL_MAX_SEGMENTS)
		return elf_fail(reterr_msg, "ELF file has too many PT_LOAD segments");
	img->segments[img->n_segments++] = (struct kernel_segment){
		.gpa = ph->p_paddr,
		.file_off = ph->p_offset,
		.filesz = ph->p_filesz,
		.memsz = ph->p_memsz,
		.writable = (ph->p_flags & PF_W) != 0,
	};
	return 0;
}

/*
 * vmlinux has a physical e_entry (inside a segment's p_paddr range); a plain ELF may give a
 * virtual one: translate it through the segment whose p_vaddr range holds it.
 */
static int elf_find_entry(const Elf64_Ehdr *eh, const Elf64_Phdr *phdrs, uint64_t *ret)
{
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = &phdrs[i];

		if (ph->p_type == PT_LOAD && ph->p_memsz > 0 && eh->e_entry >= ph->p_paddr &&
		    eh->e_entry - ph->p_paddr < ph->p_memsz) {
			*ret = eh->e_entry;
			return 0;
		}
	}
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = &phdrs[i];

		if (ph->p_type == PT_LOAD && ph->p_memsz > 0 && eh->e_entry >= ph->p_vaddr &&
		    eh->e_entry - ph->p_vaddr < ph->p_memsz) {
			*ret = ph->p_paddr + (eh->e_entry - ph->p_vaddr);
			return 0;
		}
	}
	return -ENOEXEC;
}

int kernel_parse_elf(const void *buf, size_t buf_len, uint64_t file_size, struct kernel_image *ret,
		     const char **reterr_msg)
{
	struct kernel_image img = {.kind = KERNEL_ELF64};
	Elf64_Ehdr eh;
	Elf64_Phdr phdrs[ELF_MAX_PHNUM];
	int r;

	assert_return(buf && ret && reterr_msg, -EINVAL);
	if (buf_len < SELFMAG || memcmp(buf, ELFMAG, SELFMAG) != 0)
		return elf_fail(reterr_msg, "not an ELF file");
	if (buf_len < sizeof(eh) || file_size < sizeof(eh))
		return elf_fail(reterr_msg, "ELF file is truncated (header)");
	memcpy(&eh, buf, sizeof(eh));
	r = elf_check_header(&eh, MIN((uint64_t) buf_len, file_size), reterr_msg);
	if (r < 0)
		return r;
	memcpy(phdrs, (const uint8_t *) buf + eh.e_phoff, eh.e_phnum * sizeof(Elf64_Phdr));
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		if (phdrs[i].p_type != PT_LOAD || phdrs[i].p_memsz == 0)
			continue;
		r = elf_add_segment(&img, &phdrs[i], file_size, reterr_msg);
		if (r < 0)
			return r;
	}
	if (img.n_segments == 0)
		return elf_fail(reterr_msg, "ELF file has no PT_LOAD segment");
	if (elf_find_entry(&eh, phdrs, &img.entry_gpa) < 0)
		return elf_fail(reterr_msg, "ELF entry point is outside every PT_LOAD segment");
	*ret = img;
	return 0;
}
