/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Pod UUIDs as rkt passes them: RFC 4122 text form, 8-4-4-4-12 hex digits. */

#include <stdbool.h>
#include <stdint.h>

#define STAGE1_UUID_STRING_MAX	     37 /* 36 characters + NUL */
#define STAGE1_MACHINE_ID_STRING_MAX 33 /* 32 hex digits + NUL */

/* True for 8-4-4-4-12 hex digits (either case) and nothing else. */
bool stage1_uuid_is_valid(const char *s);
/*
 * The guest's machine ID (systemd.machine_id=): the UUID's 32 hex digits, lower case, without
 * dashes. -EINVAL if uuid is not valid.
 */
int stage1_uuid_to_machine_id(const char *uuid, char ret[STAGE1_MACHINE_ID_STRING_MAX]);
/* The UUID's 16 bytes, in text order (machined's machine ID). -EINVAL if uuid is not valid. */
int stage1_uuid_to_bytes(const char *uuid, uint8_t ret[16]);
