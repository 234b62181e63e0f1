/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Named network namespaces, as `ip netns` keeps them: a new netns bind-mounted on
 * /run/netns/<name>, so that it outlives its creator and gc (or `ip netns`) finds it.
 */

/* Create /run/netns/<name> (it must not exist: -EEXIST). *ret_fd: an fd of the netns. */
int netns_create(const char *name, int *ret_fd);
/* Unmount and remove /run/netns/<name>; 0 if it is already gone. */
int netns_remove(const char *name);
/* Switch this thread into netns ns_fd; *ret_saved is an fd of the previous one. */
int netns_enter(int ns_fd, int *ret_saved);
/* Switch back to saved (from netns_enter) and close it. */
int netns_leave(int saved);
