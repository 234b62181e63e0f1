/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "manifest/image-manifest.h"
#include "manifest/limits.h"
#include "parse-common.h"

static int dependency_parse(struct mctx *c, struct json_object *v, void *items, size_t i,
			    _unused_ void *userdata)
{
	struct manifest_dependency *d = &((struct manifest_dependency *) items)[i];
	int64_t size = 0;
	int r;

	r = json_value_object(c, v);
	if (r < 0)
		return r;
	r = ac_identifier_get(c, v, "imageName", true, &d->image_name);
	if (r < 0)
		return r;
	r = image_id_get(c, v, "imageID", false, &d->image_id);
	if (r < 0)
		return r;
	r = kv_list_parse(c, v, "labels", KV_LABELS, &d->labels);
	if (r < 0)
		return r;
	r = json_get_int(c, v, "size", 0, INT64_MAX - 1, &size);
	if (r < 0)
		return r;
	d->size = (uint64_t) size;
	return 0;
}

static int path_whitelist_parse(struct mctx *c, struct json_object *o, struct image_manifest *m)
{
	int r;

	r = json_get_strv(c, o, "pathWhitelist", false, &m->path_whitelist);
	if (r < 0)
		return r;
	for (size_t i = 0; i < m->path_whitelist.n; i++)
		if (m->path_whitelist.items[i][0] != '/')
			return mctx_fail_elem(c, "pathWhitelist", i, -EINVAL,
					      "%s is not an absolute path",
					      mctx_quote(c, m->path_whitelist.items[i]));
	return 0;
}

static int image_manifest_parse_object(struct mctx *c, struct json_object *o, void *mv)
{
	struct image_manifest *m = mv;
	int r;

	r = ac_kind_check(c, o, "ImageManifest", &m->ac_kind);
	if (r < 0)
		return r;
	r = ac_version_get(c, o, &m->ac_version);
	if (r < 0)
		return r;
	r = ac_identifier_get(c, o, "name", true, &m->name);
	if (r < 0)
		return r;
	r = kv_list_parse(c, o, "labels", KV_LABELS, &m->labels);
	if (r < 0)
		return r;
	r = app_parse(c, o, "app", &m->app);
	if (r < 0)
		return r;
	r = kv_list_parse(c, o, "annotations", KV_ANNOTATIONS, &m->annotations);
	if (r < 0)
		return r;
	r = JSON_PARSE_ARRAY(c, o, "dependencies", false, m->dependencies, m->n_dependencies,
			     dependency_parse, NULL);
	if (r < 0)
		return r;
	return path_whitelist_parse(c, o, m);
}

static void image_manifest_free_any(void *m)
{
	image_manifest_free(m);
}

static const struct manifest_doc_kind image_manifest_kind = {
	.size = sizeof(struct image_manifest),
	.parse_object = image_manifest_parse_object,
	.free = image_manifest_free_any,
};

int image_manifest_parse(const char *buf, size_t len, struct image_manifest **ret,
			 struct cc_error *reterr_error)
{
	void *m;
	int r;

	assert_return(ret, -EINVAL);
	r = manifest_doc_parse(&image_manifest_kind, buf, len, &m, reterr_error);
	if (r >= 0)
		*ret = m;
	return r;
}

int image_manifest_load(const char *path, struct image_manifest **ret,
			struct cc_error *reterr_error)
{
	void *m;
	int r;

	assert_return(path && ret, -EINVAL);
	r = manifest_doc_load(&image_manifest_kind, path, &m, reterr_error);
	if (r >= 0)
		*ret = m;
	return r;
}

struct image_manifest *image_manifest_free(struct image_manifest *m)
{
	if (!m)
		return NULL;
	free(m->ac_kind);
	free(m->ac_version);
	free(m->name);
	manifest_kv_list_done(&m->labels);
	if (m->app) {
		manifest_app_done(m->app);
		free(m->app);
	}
	manifest_kv_list_done(&m->annotations);
	for (size_t i = 0; i < m->n_dependencies; i++) {
		free(m->dependencies[i].image_name);
		free(m->dependencies[i].image_id);
		manifest_kv_list_done(&m->dependencies[i].labels);
	}
	free(m->dependencies);
	manifest_strv_done(&m->path_whitelist);
	free(m);
	return NULL;
}
