/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cc-init: the guest's first process (kernel command line `init=/sbin/cc-init`).
 *
 * Mounts /proc, /sys and /dev, writes the init-start marker, joins the read-only base root,
 * the pod layer (cc.pod=<9p tag>) and a tmpfs upper layer with overlayfs, mounts the
 * cc.mount=<tag>:<path> shares inside it, pivots into the result, writes the systemd-exec marker
 * and execs systemd. Any failure ends the boot with a message on the console (init exiting makes
 * the kernel panic): a pod never runs on a half-assembled root.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "cc/log.h"
#include "cmdline.h"
#include "marker.h"
#include "readahead.h"
#include "root.h"

#define INIT_SYSTEMD "/lib/systemd/systemd"
#define INIT_SCRATCH "/run"

static void init_marker(uint8_t code, bool console)
{
	int r = marker_emit(code, console);

	/* A missing marker costs a measurement, not the boot. */
	if (r < 0)
		log_warning_errno(r, "Failed to write boot marker 0x%02x: %m", code);
}

/*
 * Free page reporting (virtio-balloon, `cc-vmm --balloon`) reports free blocks of 2^order
 * pages. Linux 6.1's default, the pageblock order (4 MiB here), leaves freed memory smaller
 * than that in the VM; order 5 (128 KiB) gave back all of a large free (docs/vmm.md). Order 0
 * (every free page): an idle pod's guest frees single pages that it had written (SLOB gives
 * each empty slab page back alone; cc-reclaim.service drops the boot caches page by page), and
 * at order 1 the host kept 0.3-0.6 MB of them per pod (docs/benchmarks.md). Reports come at
 * most every 2 s (the reporting worker's delay), a page on a per-CPU free list is not seen
 * until the list drains, and a reported page is reported again only once it has been used and
 * freed again. Guest RAM is never on huge pages (cc-vmm --hugepages off), so small discards
 * split nothing on the host. The boot parameter is overwritten when the driver registers, so
 * it is set here, once the built-in driver is up. Without the balloon there is no such file.
 */
#define INIT_PAGE_REPORTING_ORDER_PATH "/sys/module/page_reporting/parameters/page_reporting_order"
#define INIT_PAGE_REPORTING_ORDER      "0"

static void init_tune_page_reporting(void)
{
	int r = write_string_file(INIT_PAGE_REPORTING_ORDER_PATH, INIT_PAGE_REPORTING_ORDER);

	if (r < 0 && r != -ENOENT)
		log_warning_errno(r, "Failed to set the page reporting order: %m");
}

/*
 * The 9p shares' readahead. v9fs sets a share's readahead window to its msize (500 KiB for
 * the cc.mount shares), and with cache=mmap every page fault on a mapped file (an app's
 * executable and libraries, the journal journald maps) reads that much around the fault into
 * the guest's page cache, where the kernel's fault-around then maps it into the process, so
 * that dropping caches cannot take it back. What one idle pod held (docs/benchmarks.md, "Pod
 * density"), test app binary and journal file, in 4 KiB pages:
 *   64 KiB 202 and 64; 16 KiB 120 and 48; none 73 and 41 (the journal 124 with the msize).
 * 16 KiB keeps most of the saving while a fault still fetches four pages in one round trip
 * to the host: an app that touches its binary densely starts with a quarter of the faults
 * that no readahead would cost it.
 * read() and write() on a cache=mmap share go to the host directly and do not read ahead;
 * the read-only pod layer (cache=loose) holds small files.
 */
#define INIT_BDI_DIR	      "/sys/class/bdi"
#define INIT_9P_READAHEAD_KIB 16

static void init_tune_9p_readahead(void)
{
	int r = readahead_set(INIT_BDI_DIR, "9p-", INIT_9P_READAHEAD_KIB);

	if (r < 0)
		log_warning_errno(r, "Failed to set the readahead of the 9p shares: %m");
}

static int init_exec_systemd(int argc, char **argv)
{
	_cleanup_free_ char **args = NULL;

	/* Arguments the kernel passed to init (e.g. "single") go on to systemd. */
	args = calloc((size_t) argc + 1, sizeof(char *));
	if (!args)
		return log_oom();
	args[0] = (char *) INIT_SYSTEMD;
	for (int i = 1; i < argc; i++)
		args[i] = argv[i];
	execv(INIT_SYSTEMD, args);
	return log_error_errno(errno, "Failed to execute %s: %m", INIT_SYSTEMD);
}

int main(int argc, char **argv)
{
	_cleanup_free_ char *cmdline = NULL, *root = NULL;
	struct cmdline_options opts = {};
	struct root_layout layout;
	int r;

	log_set_prefix("cc-init");
	umask(0022);
	if (getpid() != 1) {
		log_error("Must run as the init process (PID 1).");
		return EXIT_FAILURE;
	}

	r = root_mount_api();
	if (r < 0)
		return EXIT_FAILURE;
	r = read_full_file("/proc/cmdline", CMDLINE_MAX, &cmdline, NULL);
	if (r < 0) {
		log_error_errno(r, "Failed to read /proc/cmdline: %m");
		return EXIT_FAILURE;
	}
	r = cmdline_options_parse(cmdline, &opts);
	if (r < 0) {
		log_error_errno(r, "Invalid cc.* option on the kernel command line: %m");
		return EXIT_FAILURE;
	}
	init_marker(MARKER_INIT_START, opts.markers_console);
	init_tune_page_reporting();

	layout = (struct root_layout){
		.scratch = INIT_SCRATCH,
		.base = "/",
		.pod_tag = opts.pod_tag,
		.mounts = opts.mounts,
		.n_mounts = opts.n_mounts,
	};
	r = root_assemble(&layout, &root);
	if (r >= 0) {
		init_tune_9p_readahead();
		r = root_switch(root);
	}
	if (r < 0)
		return EXIT_FAILURE;

	init_marker(MARKER_SYSTEMD_EXEC, opts.markers_console);
	cmdline_options_done(&opts);
	(void) init_exec_systemd(argc, argv);
	return EXIT_FAILURE;
}
