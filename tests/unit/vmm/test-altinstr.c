/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pre-writable alternatives of a vmlinux (loader/altinstr.h), with a crafted ELF: which
 * sites qualify, malformed tables refused, and the file-offset-to-guest-address lookup the VMM
 * uses to put NOPs back for a guest without SMAP.
 */
#include <check.h>
#include <elf.h>
#include <errno.h>
#include <string.h>

#include "cctest.h"
#include "vm/kernel-smap.h"
#include "loader/altinstr.h"
#include "loader/kernel.h"

#define TEXT_VA	 0xffffffff81000000ull
#define TEXT_OFF 0x1000u
#define REPL_VA	 0xffffffff81002000ull
#define REPL_OFF 0x2000u
#define ALT_VA	 0xffffffff81003000ull
#define ALT_OFF	 0x3000u
#define STR_OFF	 0x4000u
#define SH_OFF	 0x5000u
#define N_SH	 5
#define LFENCE	 ALTINSTR_FEATURE_LFENCE_RDTSC
#define SMAP	 ALTINSTR_FEATURE_SMAP

static _Alignas(8) uint8_t elf[0x6000];
static unsigned n_alt;

static const uint8_t clac[] = {0x0f, 0x01, 0xca}, stac[] = {0x0f, 0x01, 0xcb},
		     lfence[] = {0x0f, 0xae, 0xe8}, other[] = {0x0f, 0x01, 0xc8};

static Elf64_Ehdr *hdr(void)
{
	return (Elf64_Ehdr *) (void *) elf;
}

static Elf64_Shdr *shdr(unsigned i)
{
	return (Elf64_Shdr *) (void *) (elf + SH_OFF + i * sizeof(Elf64_Shdr));
}

/* One entry: site at .text + site, replacement (len bytes) at .altinstr_replacement + repl. */
static void alt_add(unsigned site, unsigned repl, const uint8_t *bytes, uint16_t cpuid,
		    uint8_t instrlen, uint8_t repllen)
{
	uint8_t *e = elf + ALT_OFF + n_alt * 12;
	uint64_t va = ALT_VA + n_alt * 12;
	int32_t instr_rel = (int32_t) (int64_t) (TEXT_VA + site - va);
	int32_t repl_rel = (int32_t) (int64_t) (REPL_VA + repl - (va + 4));

	memcpy(e, &instr_rel, 4);
	memcpy(e + 4, &repl_rel, 4);
	memcpy(e + 8, &cpuid, 2);
	e[10] = instrlen;
	e[11] = repllen;
	memcpy(elf + REPL_OFF + repl, bytes, repllen);
	memset(elf + TEXT_OFF + site, ALTINSTR_NOP, instrlen);
	n_alt++;
	shdr(3)->sh_size = n_alt * 12;
}

static void elf_make(void)
{
	static const char names[] = "\0.text\0.altinstr_replacement\0.altinstructions\0.shstrtab";
	Elf64_Ehdr *eh = hdr();

	memset(elf, 0, sizeof(elf));
	n_alt = 0;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_type = ET_EXEC;
	eh->e_machine = EM_X86_64;
	eh->e_shoff = SH_OFF;
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shnum = N_SH;
	eh->e_shstrndx = 4;
	memcpy(elf + STR_OFF, names, sizeof(names));
	*shdr(1) = (Elf64_Shdr){.sh_name = 1,
				.sh_type = SHT_PROGBITS,
				.sh_flags = SHF_ALLOC | SHF_EXECINSTR,
				.sh_addr = TEXT_VA,
				.sh_offset = TEXT_OFF,
				.sh_size = 0x100};
	*shdr(2) = (Elf64_Shdr){.sh_name = 7,
				.sh_type = SHT_PROGBITS,
				.sh_flags = SHF_ALLOC | SHF_EXECINSTR,
				.sh_addr = REPL_VA,
				.sh_offset = REPL_OFF,
				.sh_size = 0x100};
	*shdr(3) = (Elf64_Shdr){.sh_name = 29,
				.sh_type = SHT_PROGBITS,
				.sh_flags = SHF_ALLOC,
				.sh_addr = ALT_VA,
				.sh_offset = ALT_OFF,
				.sh_size = 0};
	*shdr(4) = (Elf64_Shdr){.sh_name = 46,
				.sh_type = SHT_STRTAB,
				.sh_offset = STR_OFF,
				.sh_size = sizeof(names)};
}

