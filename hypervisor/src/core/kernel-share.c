/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Kernel pages shared between VMs (cfg.kernel_pages_dir; balloon/kernel-pages.h).
 *
 * Setup, before the sandbox, opens the host-wide file for this kernel in that directory. The
 * guest's init writes the init-start boot marker first thing: by then the kernel has patched
 * its text and finished booting, and no code but the host's kernel and init has run in the
 * guest. That marker arms a timer of the event loop, which pauses the vCPUs, takes the file's
 * lock (bounded: a stopped VMM holding it must not hang this one), shares the private pages of
 * the kernel's file-mapped ranges, lets the vCPUs go and closes the file, so that nothing the
 * guest runs later can reach it. Any other marker before that (the guest's init writes
 * systemd-exec before it runs systemd), or no marker within VM_KERNEL_SHARE_DEADLINE_MS,
 * closes the file unshared.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "balloon/kernel-pages.h"
#include "cc/cleanup.h"
#include "cc/elf-build-id.h"
#include "cc/log.h"
#include "cc/macro.h"
#include "core/vm-internal.h"

#define VM_KERNEL_SHARE_DEADLINE_MS	 60000u
#define VM_KERNEL_SHARE_PAUSE_TIMEOUT_MS 500u
/* Another VMM's share holds the lock for 15-75 ms here (600 ms for a kernel that patches its
 * SMP alternatives too, in the TCG test host). */
#define VM_KERNEL_SHARE_LOCK_TIMEOUT_MS 3000u

struct vm_kernel_share {
	int timer_fd;
	atomic_bool marked;	 /* the guest wrote init-start */
	atomic_int late;	 /* another marker the guest wrote before the share, or -1 */
	struct kernel_pages *kp; /* NULL once shared or given up */
};

/* On the vCPU thread that wrote the marker: let the event loop do the work. */
static void kernel_share_marker(void *opaque, int code)
{
	struct vm_kernel_share *ks = opaque;
	int none = -1;

	if (code == BOOTMARKER_INIT_START) {
		if (atomic_exchange(&ks->marked, true))
			return;
	} else if (!atomic_compare_exchange_strong(&ks->late, &none, code)) {
		return;
	}
	if (evloop_timer_once(ks->timer_fd, 0) < 0)
		log_debug("kernel pages: cannot arm the timer, the deadline closes the file");
}

/* The segment of the kernel's file-mapped range at gpa (its file pages). */
static const struct kernel_segment *kernel_share_segment(const struct vm *vm, uint64_t gpa)
{
	for (unsigned i = 0; i < vm->kernel.n_segments; i++) {
		const struct kernel_segment *s = &vm->kernel.segments[i];

		if (kernel_segment_mappable(s) && gpa >= s->gpa && gpa - s->gpa < s->filesz)
			return s;
	}
	return NULL;
}

/* vCPUs paused: every file-mapped range of the kernel. */
static int kernel_share_ranges(struct vm *vm, struct kernel_pages *kp,
			       struct kernel_pages_stats *st)
{
	int r;

	r = kernel_pages_lock(kp, VM_KERNEL_SHARE_LOCK_TIMEOUT_MS);
	if (r < 0)
		return r;
	for (unsigned i = 0; r >= 0 && i < vm->n_kernel_maps; i++) {
		const struct memslot_range *m = &vm->kernel_maps[i];
		const struct kernel_segment *s = kernel_share_segment(vm, m->gpa);
		void *hva;

		/* Text and read-only data only: the kernel's data is its own in each VM. */
		if (!s || s->writable)
			continue;
		r = gmem_ptr(&vm->gm, m->gpa, m->size, &hva);
		if (r >= 0)
			r = kernel_pages_share(kp, hva, s->file_off + (m->gpa - s->gpa), m->size,
					       st);
	}
	kernel_pages_unlock(kp);
	return r;
}

/* Pause the vCPUs, share, let them go; log what happened. */
static void kernel_share_now(struct vm *vm, struct kernel_pages *kp)
{
	struct kernel_pages_stats st = {0};
	uint64_t t0 = bootmarker_now_ns();
	int r;

	r = vm_vcpus_pause(vm, VM_KERNEL_SHARE_PAUSE_TIMEOUT_MS);
	if (r < 0) {
		log_debug_errno(r, "kernel pages: the vCPUs did not pause, not shared: %m");
		return;
	}
	r = kernel_share_ranges(vm, kp, &st);
	if (r == -EIO)
		/* Before the vCPUs run again: none may touch the lost page. */
		vm_request_stop(vm, VMM_EXIT_FAILURE, EIO,
				"kernel page sharing lost a page of the kernel it could not map "
				"again");
	vm_vcpus_resume(vm);
	if (r < 0)
		log_debug_errno(r, "kernel pages: sharing stopped early: %m");
	log_debug("kernel pages: %" PRIu64 " private, %" PRIu64 " now shared (%" PRIu64
		  " filled their slot), %" PRIu64 " with bytes of their own, %" PRIu64
		  " freed padding; vCPUs paused %" PRIu64 " us",
		  st.private_pages, st.shared, st.filled, st.differed, st.padding,
		  (bootmarker_now_ns() - t0) / 1000u);
}

