/* SPDX-License-Identifier: Apache-2.0 */
/* The kernel loader with crafted good and bad ELF64 files and bzImage headers (no KVM). */
#include <check.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cctest.h"
#include "loader/kernel.h"

#define MIB (1024ull * 1024)

/* A crafted ELF: header, n program headers, then file data. */
struct elf_buf {
	_Alignas(8) uint8_t data[64 * 1024];
	size_t len;
};

static Elf64_Phdr *elf_phdr(struct elf_buf *b, unsigned i)
{
	return (Elf64_Phdr *) (void *) (b->data + sizeof(Elf64_Ehdr) + i * sizeof(Elf64_Phdr));
}

static Elf64_Ehdr *elf_hdr(struct elf_buf *b)
{
	return (Elf64_Ehdr *) (void *) b->data;
}

/* Two PT_LOADs like a vmlinux: text at 16 MiB (file 0x1000, 0x2800 bytes), data+bss after. */
static void elf_make(struct elf_buf *b)
{
	Elf64_Ehdr *eh = elf_hdr(b);

	memset(b, 0, sizeof(*b));
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_EXEC;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_entry = 16 * MIB;
	eh->e_phoff = sizeof(Elf64_Ehdr);
	eh->e_ehsize = sizeof(Elf64_Ehdr);
	eh->e_phentsize = sizeof(Elf64_Phdr);
	eh->e_phnum = 2;
	*elf_phdr(b, 0) = (Elf64_Phdr){.p_type = PT_LOAD,
				       .p_flags = PF_R | PF_X,
				       .p_offset = 0x1000,
				       .p_vaddr = 0xffffffff81000000ull,
				       .p_paddr = 16 * MIB,
				       .p_filesz = 0x2800,
				       .p_memsz = 0x2800,
				       .p_align = 0x1000};
	*elf_phdr(b, 1) = (Elf64_Phdr){.p_type = PT_LOAD,
				       .p_flags = PF_R | PF_W,
				       .p_offset = 0x4000,
				       .p_vaddr = 0xffffffff81004000ull,
				       .p_paddr = 16 * MIB + 0x4000,
				       .p_filesz = 0x10,
				       .p_memsz = 0x3000,
				       .p_align = 0x1000};
	for (size_t i = 0x1000; i < 0x4010; i++)
		b->data[i] = (uint8_t) (i * 7 + 1);
	b->len = 0x4010;
}

static int parse(struct elf_buf *b, struct kernel_image *img, const char **msg)
{
	return kernel_parse(b->data, b->len, b->len, img, msg);
}

START_TEST(test_parse_vmlinux_like_elf)
{
	struct elf_buf b;
	struct kernel_image img;
	const char *msg = NULL;

	elf_make(&b);
	ASSERT_OK(parse(&b, &img, &msg));
	ck_assert_int_eq(img.kind, KERNEL_ELF64);
	ck_assert_uint_eq(img.entry_gpa, 16 * MIB);
	ck_assert_uint_eq(img.n_segments, 2);
	ck_assert_uint_eq(img.segments[1].gpa, 16 * MIB + 0x4000);
	ck_assert_uint_eq(img.segments[1].filesz, 0x10);
	ck_assert_uint_eq(img.segments[1].memsz, 0x3000);
	ck_assert(kernel_segment_mappable(&img.segments[0]));
	ck_assert(!kernel_segment_mappable(&img.segments[1])); /* less than a page of file */
	/* Text (R X) and data (R W): only text is shared between VMs (vm/kernel-share.c). */
	ck_assert(!img.segments[0].writable);
	ck_assert(img.segments[1].writable);
}
END_TEST

START_TEST(test_parse_translates_virtual_entry)
{
	struct elf_buf b;
	struct kernel_image img;
	const char *msg = NULL;

	elf_make(&b);
	elf_hdr(&b)->e_entry = 0xffffffff81000040ull;
	ASSERT_OK(parse(&b, &img, &msg));
	ck_assert_uint_eq(img.entry_gpa, 16 * MIB + 0x40);
}
END_TEST

/* Each bad case: a mutation of the good file and the message we expect. */
static void mut_magic(struct elf_buf *b)
{
	b->data[1] = 'X';
}
static void mut_class32(struct elf_buf *b)
{
	b->data[EI_CLASS] = ELFCLASS32;
}
static void mut_machine(struct elf_buf *b)
{
	elf_hdr(b)->e_machine = EM_AARCH64;
}
static void mut_type(struct elf_buf *b)
{
	elf_hdr(b)->e_type = ET_REL;
}
static void mut_trunc_header(struct elf_buf *b)
{
	b->len = 40;
}
static void mut_trunc_phdrs(struct elf_buf *b)
{
	b->len = sizeof(Elf64_Ehdr) + sizeof(Elf64_Phdr) + 10;
}
static void mut_trunc_data(struct elf_buf *b)
{
	b->len = 0x3000;
}
static void mut_phentsize(struct elf_buf *b)
{
	elf_hdr(b)->e_phentsize = 32;
}
static void mut_filesz(struct elf_buf *b)
{
	elf_phdr(b, 1)->p_filesz = 0x4000;
}
static void mut_overlap(struct elf_buf *b)
{
	elf_phdr(b, 1)->p_paddr = 16 * MIB + 0x2000;
}
static void mut_overflow(struct elf_buf *b)
{
	elf_phdr(b, 1)->p_paddr = UINT64_MAX - 0x100;
}
static void mut_no_load(struct elf_buf *b)
{
	elf_phdr(b, 0)->p_type = PT_NOTE;
	elf_phdr(b, 1)->p_type = PT_NOTE;
}
static void mut_entry(struct elf_buf *b)
{
	elf_hdr(b)->e_entry = 0x12345;
}
static void mut_empty(struct elf_buf *b)
{
	b->len = 0;
}
static void mut_offset_overflow(struct elf_buf *b)
{
	elf_phdr(b, 0)->p_offset = UINT64_MAX - 0x10;
}

