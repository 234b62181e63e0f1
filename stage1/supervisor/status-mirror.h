/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The apps' exit codes, from the guest's files to rkt's (docs/stage1.md, "Exit codes").
 *
 * cc-app-exit in the guest writes /rkt/status/<app>: guest/rkt/status/<app> on
 * the host (the cc-rkt share). rkt reads stage1/rootfs/rkt/status/<app> as root with a plain
 * open and read-all (no O_NOFOLLOW, no O_NONBLOCK, no size cap), so only run writes there:
 * status_mirror() reads each app's guest file beneath the pod dir through no link, only if it
 * is a regular file of at most POD_EXIT_SIZE_MAX bytes, parses it as pod_exit_parse() does
 * (0..255) and writes the code with pod_status_write(). A FIFO, link, device, directory,
 * bigger file or anything not a code is left where it is: that app has no code yet.
 * run calls it every STATUS_MIRROR_TICK_MS while the VMM runs and once after it exits.
 */

#include "manifest/pod-manifest.h"

#define STATUS_MIRROR_TICK_MS 500

/*
 * Copy the code of every app of pod that has none in rkt/status yet and a valid one in the
 * guest's. Returns the number copied, or the first error writing rkt/status (after trying all).
 */
int status_mirror(int pod_fd, const struct pod_manifest *pod);