static void kernel_share_cb(void *userdata, uint32_t events)
{
	struct vm *vm = userdata;
	struct vm_kernel_share *ks = vm->kernel_share;
	uint64_t expirations;
	int late;

	(void) events;
	if (read(ks->timer_fd, &expirations, sizeof(expirations)) != sizeof(expirations) || !ks->kp)
		return;
	late = atomic_load(&ks->late);
	if (late >= 0)
		/* The guest may be past its init: too late to hold the file open for a share. */
		log_debug("kernel pages: boot marker %d came before the share, not shared", late);
	else if (atomic_load(&ks->marked))
		kernel_share_now(vm, ks->kp);
	else
		log_debug("kernel pages: no init-start marker within %u s, not shared",
			  VM_KERNEL_SHARE_DEADLINE_MS / 1000);
	/* Whatever happened, the file is closed now (after a share: before the guest runs a
	 * process of its own). */
	kernel_pages_free(TAKE_PTR(ks->kp));
}

int vm_kernel_share_setup(struct vm *vm, int fd, const struct stat *st, struct vm_error *reterr)
{
	char path[PATH_MAX], id[2 * ELF_BUILD_ID_MAX + 1];
	struct vm_kernel_share *ks;
	int r;

	if (!vm->cfg.kernel_pages_dir)
		return 0;
	if (vm->n_kernel_maps == 0)
		return 0; /* a copied kernel (bzImage): nothing is shared with the file anyway */
	/* One file per kernel build: its build ID and size name it (a stripped copy of a
	 * kernel keeps the ID, and the slots are laid out by the file's size), or (a kernel
	 * without an ID) its size and modification time. */
	if (elf_file_build_id(fd, id, sizeof(id)) >= 0)
		r = snprintf(path, sizeof(path), "%s/vmlinux-%s-%llu", vm->cfg.kernel_pages_dir, id,
			     (unsigned long long) st->st_size);
	else
		r = snprintf(path, sizeof(path), "%s/vmlinux-%llu-%lld.%09ld",
			     vm->cfg.kernel_pages_dir, (unsigned long long) st->st_size,
			     (long long) st->st_mtim.tv_sec, st->st_mtim.tv_nsec);
	if (r < 0 || (size_t) r >= sizeof(path))
		return vm_error_set(reterr, VMM_EXIT_USAGE, 0,
				    "--share-kernel-pages: directory name too long");
	ks = calloc(1, sizeof(*ks));
	if (!ks)
		return vm_error_set(reterr, VMM_EXIT_FAILURE, ENOMEM, "out of memory");
	ks->timer_fd = -1;
	atomic_init(&ks->late, -1);
	vm->kernel_share = ks;
	r = kernel_pages_open(path, fd, vm->cfg.ksm, &ks->kp);
	if (r < 0)
		return vm_error_set(reterr, VMM_EXIT_FAILURE, r,
				    "cannot open the shared kernel pages file '%s'", path);
	ks->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (ks->timer_fd < 0)
		return vm_error_set(reterr, VMM_EXIT_FAILURE, errno,
				    "kernel pages: cannot create a timer");
	r = evloop_timer_once(ks->timer_fd, VM_KERNEL_SHARE_DEADLINE_MS);
	if (r >= 0)
		r = evloop_add(vm->loop, ks->timer_fd, EPOLLIN, kernel_share_cb, vm);
	if (r < 0)
		return vm_error_set(reterr, VMM_EXIT_FAILURE, r,
				    "kernel pages: cannot arm the timer");
	vm->markers.notify = kernel_share_marker;
	vm->markers.notify_opaque = ks;
	return 0;
}

void vm_kernel_share_free(struct vm *vm)
{
	struct vm_kernel_share *ks = vm->kernel_share;

	if (!ks)
		return;
	vm->markers.notify = NULL;
	if (ks->timer_fd >= 0 && vm->loop)
		(void) evloop_remove(vm->loop, ks->timer_fd);
	(void) safe_close(ks->timer_fd);
	kernel_pages_free(ks->kp);
	free(ks);
	vm->kernel_share = NULL;
}
