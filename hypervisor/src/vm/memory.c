/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch/layout.h"
#include "density/balloon-map.h"
#include "cc/cleanup.h"
#include "vm/memslot.h"
#include "vm/vm-internal.h"

#define PAGE_SIZE 4096ull

int vm_memslot_add(struct vm *vm, uint64_t gpa, uint64_t size, void *hva, bool readonly)
{
	struct kvm_userspace_memory_region region = {
		.slot = vm->n_memslots,
		.flags = readonly ? KVM_MEM_READONLY : 0,
		.guest_phys_addr = gpa,
		.memory_size = size,
		.userspace_addr = (uint64_t) (uintptr_t) hva,
	};
	int r;

	if (vm->n_memslots >= VM_MAX_MEMSLOTS)
		return -ENOSPC;
	r = vm_kvm_ioctl(vm->vm_fd, KVM_SET_USER_MEMORY_REGION, &region);
	if (r < 0)
		return r;
	vm->n_memslots++;
	return 0;
}

static void vm_ram_advise(struct vm *vm)
{
	/* Advice is an optimisation: a kernel without KSM or THP still runs the VM. */
	if (vm->cfg.ksm)
		(void) madvise(vm->ram_hva, vm->ram_map_size, MADV_MERGEABLE);
	if (vm->cfg.hugepages == VM_HUGEPAGES_ON)
		(void) madvise(vm->ram_hva, vm->ram_map_size, MADV_HUGEPAGE);
	else if (vm->cfg.hugepages == VM_HUGEPAGES_OFF)
		(void) madvise(vm->ram_hva, vm->ram_map_size, MADV_NOHUGEPAGE);
}

int vm_memory_setup(struct vm *vm, struct cc_error *reterr)
{
	uint64_t mem = vm->cfg.mem_mib << 20;
	void *p;
	int r;

	vm->low_size = MIN(mem, LAYOUT_MMIO_HOLE_GPA);
	vm->high_size = mem - vm->low_size;
	vm->ram_map_size = mem;
	/* Lazily faulted: nothing is resident until the guest touches it. */
	p = mmap(NULL, mem, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
		 0);
	if (p == MAP_FAILED)
		return cc_error_set_status(reterr, VMM_EXIT_FAILURE, errno,
					   "cannot reserve %llu MiB of guest RAM: %m",
					   (unsigned long long) vm->cfg.mem_mib);
	vm->ram_hva = p;
	vm_ram_advise(vm);
	r = gmem_add_region(&vm->gm, 0, vm->low_size, vm->ram_hva, 0);
	if (r >= 0 && vm->high_size > 0)
		r = gmem_add_region(&vm->gm, LAYOUT_4G, vm->high_size,
				    (uint8_t *) vm->ram_hva + vm->low_size, 0);
	if (r < 0)
		return cc_error_set_status(reterr, VMM_EXIT_FAILURE, r,
					   "cannot register guest RAM: %m");
	return 0;
}

static int vm_ram_slots_add(struct vm *vm, uint64_t gpa, uint64_t size, void *hva,
			    const struct memslot_range *holes, unsigned n_holes)
{
	struct memslot_range parts[VM_MAX_MEMSLOTS];
	int n, r;

	n = memslot_split(gpa, size, holes, n_holes, parts, VM_MAX_MEMSLOTS);
	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		r = vm_memslot_add(vm, parts[i].gpa, parts[i].size,
				   (uint8_t *) hva + (parts[i].gpa - gpa), false);
		if (r < 0)
			return r;
	}
	return 0;
}

static int vm_kernel_read(struct vm *vm, int fd, uint64_t file_size, struct cc_error *reterr)
{
	_cleanup_free_ uint8_t *buf = NULL;
	const char *msg = NULL;
	ssize_t n;
	int r;

	buf = malloc(KERNEL_HEADER_READ);
	if (!buf)
		return cc_error_set_status(reterr, VMM_EXIT_FAILURE, ENOMEM, "out of memory: %m");
	n = pread(fd, buf, KERNEL_HEADER_READ, 0);
	if (n < 0)
		return cc_error_set_status(reterr, VMM_EXIT_BAD_KERNEL, errno,
					   "cannot read kernel '%s': %m", vm->cfg.kernel_path);
	r = kernel_parse(buf, (size_t) n, file_size, &vm->kernel, &msg);
	if (r < 0)
		return cc_error_set_status(reterr, VMM_EXIT_BAD_KERNEL, EINVAL,
					   "bad kernel '%s': %s", vm->cfg.kernel_path, msg);
	return 0;
}

