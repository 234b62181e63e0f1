/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The apps' users and groups in the guest's user database. The pod layer's units say
 * User=<uid>, Group=<gid>, SupplementaryGroups=<gids>, and systemd (252) refuses to start a
 * unit whose numeric user or group has no entry in /etc/passwd or /etc/group ("Failed to
 * determine user credentials", 217/USER). The pod layer lists those entries in
 * etc/cc/passwd and etc/cc/group (stage1/pod, named from the app's own image where it can);
 * cc-init appends them to the new root's /etc/passwd and /etc/group, in the tmpfs upper
 * layer, before systemd starts: no unit on the boot path, and nothing pod-specific to parse.
 */

/* Append etc/cc/{passwd,group} under root to etc/{passwd,group}. A root without them (no pod
 * layer, or a pod without apps) is left alone. 0 or a negative errno (logged). */
int users_append(const char *root);
