/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Accounts for the apps' numeric users and groups. The pod layer's units say User=<uid>,
 * Group=<gid>, SupplementaryGroups=<gids>, and systemd (252) refuses to start a unit whose
 * numeric user or group has no entry in the guest's /etc/passwd or /etc/group ("Failed to
 * determine user credentials"). The ids are those of etc/cc/enter/<app> (agent/guest/
 * enter-config.h); each one the base image does not have gets an entry appended to the new
 * root's /etc/passwd ("cc-uid-<uid>:x:<uid>:<gid>::/:/usr/sbin/nologin") or /etc/group
 * ("cc-gid-<gid>:x:<gid>:"), in the tmpfs upper layer.
 */

/* Add the missing entries under root (the assembled root, before the pivot). A root without
 * etc/cc/enter (no pod layer) is left alone. Returns the number of entries added or a
 * negative errno (logged). */
int users_sync(const char *root);