struct seen {
	unsigned n;
	uint64_t off[16];
	uint16_t feature[16];
	int fail_at;
};

static int collect(const struct altinstr_site *site, void *userdata)
{
	struct seen *s = userdata;

	if (s->fail_at && (int) s->n + 1 == s->fail_at)
		return -EIO;
	ck_assert_uint_lt(s->n, 16);
	ck_assert_uint_eq(site->len, 3);
	s->off[s->n] = site->file_off;
	s->feature[s->n++] = site->feature;
	return 0;
}

static int run(struct seen *s, const char **msg)
{
	memset(s, 0, sizeof(*s));
	return altinstr_for_each(elf, sizeof(elf), collect, s, msg);
}

/* A good file with a clac and a stac site. */
static void elf_make_two(void)
{
	elf_make();
	alt_add(0x10, 0x00, clac, SMAP, 3, 3);
	alt_add(0x20, 0x04, stac, SMAP, 3, 3);
}

START_TEST(test_qualifying_sites)
{
	const char *msg = NULL;
	struct seen s;

	elf_make_two();
	alt_add(0x30, 0x08, lfence, LFENCE, 3, 3);
	alt_add(0x40, 0x0c, clac, SMAP | 0x8000, 3, 3); /* ALT_NOT(SMAP) */
	alt_add(0x50, 0x10, clac, 3 * 32 + 19, 3, 3);	/* another feature */
	alt_add(0x60, 0x14, clac, SMAP, 3, 3);		/* a site two entries patch */
	alt_add(0x60, 0x18, lfence, LFENCE, 3, 3);
	alt_add(0x70, 0x1c, clac, SMAP, 5, 3);	 /* padded: the kernel would add NOPs */
	alt_add(0x80, 0x20, other, SMAP, 3, 3);	 /* not clac, stac or lfence */
	alt_add(0x90, 0x24, lfence, SMAP, 3, 3); /* lfence under SMAP */
	ASSERT_OK(run(&s, &msg));
	ck_assert_uint_eq(s.n, 3);
	ck_assert_uint_eq(s.off[0], TEXT_OFF + 0x10);
	ck_assert_uint_eq(s.feature[0], SMAP);
	ck_assert_uint_eq(s.off[1], TEXT_OFF + 0x20);
	ck_assert_uint_eq(s.off[2], TEXT_OFF + 0x30);
	ck_assert_uint_eq(s.feature[2], LFENCE);
}
END_TEST

START_TEST(test_callback_error_stops)
{
	const char *msg = NULL;
	struct seen s;

	elf_make_two();
	memset(&s, 0, sizeof(s));
	s.fail_at = 2;
	ck_assert_int_eq(altinstr_for_each(elf, sizeof(elf), collect, &s, &msg), -EIO);
	ck_assert_uint_eq(s.n, 1);
}
END_TEST

START_TEST(test_no_table_no_sites)
{
	const char *msg = NULL;
	struct seen s;

	elf_make();
	ASSERT_OK(run(&s, &msg)); /* an empty .altinstructions */
	ck_assert_uint_eq(s.n, 0);
	hdr()->e_shnum = 0; /* no section headers: a minimal test guest */
	ASSERT_OK(run(&s, &msg));
	ck_assert_uint_eq(s.n, 0);
}
END_TEST

/* Breaks one thing of a good file with one site; how many there are. */
#define N_BREAKERS 10
static void elf_break(int i)
{
	int32_t far = i == 7 ? 0x10000000 : -0x10000000;

	switch (i) {
	case 0:
		memcpy(elf,
		       "\x7f"
		       "ELX",
		       4);
		break;
	case 1:
		hdr()->e_shoff = sizeof(elf) - 64;
		break;
	case 2:
		hdr()->e_shentsize = 32;
		break;
	case 3:
		hdr()->e_shstrndx = N_SH;
		break;
	case 4:
		shdr(4)->sh_size = sizeof(elf);
		break;
	case 5:
		shdr(3)->sh_size = 13;
		break;
	case 6:
		shdr(3)->sh_size = 0x2000;
		break;
	case 7:
		memcpy(elf + ALT_OFF, &far, 4); /* the site far outside every section */
		break;
	case 8:
		memcpy(elf + ALT_OFF + 4, &far, 4); /* the replacement too */
		break;
	case 9:
		shdr(1)->sh_type = SHT_NOBITS; /* .text without file contents */
		break;
	}
}

