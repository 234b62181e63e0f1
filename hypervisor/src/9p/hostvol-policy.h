/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The host-volume policy's rules (docs/9p.md, "Host volumes"), on one volume (NULL: a node in
 * no volume, which they leave alone). Applied by the in-process server (9p-hostvol.c) and by
 * the broker (fs-broker.c), which is what enforces them when the server is a worker.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "9p/9p.h"
#include "9p/fs-passthrough.h"

/* The mode a node of type fmt may have: no setuid, and setgid only on a directory. */
mode_t hostvol_policy_mode(const struct p9_hostvol *v, mode_t fmt, mode_t mode);
/* The owner a new node gets: root's ids only when the volume's root has them. */
void hostvol_policy_owner(const struct p9_hostvol *v, uint32_t *uid, uint32_t *gid);
/* Whether a node, as st describes it, may be in the volume. */
bool hostvol_policy_allows(const struct p9_hostvol *v, const struct stat *st);
/*
 * A setattr on the node st describes, made to follow the policy: -EPERM for a chown to an
 * owner it does not allow; setuid and setgid bits stripped (also by a truncate, which is a
 * write).
 */
int hostvol_policy_setattr(const struct p9_hostvol *v, const struct stat *st,
			   struct fsp_setattr *a);
