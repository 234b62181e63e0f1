/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The pod's journal on the host (docs/stage1.md, "Logs"). The guest's journald writes
 * /var/log/journal/<machine id>, a 9p share of <pod>/POD_JOURNAL_DIR; where the host keeps a
 * persistent journal, <host journal dir>/<machine id> links to it, as rkt's nspawn stage1 does,
 * so that `journalctl -m` merges it. gc removes the link (a cc/resources record).
 */

#include "cc/error.h"
#include "cc/warnings.h"

#define POD_JOURNAL_HOST_DIR "/var/log/journal"

/* The host's journal directory: POD_JOURNAL_HOST_DIR, or $CC_HOST_JOURNAL_DIR (tests). */
const char *pod_journal_host_dir(void);

/*
 * Create <pod>/POD_JOURNAL_DIR, then, when the host's journal directory exists, record the
 * link in cc/resources and create it (pod_dir: the pod dir's absolute path). A link left there
 * by an earlier run is replaced. The link is a convenience, as with rkt's nspawn stage1
 * (--link-journal=try-guest): when it cannot be made (anything else by that name, a read-only
 * host directory) a warning goes to warn and the pod goes on. 1 when linked, 0 when not; a
 * negative errno only when the pod's own journal directory cannot be made.
 */
int pod_journal_prepare(int pod_fd, const char *pod_dir, const char *machine_id,
			struct cc_warnings *warn, struct cc_error *err);

/* Remove the host link for machine_id if it is a symlink; 0 when removed or not there. */
int pod_journal_unlink(const char *machine_id);
