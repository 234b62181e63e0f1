/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * A one-line, user-facing reason that comes with a negative errno from the supervisor pieces
 * (which never print): run prints it as "run: <msg>" and exits.
 */

#include "cc/macro.h"

#define RUN_ERROR_MSG_MAX 512

struct run_error {
	char msg[RUN_ERROR_MSG_MAX];
};

/* Format the message (when e is non-NULL; %m prints strerror(-r)) and return -abs(r). */
int run_error_set(struct run_error *e, int r, const char *fmt, ...) _printf_(3, 4);

/* A warning for the user ("run: warning: <msg>"); userdata is the callback's own. */
typedef void (*run_warn_fn)(void *userdata, const char *msg);
/* Format and pass a warning to fn, if fn is non-NULL. */
void run_warn(run_warn_fn fn, void *userdata, const char *fmt, ...) _printf_(3, 4);
