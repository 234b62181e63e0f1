/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A guest without SMAP must not run the clac and stac the build wrote into the kernel's text
 * ahead of boot (loader/altinstr.h): its entry code would fault on the first one before the
 * kernel has applied its alternatives. For such a guest the VMM writes the NOPs back into its
 * own copy of those pages; a guest with SMAP gets the file's pages untouched.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "cc/log.h"
#include "cc/macro.h"
#include "vm/kernel-smap.h"
#include "vm/vm-internal.h"
#include "loader/altinstr.h"

#define CPUID_7_EBX_SMAP (1u << 20)

struct kernel_smap_undo {
	const uint8_t *file;
	const struct kernel_image *img;
	const struct gmem *gm;
	unsigned n_written;
};

static int vm_guest_has_smap(const struct vm *vm)
{
	for (uint32_t i = 0; i < vm->cpuid->nent; i++) {
		const struct kvm_cpuid_entry2 *e = &vm->cpuid->entries[i];

		if (e->function == 7 && e->index == 0)
			return !!(e->ebx & CPUID_7_EBX_SMAP);
	}
	return 0;
}

static int kernel_smap_undo_site(const struct altinstr_site *site, void *userdata)
{
	struct kernel_smap_undo *u = userdata;
	uint8_t nops[16];
	uint64_t gpa;
	int r;

	if (!altinstr_site_is_smap(site) || memcmp(u->file + site->file_off, site->repl, site->len))
		return 0;
	r = kernel_gpa_of(u->img, site->file_off, site->len, &gpa);
	if (r < 0)
		return r;
	memset(nops, ALTINSTR_NOP, sizeof(nops));
	r = gmem_write(u->gm, gpa, nops, MIN(site->len, sizeof(nops)));
	if (r < 0)
		return r;
	u->n_written++;
	return 0;
}

int kernel_smap_undo(const uint8_t *file, size_t len, const struct kernel_image *img,
		     const struct gmem *gm, unsigned *ret_n, const char **reterr_msg)
{
	struct kernel_smap_undo u = {.file = file, .img = img, .gm = gm};
	int r;

	assert_return(file && img && gm && ret_n, -EINVAL);
	r = altinstr_for_each(file, len, kernel_smap_undo_site, &u, reterr_msg);
	if (r < 0)
		return r;
	*ret_n = u.n_written;
	return 0;
}

int vm_kernel_smap_fixup(struct vm *vm, int fd, uint64_t file_size, struct cc_error *reterr)
{
	const char *msg = NULL;
	unsigned n = 0;
	void *p;
	int r;

	if (vm->kernel.kind != KERNEL_ELF64 || vm_guest_has_smap(vm) || file_size == 0)
		return 0;
	p = mmap(NULL, file_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return cc_error_set_status(reterr, VMM_EXIT_BAD_KERNEL, errno,
					   "cannot map kernel '%s': %m", vm->cfg.kernel_path);
	r = kernel_smap_undo(p, file_size, &vm->kernel, &vm->gm, &n, &msg);
	(void) munmap(p, file_size);
	if (r == -ENOEXEC)
		return cc_error_set_status(reterr, VMM_EXIT_BAD_KERNEL, EINVAL,
					   "bad kernel '%s': %s", vm->cfg.kernel_path, msg);
	if (r < 0)
		return cc_error_set_status(reterr, VMM_EXIT_BAD_KERNEL, r,
					   "cannot undo the kernel's pre-written SMAP sites: %m");
	if (n)
		log_info("no SMAP in the guest: %u pre-written clac/stac sites back to NOPs", n);
	return 0;
}
