/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The manifest library reports errors in the project's one error type (cc/error.h).
 * Validation errors put the JSON path of the offending value in context and the rule it
 * breaks in msg, e.g. context "apps[1].app.isolators[0].value.limit", msg "\"12XB\" is not a
 * valid quantity". Errors about the document as a whole (syntax, size, acKind) use the
 * context "$".
 */

#include "cc/error.h"
