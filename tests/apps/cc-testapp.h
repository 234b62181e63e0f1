/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

#include <stddef.h>

/* What the steps of cc-testapp share (cc-testapp.c). */

extern const char *testapp_name; /* AC_APP_NAME, or "-" */

/* One line on stdout: "cc-test[<app>] <text>". */
void testapp_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "EACCES" for EACCES. */
const char *testapp_errno_name(int e);

/* cc-testapp-tcp.c */
/* A listening socket on [::]:port for both families, else 0.0.0.0:port; -errno on failure. */
int testapp_tcp_listen(int port);
/* Connect to IP:PORT (IPv4 or IPv6) with 10 s timeouts; -errno on failure. */
int testapp_tcp_connect(const char *ip, int port);
/* "IP:PORT" or "[IPv6]:PORT" into ip (without brackets) and *port; -1 if malformed. */
int testapp_hostport_parse(const char *s, size_t len, char ip[static 64], int *port);
void testapp_step_serve(const char *arg);
void testapp_step_connect(const char *arg);
void testapp_step_mds(const char *path);
void testapp_step_mds_serve(const char *arg);

/* cc-testapp-bulk.c */
void testapp_step_recv(const char *arg);
void testapp_step_send(const char *arg);

/* cc-testapp-hostile.c */
void testapp_step_setns(const char *arg);
void testapp_step_symlink(const char *arg);
void testapp_step_rmdir(const char *path);
void testapp_step_mkfifo(const char *path);
void testapp_step_truncate(const char *arg);
void testapp_step_xattrflood(const char *dir);
void testapp_step_fidflood(const char *path);
void testapp_step_vsockflood(const char *arg);