START_TEST(test_malformed_refused)
{
	const char *msg = NULL;
	struct seen s;

	elf_make();
	alt_add(0x10, 0x00, clac, SMAP, 3, 3);
	elf_break(_i);
	ck_assert_int_eq(run(&s, &msg), -ENOEXEC);
	ck_assert_ptr_nonnull(msg);
	ck_assert_uint_eq(s.n, 0);
}
END_TEST

START_TEST(test_gpa_of_file_offset)
{
	struct kernel_image img = {
		.kind = KERNEL_ELF64,
		.n_segments = 2,
		.segments = {{.gpa = 0x1000000, .file_off = 0x200000, .filesz = 0x10000},
			     {.gpa = 0x2000000, .file_off = 0x400000, .filesz = 0x1000}},
	};
	uint64_t gpa = 0;

	ASSERT_OK(kernel_gpa_of(&img, 0x200010, 3, &gpa));
	ck_assert_uint_eq(gpa, 0x1000010);
	ASSERT_OK(kernel_gpa_of(&img, 0x400ffd, 3, &gpa));
	ck_assert_uint_eq(gpa, 0x2000ffd);
	ck_assert_int_eq(kernel_gpa_of(&img, 0x400ffe, 3, &gpa), -ERANGE); /* crosses the end */
	ck_assert_int_eq(kernel_gpa_of(&img, 0x300000, 3, &gpa), -ERANGE); /* between them */
	ck_assert_int_eq(kernel_gpa_of(&img, 0x1ffffe, 3, &gpa), -ERANGE); /* before */
}
END_TEST

/* A guest without SMAP: the VMM puts NOPs back at the pre-written clac/stac sites only. */
START_TEST(test_undo_smap_sites)
{
	static _Alignas(4096) uint8_t ram[0x2000];
	struct kernel_image img = {
		.kind = KERNEL_ELF64,
		.n_segments = 1,
		.segments =
			{{.gpa = 0x1000, .file_off = TEXT_OFF, .filesz = 0x100, .memsz = 0x100}},
	};
	const char *msg = NULL;
	struct gmem gm;
	unsigned n = 0;

	elf_make_two();
	alt_add(0x30, 0x08, lfence, LFENCE, 3, 3);
	alt_add(0x40, 0x0c, clac, SMAP, 3, 3); /* left as NOPs by the build: nothing to undo */
	/* The build's pre-writing, then the VM's copy of the text. */
	memcpy(elf + TEXT_OFF + 0x10, clac, 3);
	memcpy(elf + TEXT_OFF + 0x20, stac, 3);
	memcpy(elf + TEXT_OFF + 0x30, lfence, 3);
	memcpy(ram + 0x1000, elf + TEXT_OFF, 0x100);
	gmem_init(&gm);
	ASSERT_OK(gmem_add_region(&gm, 0, sizeof(ram), ram, 0));
	ASSERT_OK(kernel_smap_undo(elf, sizeof(elf), &img, &gm, &n, &msg));
	ck_assert_uint_eq(n, 2);
	for (unsigned i = 0; i < 3; i++) {
		ck_assert_uint_eq(ram[0x1010 + i], ALTINSTR_NOP);
		ck_assert_uint_eq(ram[0x1020 + i], ALTINSTR_NOP);
		ck_assert_uint_eq(ram[0x1040 + i], ALTINSTR_NOP);
	}
	ck_assert_int_eq(memcmp(ram + 0x1030, lfence, 3), 0);	     /* harmless anywhere: kept */
	ck_assert_int_eq(memcmp(elf + TEXT_OFF + 0x10, clac, 3), 0); /* the file is untouched */

	/* A site outside every segment is refused, not written somewhere else. */
	img.segments[0].filesz = 0x18;
	ck_assert_int_eq(kernel_smap_undo(elf, sizeof(elf), &img, &gm, &n, &msg), -ERANGE);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vmm-altinstr");
	TCase *tc = tcase_create("altinstr");

	tcase_add_test(tc, test_qualifying_sites);
	tcase_add_test(tc, test_callback_error_stops);
	tcase_add_test(tc, test_no_table_no_sites);
	tcase_add_loop_test(tc, test_malformed_refused, 0, N_BREAKERS);
	tcase_add_test(tc, test_gpa_of_file_offset);
	tcase_add_test(tc, test_undo_smap_sites);
	suite_add_tcase(s, tc);
	return cctest_run_suite(s);
}
