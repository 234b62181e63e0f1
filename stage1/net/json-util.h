/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Small json-c helpers for ccnet. */

#include <json-c/json.h>
#include <stddef.h>

#include "cc/macro.h"

/* Parse exactly len bytes as one JSON object (trailing whitespace allowed). -EBADMSG else. */
int ccnet_json_parse_object(const char *s, size_t len, json_object **ret);
/* The member key of object o, or NULL. */
json_object *ccnet_json_get(json_object *o, const char *key);
/* The member key if it is a string, else NULL. */
const char *ccnet_json_get_string(json_object *o, const char *key);
