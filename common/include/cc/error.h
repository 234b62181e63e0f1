/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The one error type of every library.
 *
 * A fallible function returns a negative errno and, when its struct cc_error *err is non-NULL,
 * fills it: the same negative errno, ONE line for the user (no newline, no program prefix)
 * and, where the message alone would not say where, a context (a manifest's JSON path, "$" for
 * the document as a whole). Callers on the way up add what they know with cc_error_wrap();
 * libraries never print. The program that decides prints the error once, at the boundary
 * (cc_error_message()), and picks its exit status, or takes the one the library proposed in
 * status (the VMM's enum vmm_exit, the agent's 125/126/127).
 *
 *	r = image_manifest_load(path, &m, err);
 *	if (r < 0)
 *		return cc_error_wrap(err, r, "app %s", name);
 *
 * In every format here %m prints strerror(-r) of the call's own r, not the errno of the
 * moment.
 */

#include <stdarg.h>
#include <stddef.h>

#include "cc/macro.h"

#define CC_ERROR_CONTEXT_MAX 128
#define CC_ERROR_MSG_MAX     1024 /* the agent relays lines of up to 1024 bytes */

struct cc_error {
	int code;   /* negative errno; 0 while none is set */
	int status; /* an exit status the library proposes for the program; 0: none */
	char context[CC_ERROR_CONTEXT_MAX];
	char msg[CC_ERROR_MSG_MAX];
};

/*
 * Format the message into *err (NULL-safe, truncated to fit; context and status untouched)
 * and return -abs(r), for "return cc_error_set(err, r, ...)". r == 0 counts as -EINVAL.
 */
int cc_error_set(struct cc_error *err, int r, const char *fmt, ...) _printf_(3, 4);
/* The same, with the exit status the library proposes. */
int cc_error_set_status(struct cc_error *err, int status, int r, const char *fmt, ...)
	_printf_(4, 5);
/* The same, from a va_list. */
int cc_error_vset_status(struct cc_error *err, int status, int r, const char *fmt, va_list ap)
	_printf_(4, 0);
/* The same, with a context ("" for none). */
int cc_error_set_context(struct cc_error *err, int r, const char *context, const char *fmt, ...)
	_printf_(4, 5);
/*
 * Prefix the message already in *err with "<fmt>: " (what the caller knows: the app, the
 * file) and return -abs(r). A context the callee set goes into the line after the prefix
 * ("<fmt>: <context>: <msg>") and is cleared. When *err holds no message (the callee only
 * fails with -ENOMEM, failed before it had anything to say, or was given NULL), the message
 * becomes "<fmt>: <strerror(-r)>".
 */
int cc_error_wrap(struct cc_error *err, int r, const char *fmt, ...) _printf_(3, 4);
/*
 * The line to print: msg; strerror(-code) when only the errno was set; strerror(ENOMEM) when
 * nothing was (a callee that can only fail with -ENOMEM may leave *err untouched).
 */
const char *cc_error_message(const struct cc_error *err);
