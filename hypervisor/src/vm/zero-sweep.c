/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The zero-page sweep (cfg.zero_sweep): on a timer of the event loop, pause the vCPUs, hand
 * the resident all-zero pages of guest RAM to MADV_DONTNEED (density/zero-pages.h), resume.
 *
 * An idle pod's guest has about 1.3 MB of them (docs/vmm.md, "The zero sweep"): most likely
 * tables sized at boot and barely filled, the unused depths of zeroed kernel stacks, slabs
 * and buffers cleared at allocation. Free page reporting cannot return them: they are in
 * use. Where the guest writes one again, the host gives it a fresh
 * zeroed page on that write.
 *
 * The kernel's segments mapped from the vmlinux file are left out (a discard there would
 * bring the file's bytes back), and so is pmem. Only with --hugepages off: a 4 KiB discard
 * would split a huge page (and khugepaged could collapse it again). The schedule: the first sweep 2
 * s after the start, then at intervals that double up to 10 minutes, when the guest has settled and
 * rarely makes new ones; or a fixed interval (tests, tuning). A sweep reads the guest's
 * resident pages once, in slices of 64 MiB of them with the vCPUs stopped and 10 ms of guest
 * time between slices, so that a large VM's guest never stops for long.
 *
 * With cfg.merge_pages the same slices also merge the pages whose bytes repeat many times
 * within the VM onto one copy each (density/same-pages.h), and look again at the merged pages
 * the guest has written since.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "density/same-pages.h"
#include "density/zero-pages.h"
#include "cc/cleanup.h"
#include "cc/log.h"
#include "cc/macro.h"
#include "vm/vm-internal.h"

#define ZERO_SWEEP_PAUSE_TIMEOUT_MS 500u
/* Resident pages looked at per pause (64 MiB: some milliseconds; and at most 16 times as many
 * pages of address space asked about), and the guest's time between two slices of a sweep. */
#define ZERO_SWEEP_SLICE_PAGES	16384u
#define ZERO_SWEEP_SLICE_GAP_MS 10u
/* With merging, every page that is not zero is also hashed (~0.7 us a page here): a quarter of
 * the pages per pause keeps each pause as short (a few milliseconds). */
#define ZERO_SWEEP_MERGE_SLICE_PAGES (ZERO_SWEEP_SLICE_PAGES / 4)

struct vm_zero_sweep {
	int timer_fd;
	unsigned next_ms; /* the interval after the sweep under way */
	unsigned n;	  /* sweeps done */
	uint64_t given_back_pages;
	struct balloon_map map;	  /* RAM without the kernel's file-mapped segments */
	struct same_pages *merge; /* cfg.merge_pages; NULL when off */

	/* The sweep under way, slice by slice. */
	struct zero_sweep_cursor cursor;
	struct zero_sweep_result sum;
	uint64_t failed;
	uint64_t paused_us, max_pause_us;
	unsigned slices;
};

static int zero_sweep_discard(void *hva, size_t len, void *opaque)
{
	(void) opaque;
	return madvise(hva, len, MADV_DONTNEED) < 0 ? -errno : 0;
}

/* Forget the sweep under way (its figures; the cursor is the caller's). */
static void zero_sweep_reset(struct vm_zero_sweep *zs)
{
	zs->sum = (struct zero_sweep_result){0};
	zs->failed = zs->paused_us = zs->max_pause_us = 0;
	zs->slices = 0;
}

static void zero_sweep_finish(struct vm_zero_sweep *zs)
{
	zs->n++;
	zs->given_back_pages += zs->sum.given_back_pages;
	if (zs->failed)
		log_debug("zero sweep %u: %llu discards failed", zs->n,
			  (unsigned long long) zs->failed);
	log_debug("zero sweep %u: %llu of %llu resident pages zero, %llu KiB discarded "
		  "(%llu KiB in all); vCPUs paused %llu us in %u slices (longest %llu us)",
		  zs->n, (unsigned long long) zs->sum.zero_pages,
		  (unsigned long long) zs->sum.resident_pages,
		  (unsigned long long) (zs->sum.given_back_pages * BALLOON_PAGE_SIZE >> 10),
		  (unsigned long long) (zs->given_back_pages * BALLOON_PAGE_SIZE >> 10),
		  (unsigned long long) zs->paused_us, zs->slices,
		  (unsigned long long) zs->max_pause_us);
	if (zs->merge) {
		struct same_pages_stats st;

		same_pages_get_stats(zs->merge, &st);
		log_debug(
			"zero sweep %u: %llu pages merged (%llu merged now, onto %u patterns; %llu "
			"merges failed)",
			zs->n, (unsigned long long) zs->sum.merged_pages,
			(unsigned long long) st.merged_pages, st.patterns,
			(unsigned long long) st.failed);
	}
	zero_sweep_reset(zs);
}

