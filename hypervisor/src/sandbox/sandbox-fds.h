/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Every fd the VMM opens is O_CLOEXEC (style rule, checked by the kvm tests), and no fd that
 * survived execve() is: so the fds without FD_CLOEXEC are exactly the inherited ones. This
 * closes them all except 0, 1, 2 and keep_fd (-1: none). Returns how many it closed. Needs
 * /proc (it lists /proc/self/fd).
 */
int sandbox_fds_close_inherited(int keep_fd);
