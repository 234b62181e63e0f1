/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Kernel command line parsing for the guest init stage and the boot-marker helper.
 *
 * Words are separated by blanks. Double quotes group blanks into a word and are removed,
 * as the kernel does: `a="b c"` and `"a=b c"` both give key "a", value "b c". When a key
 * appears more than once, the last occurrence wins.
 */

#include <stdbool.h>
#include <stddef.h>

/* /proc/cmdline is at most a page on x86 (COMMAND_LINE_SIZE 2048); anything longer is hostile. */
#define CMDLINE_MAX 4096

/* Longest 9p mount tag we accept (virtio-9p tags are short, printable names). */
#define CMDLINE_POD_TAG_MAX 64

/*
 * Find key in cmdline. Returns 1 and a copy of the value in *ret_value (an empty string for
 * a bare `key` or `key=`), 0 when the key is absent (*ret_value untouched), -EINVAL for an
 * unterminated quote, -E2BIG for a command line longer than CMDLINE_MAX, -ENOMEM.
 */
int cmdline_get(const char *cmdline, const char *key, char **ret_value);

/* Most cc.mount= options accepted, and the longest guest path of one. */
#define CMDLINE_MOUNTS_MAX     16
#define CMDLINE_MOUNT_PATH_MAX 256

/* cc.mount=<9p tag>:<absolute path>: a 9p share mounted read-write inside the new root. */
struct cmdline_mount {
	char *tag;
	char *path;
};

/*
 * Find every occurrence of key, in order. Returns the number found (0 leaves the outputs
 * untouched) with a NULL-terminated array of copies in *ret_values, or a negative errno as
 * cmdline_get(). At most max values; more is -E2BIG.
 */
int cmdline_get_all(const char *cmdline, const char *key, size_t max, char ***ret_values);

/*
 * Parse one cc.mount value "<tag>:<path>". The tag follows cmdline_pod_tag_is_valid(); the
 * path is absolute, normalized (no empty, "." or ".." component, no trailing slash), not "/",
 * at most CMDLINE_MOUNT_PATH_MAX bytes and made of [A-Za-z0-9._/+@-] (it becomes a mount
 * point: no blanks, commas, colons or control characters). -EINVAL otherwise.
 */
int cmdline_mount_parse(const char *value, struct cmdline_mount *ret);
void cmdline_mount_done(struct cmdline_mount *m);

/* What the guest side reads from the kernel command line. */
struct cmdline_options {
	/* cc.pod=<9p tag>: the pod layer shared from the host; NULL when absent. */
	char *pod_tag;
	/* cc.markers=console: also print each boot marker on /dev/console. */
	bool markers_console;
	/* cc.mount=<tag>:<path>, in command line order; paths are distinct. */
	struct cmdline_mount *mounts;
	size_t n_mounts;
};

/*
 * Parse the cc.* options. Fails with -EINVAL for a malformed value (a pod tag that is empty,
 * too long or not made of [A-Za-z0-9._-], an unknown cc.markers mode, a bad cc.mount, two
 * cc.mount with the same path), -E2BIG for more than CMDLINE_MOUNTS_MAX cc.mount, so that a broken
 * VMM configuration stops the boot instead of producing a half-assembled root.
 */
int cmdline_options_parse(const char *cmdline, struct cmdline_options *ret);
void cmdline_options_done(struct cmdline_options *o);

/* True when tag is a valid pod layer tag (see cmdline_options_parse). */
bool cmdline_pod_tag_is_valid(const char *tag);
