/* SPDX-License-Identifier: Apache-2.0 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cc/macro.h"
#include "cc/cleanup.h"
#include "loader/altinstr.h"

/* struct alt_instr of Linux 6.1 (arch/x86/include/asm/alternative.h), packed. */
#define ALT_ENTRY_SIZE	12
#define ALT_FLAG_INV	0x8000u
#define ALT_MAX_ENTRIES (1u << 20)

struct altinstr_elf {
	const uint8_t *buf;
	size_t len;
	Elf64_Shdr *sh; /* a copy: buf need not be aligned */
	unsigned n_sh;
};

static int altinstr_fail(const char **reterr_msg, const char *msg)
{
	*reterr_msg = msg;
	return -ENOEXEC;
}

static int altinstr_range_ok(size_t len, uint64_t off, uint64_t n)
{
	uint64_t end;

	return !add_overflows_u64(off, n, &end) && end <= len;
}

static const Elf64_Shdr *altinstr_section(const struct altinstr_elf *e, const Elf64_Shdr *strtab,
					  const char *name)
{
	size_t want = strlen(name) + 1;

	for (unsigned i = 0; i < e->n_sh; i++) {
		uint64_t at = strtab->sh_offset + e->sh[i].sh_name;

		if (e->sh[i].sh_name < strtab->sh_size &&
		    want <= strtab->sh_size - e->sh[i].sh_name &&
		    memcmp(e->buf + at, name, want) == 0)
			return &e->sh[i];
	}
	return NULL;
}

/* The file offset of n bytes at virtual address va, in a section with file contents. */
static int altinstr_va_off(const struct altinstr_elf *e, uint64_t va, uint64_t n, uint64_t *ret)
{
	for (unsigned i = 0; i < e->n_sh; i++) {
		const Elf64_Shdr *s = &e->sh[i];

		if (s->sh_type == SHT_NOBITS || !(s->sh_flags & SHF_ALLOC) || va < s->sh_addr ||
		    va - s->sh_addr > s->sh_size || n > s->sh_size - (va - s->sh_addr))
			continue;
		*ret = s->sh_offset + (va - s->sh_addr);
		return altinstr_range_ok(e->len, *ret, n) ? 0 : -ENOEXEC;
	}
	return -ENOEXEC;
}

static int altinstr_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

/* The replacement a qualifying site of this feature may have. */
static int altinstr_repl_allowed(uint16_t feature, const uint8_t *repl, uint8_t len)
{
	static const uint8_t clac[] = {0x0f, 0x01, 0xca}, stac[] = {0x0f, 0x01, 0xcb},
			     lfence[] = {0x0f, 0xae, 0xe8};

	if (len != 3)
		return 0;
	if (feature == ALTINSTR_FEATURE_SMAP)
		return !memcmp(repl, clac, 3) || !memcmp(repl, stac, 3);
	if (feature == ALTINSTR_FEATURE_LFENCE_RDTSC)
		return !memcmp(repl, lfence, 3);
	return 0;
}

static void altinstr_elf_done(struct altinstr_elf *e)
{
	free(e->sh);
}

static int altinstr_elf_open(const uint8_t *buf, size_t len, struct altinstr_elf *ret,
			     const Elf64_Shdr **ret_strtab, const char **reterr_msg)
{
	const Elf64_Shdr *strtab;
	Elf64_Ehdr eh;

	if (len < sizeof(eh))
		return altinstr_fail(reterr_msg, "not an ELF64 little-endian file");
	memcpy(&eh, buf, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB)
		return altinstr_fail(reterr_msg, "not an ELF64 little-endian file");
	if (eh.e_shnum == 0)
		return 0;
	if (eh.e_shentsize != sizeof(Elf64_Shdr) ||
	    !altinstr_range_ok(len, eh.e_shoff, (uint64_t) eh.e_shnum * sizeof(Elf64_Shdr)) ||
	    eh.e_shstrndx >= eh.e_shnum)
		return altinstr_fail(reterr_msg, "ELF section header table is malformed");
	ret->sh = malloc((size_t) eh.e_shnum * sizeof(Elf64_Shdr));
	if (!ret->sh)
		return -ENOMEM;
	memcpy(ret->sh, buf + eh.e_shoff, (size_t) eh.e_shnum * sizeof(Elf64_Shdr));
	ret->n_sh = eh.e_shnum;
	strtab = &ret->sh[eh.e_shstrndx];
	if (!altinstr_range_ok(len, strtab->sh_offset, strtab->sh_size))
		return altinstr_fail(reterr_msg, "ELF section names are outside the file");
	*ret_strtab = strtab;
	return 0;
}

