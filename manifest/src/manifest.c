/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <string.h>

#include "cc/cleanup.h"
#include "json-util.h"
#include "manifest/image-manifest.h"
#include "manifest/manifest.h"
#include "manifest/pod-manifest.h"

int manifest_detect_kind(const char *buf, size_t len, enum manifest_kind *ret,
			 struct cc_error *reterr_error)
{
	_cleanup_(json_object_putp) struct json_object *o = NULL;
	_cleanup_free_ char *kind = NULL;
	struct cc_error local;
	struct mctx c;
	int r;

	assert_return(ret, -EINVAL);
	r = json_parse_root(&c, reterr_error ?: &local, buf, len, &o);
	if (r < 0)
		return r;
	r = json_get_string(&c, o, "acKind", true, &kind);
	if (r < 0)
		return r;
	if (strcmp(kind, "ImageManifest") == 0)
		*ret = MANIFEST_KIND_IMAGE;
	else if (strcmp(kind, "PodManifest") == 0)
		*ret = MANIFEST_KIND_POD;
	else
		return mctx_fail_key(&c, "acKind", -EINVAL,
				     "%s is not \"ImageManifest\" or \"PodManifest\"",
				     mctx_quote(&c, kind));
	return 0;
}

static int manifest_parse_any(const char *buf, size_t len, enum manifest_kind *ret_kind,
			      char **ret_json, struct cc_error *reterr_error)
{
	enum manifest_kind kind;
	int r;

	r = manifest_detect_kind(buf, len, &kind, reterr_error);
	if (r < 0)
		return r;
	if (kind == MANIFEST_KIND_IMAGE) {
		_cleanup_(image_manifest_freep) struct image_manifest *im = NULL;

		r = image_manifest_parse(buf, len, &im, reterr_error);
		if (r >= 0 && ret_json)
			r = image_manifest_to_json(im, ret_json);
	} else {
		_cleanup_(pod_manifest_freep) struct pod_manifest *pm = NULL;

		r = pod_manifest_parse(buf, len, &pm, reterr_error);
		if (r >= 0 && ret_json)
			r = pod_manifest_to_json(pm, ret_json);
	}
	if (r < 0)
		return r;
	if (ret_kind)
		*ret_kind = kind;
	return 0;
}

int manifest_validate(const char *buf, size_t len, enum manifest_kind *ret_kind,
		      struct cc_error *reterr_error)
{
	return manifest_parse_any(buf, len, ret_kind, NULL, reterr_error);
}

int manifest_normalize(const char *buf, size_t len, char **ret, struct cc_error *reterr_error)
{
	assert_return(ret, -EINVAL);
	return manifest_parse_any(buf, len, NULL, ret, reterr_error);
}
