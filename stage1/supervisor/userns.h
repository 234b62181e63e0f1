/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * A user namespace with given uid and gid maps, held by an fd only: the idmap of an idmapped
 * mount (mount_setattr(MOUNT_ATTR_IDMAP)). A short-lived child unshares it and waits while the
 * caller writes its maps; the fd keeps the namespace once the child is gone.
 */

/*
 * uid_map and gid_map: the text written to /proc/<child>/{uid,gid}_map ("ns host count"
 * lines). Returns an O_CLOEXEC fd on the namespace, or a negative errno.
 */
int userns_open(const char *uid_map, const char *gid_map);
