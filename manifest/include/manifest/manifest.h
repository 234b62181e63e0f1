/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Kind detection for tools that take either manifest kind (cc-manifest validate). */

#include <stddef.h>

#include "manifest/error.h"

enum manifest_kind {
	MANIFEST_KIND_IMAGE,
	MANIFEST_KIND_POD,
	_MANIFEST_KIND_MAX,
	_MANIFEST_KIND_INVALID = -22,
};

/*
 * The kind named by the document's acKind. Fails like the parsers (-EBADMSG, -EFBIG, ...), and
 * with -EINVAL and path "acKind" when it is missing or neither "ImageManifest" nor "PodManifest".
 */
int manifest_detect_kind(const char *buf, size_t len, enum manifest_kind *ret,
			 struct cc_error *reterr_error);

/*
 * Validate a document of either kind; on success *ret_kind is its kind. Same errors as the
 * parsers.
 */
int manifest_validate(const char *buf, size_t len, enum manifest_kind *ret_kind,
		      struct cc_error *reterr_error);
/* Validate and print as normalized JSON (free() *ret). */
int manifest_normalize(const char *buf, size_t len, char **ret, struct cc_error *reterr_error);
