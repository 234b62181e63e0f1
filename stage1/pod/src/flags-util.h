/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Helpers shared by the entrypoint flag parsers. */

#include <stdbool.h>

#include "cc/error.h"
#include "cc/warnings.h"
#include "stage1/uuid.h"

/* If arg is "<name>=<value>", the value; else NULL. name includes the leading "--". */
const char *flag_value(const char *arg, const char *name);
/* arg is "<name>" or "<name>=..." (the flag named name, whatever its form). */
bool flag_is(const char *arg, const char *name);
/* Copy a checked UUID positional into out, or fail with a message. */
int flag_uuid(const char *arg, char out[STAGE1_UUID_STRING_MAX], struct cc_error *reterr);
/* Printable form of an argument for messages: at most 64 bytes, control bytes as '?'. */
const char *flag_printable(const char *arg, char *buf, size_t size);
