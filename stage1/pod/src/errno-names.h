/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The name systemd's SystemCallErrorNumber= knows for an "E..." name (exact case): the name
 * itself, or the kernel name of a POSIX alias (ENOTSUP -> EOPNOTSUPP); NULL if unknown.
 */
const char *errno_canonical_name(const char *name);
