/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* appc seccomp sets -> systemd SystemCallFilter= (see isolators.h and docs/stage1.md). */

#include <stdbool.h>

#include "manifest/isolator.h"
#include "cc/error.h"
#include "cc/warnings.h"
#include "strbuf.h"

/* rkt's default deny-list (= Docker's), applied when an app has no seccomp isolator. */
void seccomp_default_filter(struct strbuf *b);
/*
 * The directives for one seccomp isolator (retain: allow-list; otherwise deny-list). Appends
 * nothing for a retain-set with @appc.io/all (no filtering: *ret_unfiltered is set).
 */
int seccomp_filter_append(struct strbuf *b, const struct manifest_name_set *set, bool retain,
			  bool *ret_unfiltered, struct cc_error *reterr);