int vm_kernel_setup(struct vm *vm, struct cc_error *reterr)
{
	struct kernel_ram ram[2], mapped[KERNEL_MAX_SEGMENTS];
	struct memslot_range holes[KERNEL_MAX_SEGMENTS];
	unsigned n_ram = 1, n_mapped = 0;
	_cleanup_close_ int fd = -1;
	const char *msg = NULL;
	struct stat st;
	int r;

	fd = open(vm->cfg.kernel_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0)
		return cc_error_set_status(reterr, VMM_EXIT_BAD_KERNEL, errno,
					   "cannot open kernel '%s': %m", vm->cfg.kernel_path);
	if (!S_ISREG(st.st_mode))
		return cc_error_set_status(reterr, VMM_EXIT_BAD_KERNEL, EINVAL,
					   "bad kernel '%s': not a regular file",
					   vm->cfg.kernel_path);
	r = vm_kernel_read(vm, fd, (uint64_t) st.st_size, reterr);
	if (r < 0)
		return r;
	ram[0] = (struct kernel_ram){.gpa = 0, .size = vm->low_size, .hva = vm->ram_hva};
	if (vm->high_size > 0)
		ram[n_ram++] = (struct kernel_ram){
			.gpa = LAYOUT_4G,
			.size = vm->high_size,
			.hva = (uint8_t *) vm->ram_hva + vm->low_size,
		};
	r = kernel_check_ram(&vm->kernel, ram, n_ram, &msg);
	if (r < 0)
		return cc_error_set_status(reterr, VMM_EXIT_BAD_KERNEL, EINVAL,
					   "bad kernel '%s': %s", vm->cfg.kernel_path, msg);
	r = kernel_load(fd, &vm->kernel, ram, n_ram, mapped, &n_mapped);
	if (r < 0)
		return cc_error_set_status(reterr, VMM_EXIT_BAD_KERNEL, r,
					   "cannot load kernel '%s': %m", vm->cfg.kernel_path);
	r = vm_kernel_smap_fixup(vm, fd, (uint64_t) st.st_size, reterr);
	if (r < 0)
		return r;
	/* The mapped kernel ranges get memslots of their own; RAM gets the rest. */
	for (unsigned i = 0; i < n_mapped; i++) {
		/* A new mapping over RAM: it lost RAM's advice. Its pages the guest writes (text
		 * patched at boot, data) are anonymous copies, the same in every VM of this kernel:
		 * KSM can merge those too. */
		if (vm->cfg.ksm)
			(void) madvise(mapped[i].hva, mapped[i].size, MADV_MERGEABLE);
		holes[i] = (struct memslot_range){.gpa = mapped[i].gpa, .size = mapped[i].size};
		vm->kernel_maps[vm->n_kernel_maps++] = holes[i];
		r = vm_memslot_add(vm, mapped[i].gpa, mapped[i].size, mapped[i].hva, false);
		if (r < 0)
			goto fail;
	}
	for (unsigned i = 0; i < n_ram; i++) {
		r = vm_ram_slots_add(vm, ram[i].gpa, ram[i].size, ram[i].hva, holes, n_mapped);
		if (r < 0)
			goto fail;
	}
	return vm_kernel_share_setup(vm, fd, reterr);
fail:
	return cc_error_set_status(reterr, VMM_EXIT_KVM_ERROR, r,
				   "KVM_SET_USER_MEMORY_REGION failed: %m");
}

int vm_ram_map(const struct vm *vm, bool without_kernel, struct balloon_map *ret)
{
	int r;

	balloon_map_init(ret);
	r = balloon_map_add(ret, 0, vm->low_size, vm->ram_hva);
	if (r >= 0 && vm->high_size > 0)
		r = balloon_map_add(ret, LAYOUT_4G, vm->high_size,
				    (uint8_t *) vm->ram_hva + vm->low_size);
	for (unsigned i = 0; r >= 0 && without_kernel && i < vm->n_kernel_maps; i++)
		r = balloon_map_remove(ret, vm->kernel_maps[i].gpa, vm->kernel_maps[i].size);
	return r;
}

int vm_pmem_setup(struct vm *vm, struct cc_error *reterr)
{
	const char *path = vm->cfg.pmem_path;
	_cleanup_close_ int fd = -1;
	uint64_t ram_top, file_map;
	bool ro_slot = !vm->cfg.pmem_rw;
	struct stat st;
	void *p;
	int r;

	if (!path)
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0)
		return cc_error_set_status(reterr, VMM_EXIT_BAD_IMAGE, errno,
					   "cannot open pmem image '%s': %m", path);
	if (!S_ISREG(st.st_mode) || st.st_size <= 0)
		return cc_error_set_status(reterr, VMM_EXIT_BAD_IMAGE, EINVAL,
					   "pmem image '%s' is not a non-empty regular file", path);
	file_map = ALIGN_UP((uint64_t) st.st_size, PAGE_SIZE);
	vm->pmem_size = ALIGN_UP((uint64_t) st.st_size, LAYOUT_PMEM_SIZE_ALIGN);
	ram_top = vm->high_size ? LAYOUT_4G + vm->high_size : LAYOUT_4G;
	vm->pmem_gpa = ALIGN_UP(ram_top, LAYOUT_PMEM_ALIGN);
	/* Anonymous for the tail up to the next 2 MiB boundary, the file (private: writes never
	 * reach it) over the rest. */
	p = mmap(NULL, vm->pmem_size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return cc_error_set_status(reterr, VMM_EXIT_FAILURE, errno,
					   "cannot map pmem image: %m");
	vm->pmem_hva = p;
	if (mmap(p, file_map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED)
		return cc_error_set_status(reterr, VMM_EXIT_BAD_IMAGE, errno,
					   "cannot map pmem image '%s': %m", path);
	if (ro_slot && vm_kvm_ioctl(vm->kvm_fd, KVM_CHECK_EXTENSION,
				    (void *) (long) KVM_CAP_READONLY_MEM) <= 0)
		ro_slot = false; /* still private: the file stays untouched */
	r = gmem_add_region(&vm->gm, vm->pmem_gpa, vm->pmem_size, p, ro_slot ? GMEM_READONLY : 0);
	if (r < 0)
		return cc_error_set_status(reterr, VMM_EXIT_FAILURE, r, "cannot register pmem: %m");
	r = vm_memslot_add(vm, vm->pmem_gpa, vm->pmem_size, p, ro_slot);
	if (r < 0)
		return cc_error_set_status(reterr, VMM_EXIT_KVM_ERROR, r,
					   "cannot add the pmem memslot: %m");
	return 0;
}

void vm_memory_free(struct vm *vm)
{
	if (vm->ram_hva)
		(void) munmap(vm->ram_hva, vm->ram_map_size);
	if (vm->pmem_hva)
		(void) munmap(vm->pmem_hva, vm->pmem_size);
	vm->ram_hva = vm->pmem_hva = NULL;
}