static const struct {
	void (*mutate)(struct elf_buf *b);
	const char *msg;
} bad_elves[] = {
	{mut_magic, "not an ELF64 kernel or a bzImage"},
	{mut_class32, "not an ELF64 file"},
	{mut_machine, "not an x86_64 ELF file"},
	{mut_type, "not an executable"},
	{mut_trunc_header, "truncated (header)"},
	{mut_trunc_phdrs, "truncated (program headers)"},
	{mut_trunc_data, "truncated (segment data"},
	{mut_phentsize, "program header table"},
	{mut_filesz, "p_filesz > p_memsz"},
	{mut_overlap, "overlap"},
	{mut_overflow, "overflows"},
	{mut_no_load, "no PT_LOAD"},
	{mut_entry, "entry point"},
	{mut_empty, "empty"},
	{mut_offset_overflow, "truncated (segment data"},
};

START_TEST(test_parse_rejects_bad_elf)
{
	struct elf_buf b;
	struct kernel_image img;
	const char *msg = NULL;

	elf_make(&b);
	bad_elves[_i].mutate(&b);
	ASSERT_ERRNO(parse(&b, &img, &msg), ENOEXEC);
	ck_assert_ptr_nonnull(msg);
	ck_assert_msg(strstr(msg, bad_elves[_i].msg), "case %d: got '%s', want '%s'", _i, msg,
		      bad_elves[_i].msg);
}
END_TEST

START_TEST(test_parse_rejects_too_many_segments)
{
	struct elf_buf b;
	struct kernel_image img;
	const char *msg = NULL;
	unsigned n = KERNEL_MAX_SEGMENTS + 1;

	elf_make(&b);
	elf_hdr(&b)->e_phnum = (uint16_t) n;
	for (unsigned i = 0; i < n; i++)
		*elf_phdr(&b, i) = (Elf64_Phdr){.p_type = PT_LOAD,
						.p_offset = 0x2000,
						.p_paddr = 16 * MIB + i * 0x1000,
						.p_filesz = 0x10,
						.p_memsz = 0x10};
	ASSERT_ERRNO(parse(&b, &img, &msg), ENOEXEC);
	ck_assert_ptr_nonnull(strstr(msg, "too many"));
}
END_TEST

START_TEST(test_check_ram)
{
	struct elf_buf b;
	struct kernel_image img;
	const char *msg = NULL;
	struct kernel_ram ram[2] = {{.gpa = 0, .size = 64 * MIB}, {.gpa = 1ull << 32, .size = MIB}};

	elf_make(&b);
	ASSERT_OK(parse(&b, &img, &msg));
	ASSERT_OK(kernel_check_ram(&img, ram, 2, &msg));
	ram[0].size = 16 * MIB + 0x6000; /* bss ends at +0x7000 */
	ASSERT_ERRNO(kernel_check_ram(&img, ram, 2, &msg), ENOEXEC);
	ck_assert_ptr_nonnull(strstr(msg, "outside guest RAM"));
	img.segments[0].gpa = 0x8000;
	ram[0].size = 64 * MIB;
	ASSERT_ERRNO(kernel_check_ram(&img, ram, 2, &msg), ENOEXEC);
	ck_assert_ptr_nonnull(strstr(msg, "below 1 MiB"));
	img.segments[0].gpa = (1ull << 32) + 0x1000; /* in high RAM: fine */
	img.segments[0].memsz = 0x1000;
	ASSERT_OK(kernel_check_ram(&img, ram, 2, &msg));
}
END_TEST

static void bz_make(uint8_t *buf, size_t len, uint16_t version, uint8_t xloadflags)
{
	memset(buf, 0, len);
	buf[0x1f1] = 2; /* setup_sects: protected-mode code at 3 * 512 */
	buf[0x1fe] = 0x55;
	buf[0x1ff] = 0xaa;
	buf[0x201] = 0x6a; /* header length past 0x202 */
	memcpy(buf + 0x202, "HdrS", 4);
	buf[0x206] = (uint8_t) version;
	buf[0x207] = (uint8_t) (version >> 8);
	buf[0x211] = 0x01; /* LOADED_HIGH */
	buf[0x236] = xloadflags;
	buf[0x260] = 0x00;
	buf[0x262] = 0x40; /* init_size 4 MiB */
}