/* One slice of the sweep under way: 1 when the sweep is done, 0 when more is left, -errno. */
static int zero_sweep_slice(struct vm *vm, struct vm_zero_sweep *zs)
{
	struct balloon_sink sink = {.discard = zero_sweep_discard};
	struct zero_sweep_result res;
	uint64_t t0, t1;
	int r;

	t0 = bootmarker_now_ns() / 1000u;
	r = vm_vcpus_pause(vm, ZERO_SWEEP_PAUSE_TIMEOUT_MS);
	if (r < 0)
		return log_debug_errno(r, "zero sweep: the vCPUs did not pause, skipped: %m");
	r = zero_pages_sweep(&zs->map, &zs->cursor,
			     zs->merge ? ZERO_SWEEP_MERGE_SLICE_PAGES : ZERO_SWEEP_SLICE_PAGES,
			     &sink, zs->merge, &res);
	if (res.page_lost) {
		/* Before the vCPUs run again: none may touch the lost page. */
		vm_request_stop(vm, VMM_EXIT_FAILURE, -r,
				"page merging lost a guest RAM page it could not map again: %m");
		vm_vcpus_resume(vm);
		return r;
	}
	vm_vcpus_resume(vm);
	t1 = bootmarker_now_ns() / 1000u;
	zs->sum.scanned_pages += res.scanned_pages;
	zs->sum.resident_pages += res.resident_pages;
	zs->sum.zero_pages += res.zero_pages;
	zs->sum.given_back_pages += res.given_back_pages;
	zs->sum.merged_pages += res.merged_pages;
	zs->failed += sink.failed;
	zs->paused_us += t1 - t0;
	zs->max_pause_us = MAX(zs->max_pause_us, t1 - t0);
	zs->slices++;
	if (r < 0)
		return log_debug_errno(r, "zero sweep: cannot read guest RAM residency: %m");
	return r;
}

static void zero_sweep_cb(void *userdata, uint32_t events)
{
	struct vm *vm = userdata;
	struct vm_zero_sweep *zs = vm->zero_sweep;
	uint64_t expirations;
	unsigned ms;
	int r;

	(void) events;
	if (read(zs->timer_fd, &expirations, sizeof(expirations)) != sizeof(expirations))
		return;
	r = zero_sweep_slice(vm, zs);
	if (r == 0) {
		ms = ZERO_SWEEP_SLICE_GAP_MS;
	} else {
		/* Done; or given up (a pause that timed out, a failed mincore: logged), and the
		 * next sweep starts over at the next interval. */
		zs->cursor = (struct zero_sweep_cursor){0};
		if (r > 0)
			zero_sweep_finish(zs);
		else
			zero_sweep_reset(zs);
		ms = zs->next_ms;
		if (!vm->cfg.zero_sweep_ms)
			zs->next_ms =
				ms >= VM_ZERO_SWEEP_MAX_MS / 2 ? VM_ZERO_SWEEP_MAX_MS : ms * 2;
	}
	r = evloop_timer_once(zs->timer_fd, ms);
	if (r < 0)
		log_debug_errno(r, "zero sweep: cannot re-arm the timer, no more sweeps: %m");
}

int vm_zero_sweep_setup(struct vm *vm, struct cc_error *reterr)
{
	struct vm_zero_sweep *zs;
	unsigned first;
	int r;

	if (vm->cfg.merge_pages && !vm->cfg.zero_sweep)
		return cc_error_set_status(
			reterr, VMM_EXIT_USAGE, EINVAL,
			"--merge-pages runs in the zero sweep: it needs --zero-sweep");
	if (!vm->cfg.zero_sweep)
		return 0;
	if (vm->cfg.hugepages != VM_HUGEPAGES_OFF)
		return cc_error_set_status(
			reterr, VMM_EXIT_USAGE, EINVAL,
			"--zero-sweep would split huge pages: it needs --hugepages off");
	zs = calloc(1, sizeof(*zs));
	if (!zs)
		return cc_error_set_status(reterr, VMM_EXIT_FAILURE, ENOMEM, "out of memory: %m");
	zs->timer_fd = -1;
	vm->zero_sweep = zs;
	r = vm_ram_map(vm, true, &zs->map);
	if (r < 0)
		return cc_error_set_status(reterr, VMM_EXIT_FAILURE, r,
					   "zero sweep: cannot map guest RAM: %m");
	if (vm->cfg.merge_pages) {
		r = same_pages_new(vm->ram_hva, vm->ram_map_size, VM_MERGE_MAX_PAGES, vm->cfg.ksm,
				   &zs->merge);
		if (r < 0)
			return cc_error_set_status(reterr, VMM_EXIT_FAILURE, r,
						   "page merging: cannot set up its patterns: %m");
	}
	zs->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (zs->timer_fd < 0)
		return cc_error_set_status(reterr, VMM_EXIT_FAILURE, errno,
					   "zero sweep: cannot create its timer: %m");
	first = vm->cfg.zero_sweep_ms ? vm->cfg.zero_sweep_ms : VM_ZERO_SWEEP_FIRST_MS;
	zs->next_ms = vm->cfg.zero_sweep_ms ? vm->cfg.zero_sweep_ms : first * 2;
	r = evloop_timer_once(zs->timer_fd, first);
	if (r >= 0)
		r = evloop_add(vm->loop, zs->timer_fd, EPOLLIN, zero_sweep_cb, vm);
	if (r < 0)
		return cc_error_set_status(reterr, VMM_EXIT_FAILURE, r,
					   "zero sweep: cannot arm its timer: %m");
	return 0;
}

void vm_zero_sweep_free(struct vm *vm)
{
	struct vm_zero_sweep *zs = vm->zero_sweep;

	if (!zs)
		return;
	if (zs->timer_fd >= 0 && vm->loop)
		(void) evloop_remove(vm->loop, zs->timer_fd);
	(void) safe_close(zs->timer_fd);
	same_pages_free(zs->merge);
	free(zs);
	vm->zero_sweep = NULL;
}
