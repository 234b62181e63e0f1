/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

#include <linux/filter.h>
#include <seccomp.h>

#include "cc/cleanup.h"
#include "sandbox/sandbox.h"

static inline void seccomp_releasep(scmp_filter_ctx *ctx)
{
	if (*ctx)
		seccomp_release(*ctx);
}

/*
 * A libseccomp filter for one thread kind, from its table (sandbox-rules.c): every row an
 * ALLOW rule, the default action KILL_PROCESS or LOG, TSYNC off. Nothing is loaded.
 */
int sandbox_filter_new(enum sandbox_thread kind, enum sandbox_action action, scmp_filter_ctx *ret);

/*
 * The BPF program libseccomp generates for ctx, in a malloc'd copy (free ret->filter), so that
 * threads can install it later without libseccomp: no allocation, no lock, and the libseccomp
 * state can be freed (and trimmed) before the guest runs.
 */
int sandbox_filter_export(scmp_filter_ctx ctx, struct sock_fprog *ret);

/* Installs prog on the calling thread only (seccomp(2), no TSYNC flag). */
int sandbox_filter_install(const struct sock_fprog *prog);
