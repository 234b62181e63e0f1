/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Validation errors name the JSON path of the offending value and the rule it breaks, e.g.
 * path "apps[1].app.isolators[0].value.limit", msg "\"12XB\" is not a valid quantity".
 * Errors about the document as a whole (syntax, size, acKind) use the path "$".
 */

#define MANIFEST_ERROR_PATH_MAX 128
#define MANIFEST_ERROR_MSG_MAX	256

struct manifest_error {
	char path[MANIFEST_ERROR_PATH_MAX];
	char msg[MANIFEST_ERROR_MSG_MAX];
};
