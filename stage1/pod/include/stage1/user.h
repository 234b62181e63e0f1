/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The app's uid, gid and supplementary gids (appc ace.md), resolved on the host in the app's
 * own rootfs:
 *   - a value starting with '/' is a path in the rootfs: its owner uid / group gid;
 *   - otherwise a name in the rootfs's /etc/passwd (user) or /etc/group (group);
 *   - failing that, a decimal number 0..4294967294.
 * The files are read through rootfs_open() (capped at STAGE1_ETC_FILE_MAX bytes). A missing
 * user or group is -ESRCH with a message naming the app's value.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "manifest/types.h"
#include "cc/error.h"
#include "cc/warnings.h"

#define STAGE1_ETC_FILE_MAX (4u * 1024u * 1024u)

struct app_ids {
	uint32_t uid;
	uint32_t gid;
	uint32_t *supplementary_gids; /* the app's supplementaryGIDs, in order, duplicates kept */
	size_t n_supplementary_gids;
	/*
	 * The uid's entry in the app's /etc/passwd (first line with that uid) and the gid's name
	 * in its /etc/group, when there is one with sane fields (user_entry_field_is_safe()),
	 * else NULL. They name the ids in the guest's user database (podlayer.h).
	 */
	char *user_name;
	char *home;
	char *shell;
	char *group_name;
};

int app_user_resolve(int rootfs_fd, const char *user, uint32_t *ret_uid, struct cc_error *reterr);
int app_group_resolve(int rootfs_fd, const char *group, uint32_t *ret_gid, struct cc_error *reterr);
/* All of the above for one app; *ret is filled on success only (app_ids_done() frees it). */
int app_ids_resolve(int rootfs_fd, const struct manifest_app *app, struct app_ids *ret,
		    struct cc_error *reterr);
void app_ids_done(struct app_ids *ids);

/*
 * A passwd/group field that can be copied into the guest's database: 1..255 printable ASCII
 * bytes, no ':' (names: also no '/' and not starting with '-', at most 31 bytes).
 */
bool user_entry_field_is_safe(const char *s, bool is_name);