START_TEST(test_parse_bzimage)
{
	static uint8_t buf[8192];
	struct kernel_image img;
	const char *msg = NULL;

	bz_make(buf, sizeof(buf), 0x020f, 0x1);
	ASSERT_OK(kernel_parse(buf, sizeof(buf), sizeof(buf), &img, &msg));
	ck_assert_int_eq(img.kind, KERNEL_BZIMAGE);
	ck_assert_uint_eq(img.entry_gpa, KERNEL_BZ_LOAD_GPA + 0x200);
	ck_assert_uint_eq(img.segments[0].file_off, 3 * 512);
	ck_assert_uint_eq(img.segments[0].filesz, sizeof(buf) - 3 * 512);
	ck_assert_uint_eq(img.segments[0].memsz, 4 * MIB);
	ck_assert_uint_eq(img.setup_hdr_len, 0x202 + 0x6a - 0x1f1);
	ck_assert_uint_eq(img.setup_hdr[0], 2);

	bz_make(buf, sizeof(buf), 0x020f, 0x0);
	ASSERT_ERRNO(kernel_parse(buf, sizeof(buf), sizeof(buf), &img, &msg), ENOEXEC);
	ck_assert_ptr_nonnull(strstr(msg, "64-bit entry"));
	bz_make(buf, sizeof(buf), 0x0200, 0x1);
	ASSERT_ERRNO(kernel_parse(buf, sizeof(buf), sizeof(buf), &img, &msg), ENOEXEC);
}
END_TEST

START_TEST(test_load_maps_text_and_zeroes_bss)
{
	char *dir = cctest_mkdtemp();
	char path[4200], line[4600], addr[64];
	struct elf_buf b;
	struct kernel_image img;
	struct kernel_ram ram, mapped[KERNEL_MAX_SEGMENTS];
	unsigned n_mapped = 0;
	const char *msg = NULL;
	uint8_t *mem;
	int fd, found = 0;
	FILE *maps;

	elf_make(&b);
	snprintf(path, sizeof(path), "%s/vmlinux", dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, b.data, b.len), (ssize_t) b.len);
	ASSERT_OK(parse(&b, &img, &msg));
	mem = mmap(NULL, 32 * MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(mem, MAP_FAILED);
	ram = (struct kernel_ram){.gpa = 0, .size = 32 * MIB, .hva = mem};
	ASSERT_OK(kernel_load(fd, &img, &ram, 1, mapped, &n_mapped));

	/* text: 2 full pages mapped from the file, the partial third page copied */
	ck_assert_uint_eq(n_mapped, 1);
	ck_assert_uint_eq(mapped[0].gpa, 16 * MIB);
	ck_assert_uint_eq(mapped[0].size, 0x2000);
	ck_assert_ptr_eq(mapped[0].hva, mem + 16 * MIB);
	ck_assert_int_eq(memcmp(mem + 16 * MIB, b.data + 0x1000, 0x2800), 0);
	ck_assert_int_eq(mem[16 * MIB + 0x2800], 0);
	/* data copied, bss zero */
	ck_assert_int_eq(memcmp(mem + 16 * MIB + 0x4000, b.data + 0x4000, 0x10), 0);
	for (size_t i = 0x10; i < 0x3000; i++)
		ck_assert_int_eq(mem[16 * MIB + 0x4000 + i], 0);

	/* the text pages are a private mapping of the file */
	snprintf(addr, sizeof(addr), "%lx-", (unsigned long) (uintptr_t) (mem + 16 * MIB));
	maps = fopen("/proc/self/maps", "r");
	ck_assert_ptr_nonnull(maps);
	while (fgets(line, sizeof(line), maps))
		if (strncmp(line, addr, strlen(addr)) == 0)
			found = strstr(line, path) && strstr(line, " rw-p 00001000 ");
	fclose(maps);
	ck_assert_msg(found, "text is not a private file mapping at %s", addr);

	/* writes to the guest copy never reach the file */
	mem[16 * MIB] ^= 0xff;
	ck_assert_int_eq(pread(fd, line, 1, 0x1000), 1);
	ck_assert_int_eq((uint8_t) line[0], b.data[0x1000]);

	munmap(mem, 32 * MIB);
	close(fd);
	cctest_rm_rf(dir);
	free(dir);
}
END_TEST

static Suite *loader_suite(void)
{
	Suite *s = suite_create("vmm-loader");
	TCase *tc = tcase_create("elf");

	tcase_add_test(tc, test_parse_vmlinux_like_elf);
	tcase_add_test(tc, test_parse_translates_virtual_entry);
	tcase_add_loop_test(tc, test_parse_rejects_bad_elf, 0,
			    (int) (sizeof(bad_elves) / sizeof(bad_elves[0])));
	tcase_add_test(tc, test_parse_rejects_too_many_segments);
	tcase_add_test(tc, test_check_ram);
	tcase_add_test(tc, test_parse_bzimage);
	tcase_add_test(tc, test_load_maps_text_and_zeroes_bss);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return cctest_run_suite(loader_suite());
}