int altinstr_for_each(const uint8_t *buf, size_t len,
		      int (*cb)(const struct altinstr_site *site, void *userdata), void *userdata,
		      const char **reterr_msg)
{
	_cleanup_(altinstr_elf_done) struct altinstr_elf e = {.buf = buf, .len = len};
	_cleanup_free_ uint64_t *sites = NULL;
	const Elf64_Shdr *strtab = NULL, *table;
	uint64_t n, table_off;
	int r;

	assert_return(buf && cb && reterr_msg, -EINVAL);
	r = altinstr_elf_open(buf, len, &e, &strtab, reterr_msg);
	if (r < 0 || !strtab)
		return r;
	table = altinstr_section(&e, strtab, ".altinstructions");
	if (!table || table->sh_size == 0)
		return 0;
	n = table->sh_size / ALT_ENTRY_SIZE;
	if (table->sh_size % ALT_ENTRY_SIZE || n > ALT_MAX_ENTRIES ||
	    altinstr_va_off(&e, table->sh_addr, table->sh_size, &table_off) < 0)
		return altinstr_fail(reterr_msg, "ELF .altinstructions is malformed");
	/* Each entry's site, sorted: a site two entries patch does not qualify. */
	sites = calloc(n, sizeof(*sites));
	if (!sites)
		return -ENOMEM;
	for (uint64_t i = 0; i < n; i++) {
		int32_t instr;

		memcpy(&instr, buf + table_off + i * ALT_ENTRY_SIZE, 4);
		sites[i] = table->sh_addr + i * ALT_ENTRY_SIZE + (uint64_t) (int64_t) instr;
	}
	qsort(sites, n, sizeof(*sites), altinstr_cmp_u64);
	for (uint64_t i = 0; i < n; i++) {
		const uint8_t *ent = buf + table_off + i * ALT_ENTRY_SIZE;
		uint64_t va = table->sh_addr + i * ALT_ENTRY_SIZE, site_va, repl_va, site_off,
			 repl_off;
		int32_t instr, repl;
		uint16_t cpuid;
		const uint64_t *hit;
		struct altinstr_site s;

		memcpy(&instr, ent, 4);
		memcpy(&repl, ent + 4, 4);
		memcpy(&cpuid, ent + 8, 2);
		site_va = va + (uint64_t) (int64_t) instr;
		repl_va = va + 4 + (uint64_t) (int64_t) repl;
		if ((cpuid & ALT_FLAG_INV) || ent[10] != ent[11] || ent[10] == 0)
			continue;
		if (altinstr_va_off(&e, site_va, ent[10], &site_off) < 0 ||
		    altinstr_va_off(&e, repl_va, ent[11], &repl_off) < 0)
			return altinstr_fail(reterr_msg,
					     "ELF .altinstructions points outside the file");
		if (!altinstr_repl_allowed(cpuid, buf + repl_off, ent[11]))
			continue;
		hit = bsearch(&site_va, sites, n, sizeof(*sites), altinstr_cmp_u64);
		if ((hit > sites && hit[-1] == site_va) ||
		    (hit + 1 < sites + n && hit[1] == site_va))
			continue;
		s = (struct altinstr_site){
			.file_off = site_off,
			.repl = buf + repl_off,
			.feature = cpuid,
			.len = ent[10],
		};
		r = cb(&s, userdata);
		if (r < 0)
			return r;
	}
	return 0;
}
