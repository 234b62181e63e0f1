/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The ACE environment of an app (appc ace.md), as a systemd EnvironmentFile= (the guest's
 * /etc/cc/env/<app>, read by systemd for the app and its event handlers, and by cc-agent for
 * enter). In this order, each variable once:
 *   PATH=STAGE1_ACE_PATH        (the app's own PATH replaces it, as with rkt)
 *   AC_APP_NAME=<app>           (forced: an app value is dropped with a warning)
 *   AC_METADATA_URL=<url>       (only with a metadata URL; forced likewise)
 *   container=STAGE1_CONTAINER  (the app's own value replaces it)
 *   then the app's environment, in manifest order.
 * Every value is double-quoted; '"', '\\', '`' and '$' are backslash-escaped; other bytes,
 * newlines included, are literal (systemd keeps them inside double quotes). Names systemd
 * would drop (anything but [A-Za-z_][A-Za-z0-9_]*, e.g. "a.b") are left out with a warning.
 */

#include "manifest/types.h"
#include "cc/error.h"
#include "cc/warnings.h"

/* The executor name in $container (appc: free-form). */
#define STAGE1_CONTAINER "rkt-clear-containers"
/* rkt's metadata service port. */
#define STAGE1_MDS_PORT 18112

/* metadata_url may be NULL (no AC_METADATA_URL). Fails with -ENOMEM or -EINVAL (bad name). */
int app_env_format(const char *app_name, const struct manifest_kv_list *app_env,
		   const char *metadata_url, char **ret, struct cc_warnings *warnings);

/* One value in EnvironmentFile double-quoted form, quotes included. */
int env_value_quote(const char *value, char **ret);

/*
 * "http://<host>:18112/<token>" (IPv6 hosts in brackets). host is the host-side address the
 * guest reaches the metadata service on; token as checked by run_flags_parse().
 */
int metadata_url_format(const char *host, const char *token, char **ret);
