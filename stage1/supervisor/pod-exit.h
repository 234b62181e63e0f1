/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The pod's exit status, decided by the supervisor once the VMM has exited (docs/stage1.md,
 * "Exit codes"). Inputs: the VMM's wait status and guest/rkt/cc-pod-exit (written
 * by cc-app-exit in the guest: the first failing app's code, or 0 once every app exited).
 *
 *   cc-pod-exit holds 0..255                 -> that code, whatever the VMM did afterwards
 *                                               (a non-zero VMM outcome is reported as a
 *                                               warning); no status file filled
 *   VMM killed by signal S                   -> 128+S; apps without a status file get 128+S;
 *                                               a crash signal (SIGSYS, SIGSEGV, SIGBUS, SIGILL,
 *                                               SIGFPE, SIGABRT, SIGTRAP) is reported too
 *   VMM exit 128+S, S = SIGTERM or SIGINT     -> 128+S, same as killed by S (cc-vmm turns
 *     (a forwarded or direct stop signal)       those signals into a clean stop and that exit)
 *   anything else (VMM exit 0..127 or another -> 1 with "the VM ended without a pod exit
 *     128+N, or a malformed cc-pod-exit)         status (...)"; status files left absent
 */

#include <stdbool.h>
#include <stddef.h>

#include "manifest/pod-manifest.h"

#define POD_EXIT_NO_STATUS 1
/* cc-pod-exit holds at most "255\n"; the host reads no more than this of the guest's file. */
#define POD_EXIT_SIZE_MAX 16

struct pod_exit {
	int code;	 /* what run exits with, 0..255 */
	int fill_status; /* code for apps without a status file, or -1: leave them */
	bool report;	 /* print "run: <msg>" (error or warning) */
	bool report_is_warning;
	char msg[160];
};

/*
 * Parse the contents of cc-pod-exit: a decimal 0..255, optionally followed by one newline.
 * -EBADMSG otherwise.
 */
int pod_exit_parse(const char *buf, size_t len, int *ret);

/*
 * Decide. vmm_status is a waitpid() status; pod_exit_code is the parsed cc-pod-exit (-1:
 * missing, -2: present but malformed).
 */
void pod_exit_decide(int vmm_status, int pod_exit_code, struct pod_exit *ret);

/*
 * Read guest/rkt/cc-pod-exit under the pod dir pod_fd (beneath.h: no link followed in
 * any component, no FIFO opened, at most POD_EXIT_SIZE_MAX bytes): the code, -1 when missing,
 * -2 when malformed, unreadable or not a regular file.
 */
int pod_exit_read(int pod_fd);

/*
 * Write code to <app> in status_fd (stage1/rootfs/rkt/status, which rkt reads) unless it is
 * there already: a new unnamed file (O_TMPFILE; a ".<app>.cc-tmp" name where the file system
 * has none), published by linkat(), which neither follows nor replaces. -EEXIST only when
 * <app> exists; -EINVAL for an app name that is not one component.
 */
int pod_status_write(int status_fd, const char *app, int code);

/*
 * Write code to stage1/rootfs/rkt/status/<app> (pod_status_write()) for every app of pod that
 * has none. The directory is resolved beneath pod_fd through no link (-ELOOP when a component
 * is one), and no existing name in it is opened. Returns the number written, or the first
 * error (after trying all).
 */
int pod_status_fill(int pod_fd, const struct pod_manifest *pod, int code);

/*
 * What both pod_status_fill() and status_mirror() do: for every app of pod that has no
 * stage1/rootfs/rkt/status/<app> yet, code_for(app) gives its code (or a negative errno: none)
 * and pod_status_write() writes it. Returns how many were written, or the first error.
 */
typedef int (*pod_status_code_fn)(const char *app, void *userdata);
int pod_status_each(int pod_fd, const struct pod_manifest *pod, pod_status_code_fn code_for,
		    void *userdata);
