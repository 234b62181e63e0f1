/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* What the steps of cc-testapp share (cc-testapp.c). */

extern const char *testapp_name; /* AC_APP_NAME, or "-" */

/* One line on stdout: "cc-test[<app>] <text>". */
void testapp_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "EACCES" for EACCES. */
const char *testapp_errno_name(int e);

/* cc-testapp-tcp.c */
void testapp_step_serve(const char *arg);
void testapp_step_connect(const char *arg);
void testapp_step_mds(const char *path);
void testapp_step_mds_serve(const char *arg);
