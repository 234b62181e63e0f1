/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The seccomp allowlists, one table per thread kind: each row is one allowed syscall (with at
 * most two argument comparisons) and why the VMM needs it. Rows for the same syscall are
 * alternatives (any of them allows the call).
 */

#include <seccomp.h>
#include <stdbool.h>

#include "sandbox/sandbox.h"

#define SANDBOX_RULE_MAX_CMP 2

struct sandbox_rule {
	int nr;		  /* SCMP_SYS(name) */
	const char *name; /* for messages and tests */
	unsigned n_cmp;	  /* 0: any arguments */
	struct scmp_arg_cmp cmp[SANDBOX_RULE_MAX_CMP];
	bool cmp0_is_pid; /* cmp[0].datum_a is replaced by getpid() when the filter is built */
	const char *why;
};

/* The table of a thread kind, or NULL for an invalid kind. */
const struct sandbox_rule *sandbox_rules_get(enum sandbox_thread kind, unsigned *ret_n);
