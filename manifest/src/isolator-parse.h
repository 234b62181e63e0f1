/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

#include <json-c/json.h>

#include "json-util.h"
#include "manifest/isolator.h"

/* Parse an "isolators" member of o (absent: empty list) and check duplicates and conflicts. */
int isolators_parse(struct mctx *c, struct json_object *o, const char *key,
		    struct manifest_isolator_list *ret);
