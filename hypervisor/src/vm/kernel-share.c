/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Kernel pages shared between VMs (cfg.kernel_pages_dir; density/kernel-pages.h).
 *
 * Setup, before the sandbox, takes the host-wide file for this kernel read-only and a channel
 * to its filler: both given (cfg.kernel_pages_ro_fd and _chan_fd, from the stage1), or, given
 * a directory, by opening the file there and starting a filler (cc/kernel-pages-filler.h)
 * itself. Either way the VMM never holds the file open for writing. The guest's init writes
 * the init-start boot marker first thing: by then the kernel has patched its text and finished
 * booting, and no code but the host's kernel and init has run in the guest. That marker arms a
 * timer of the event loop, which pauses the vCPUs, shares the private pages of the kernel's
 * file-mapped ranges (the filler fills the slots never filled), lets the vCPUs go and closes
 * the file and the channel, so that nothing the guest runs later can reach them. Any other marker
 * before that (the guest's init writes systemd-exec before it runs systemd), or no marker within
 * VM_KERNEL_SHARE_DEADLINE_MS, closes the file unshared.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "density/kernel-pages.h"
#include "cc/cleanup.h"
#include "cc/kernel-pages-filler.h"
#include "cc/log.h"
#include "cc/macro.h"
#include "vm/vm-internal.h"

#define VM_KERNEL_SHARE_DEADLINE_MS	 60000u
#define VM_KERNEL_SHARE_PAUSE_TIMEOUT_MS 500u

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
	int r = 0;

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
				"again: %m");
	vm_vcpus_resume(vm);
	if (r < 0)
		log_debug_errno(r, "kernel pages: sharing stopped early: %m");
	log_debug("kernel pages: %" PRIu64 " private, %" PRIu64 " now shared (%" PRIu64
		  " filled their slot), %" PRIu64 " with bytes of their own, %" PRIu64
		  " freed padding, %" PRIu64 " fills refused; vCPUs paused %" PRIu64 " us",
		  st.private_pages, st.shared, st.filled, st.differed, st.padding, st.refused,
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

static void kernel_share_ram_advise(const struct vm *vm, int advice)
{
	for (unsigned i = 0; i < vm->gm.n_regions; i++)
		(void) madvise(vm->gm.regions[i].hva, vm->gm.regions[i].size, advice);
}

/*
 * The file read-only and the channel to its filler: taken over from the config (the stage1's),
 * or, for a directory, the file opened there and a filler of its own started.
 */
static int kernel_share_fds(struct vm *vm, int fd, int *ret_ro, int *ret_chan,
			    struct cc_error *reterr)
{
	char path[PATH_MAX];
	int r;

	if (!vm->cfg.kernel_pages_dir) {
		/* Ours now (closed on error by the caller): kept by the sandbox, and by no
		 * process this one starts. */
		*ret_ro = TAKE_FD(vm->cfg.kernel_pages_ro_fd);
		*ret_chan = TAKE_FD(vm->cfg.kernel_pages_chan_fd);
		if (fcntl(*ret_ro, F_SETFD, FD_CLOEXEC) < 0 ||
		    fcntl(*ret_chan, F_SETFD, FD_CLOEXEC) < 0)
			return cc_error_set_status(reterr, VMM_EXIT_USAGE, errno,
						   "--share-kernel-pages-fd: not open fds: %m");
		return 0;
	}
	r = kernel_pages_file_path(vm->cfg.kernel_pages_dir, fd, path, sizeof(path));
	if (r < 0)
		return cc_error_set_status(reterr, VMM_EXIT_USAGE, r,
					   "--share-kernel-pages: cannot name the file in '%s': %m",
					   vm->cfg.kernel_pages_dir);
	/* The filler is forked from this process, whose guest RAM must not go with it: while the
	 * filler held them, each page the guest wrote before would be copied at its next write
	 * (and the filler never touches guest memory). */
	kernel_share_ram_advise(vm, MADV_DONTFORK);
	r = kernel_pages_filler_spawn(path, fd, KERNEL_PAGES_FILLER_DEADLINE_MS, NULL, ret_ro,
				      ret_chan);
	kernel_share_ram_advise(vm, MADV_DOFORK);
	if (r < 0)
		return cc_error_set_status(reterr, VMM_EXIT_FAILURE, r,
					   "cannot open the shared kernel pages file '%s': %m",
					   path);
	return 0;
}

int vm_kernel_share_setup(struct vm *vm, int fd, struct cc_error *reterr)
{
	_cleanup_close_ int ro = -1, chan = -1;
	struct vm_kernel_share *ks;
	int r;

	if (!vm->cfg.kernel_pages_dir && vm->cfg.kernel_pages_ro_fd < 0)
		return 0;
	if (vm->n_kernel_maps == 0) {
		/* A copied kernel (bzImage): nothing is shared with the file anyway. */
		if (!vm->cfg.kernel_pages_dir) {
			(void) safe_close(TAKE_FD(vm->cfg.kernel_pages_ro_fd));
			(void) safe_close(TAKE_FD(vm->cfg.kernel_pages_chan_fd));
		}
		return 0;
	}
	ks = calloc(1, sizeof(*ks));
	if (!ks)
		return cc_error_set_status(reterr, VMM_EXIT_FAILURE, ENOMEM, "out of memory: %m");
	ks->timer_fd = -1;
	atomic_init(&ks->late, -1);
	vm->kernel_share = ks;
	r = kernel_share_fds(vm, fd, &ro, &chan, reterr);
	if (r < 0)
		return r;
	r = kernel_pages_open(TAKE_FD(ro), TAKE_FD(chan), fd, vm->cfg.ksm, &ks->kp);
	if (r < 0)
		return cc_error_set_status(reterr, VMM_EXIT_FAILURE, r,
					   "cannot use the shared kernel pages file: %m");
	ks->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (ks->timer_fd < 0)
		return cc_error_set_status(reterr, VMM_EXIT_FAILURE, errno,
					   "kernel pages: cannot create a timer: %m");
	r = evloop_timer_once(ks->timer_fd, VM_KERNEL_SHARE_DEADLINE_MS);
	if (r >= 0)
		r = evloop_add(vm->loop, ks->timer_fd, EPOLLIN, kernel_share_cb, vm);
	if (r < 0)
		return cc_error_set_status(reterr, VMM_EXIT_FAILURE, r,
					   "kernel pages: cannot arm the timer: %m");
	vm->markers.notify = kernel_share_marker;
	vm->markers.notify_opaque = ks;
	return 0;
}

void vm_kernel_share_free(struct vm *vm)
{
	struct vm_kernel_share *ks = vm->kernel_share;

	(void) safe_close(TAKE_FD(vm->cfg.kernel_pages_ro_fd));
	(void) safe_close(TAKE_FD(vm->cfg.kernel_pages_chan_fd));
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
