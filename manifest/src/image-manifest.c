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

static int dependencies_parse(struct mctx *c, struct json_object *o, struct image_manifest *m)
{
	struct json_object *a;
	size_t n, old;
	int r;

	r = json_get_array(c, o, "dependencies", false, &a, &n);
	if (r < 0 || !a || n == 0)
		return r;
	m->dependencies = calloc(n, sizeof(struct manifest_dependency));
	if (!m->dependencies)
		return -ENOMEM;
	old = mctx_push_key(c, "dependencies");
	for (size_t i = 0; i < n; i++) {
		struct manifest_dependency *d = &m->dependencies[i];
		struct json_object *v = json_object_array_get_idx(a, i);
		size_t o2 = mctx_push_index(c, i);
		int64_t size = 0;

		m->n_dependencies++;
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
		mctx_pop(c, o2);
	}
	mctx_pop(c, old);
	return 0;
}

static int path_whitelist_parse(struct mctx *c, struct json_object *o, struct image_manifest *m)
{
	int r;

	r = json_get_strv(c, o, "pathWhitelist", false, &m->path_whitelist);
	if (r < 0)
		return r;
	for (size_t i = 0; i < m->path_whitelist.n; i++)
		if (m->path_whitelist.items[i][0] != '/') {
			size_t old = mctx_push_key(c, "pathWhitelist");

			(void) mctx_push_index(c, i);
			r = mctx_fail(c, -EINVAL, "%s is not an absolute path",
				      mctx_quote(c, m->path_whitelist.items[i]));
			mctx_pop(c, old);
			return r;
		}
	return 0;
}

static int image_manifest_parse_object(struct mctx *c, struct json_object *o,
				       struct image_manifest *m)
{
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
	r = dependencies_parse(c, o, m);
	if (r < 0)
		return r;
	return path_whitelist_parse(c, o, m);
}

int image_manifest_parse(const char *buf, size_t len, struct image_manifest **ret,
			 struct manifest_error *reterr_error)
{
	_cleanup_(image_manifest_freep) struct image_manifest *m = NULL;
	_cleanup_(json_object_putp) struct json_object *o = NULL;
	struct manifest_error local;
	struct mctx c;
	int r;

	assert_return(buf || len == 0, -EINVAL);
	assert_return(ret, -EINVAL);

	mctx_init(&c, reterr_error ?: &local);
	r = json_parse_document(&c, buf ?: "", len, &o);
	if (r < 0)
		return r;
	m = calloc(1, sizeof(*m));
	if (!m)
		return mctx_fail(&c, -ENOMEM, "out of memory");
	r = image_manifest_parse_object(&c, o, m);
	if (r == -ENOMEM)
		return mctx_fail(&c, r, "out of memory");
	if (r < 0)
		return r;
	*ret = TAKE_PTR(m);
	return 0;
}

int image_manifest_load(const char *path, struct image_manifest **ret,
			struct manifest_error *reterr_error)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int r;

	assert_return(path && ret, -EINVAL);
	r = read_full_file(path, MANIFEST_SIZE_MAX, &buf, &len);
	if (r < 0)
		return r;
	return image_manifest_parse(buf, len, ret, reterr_error);
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
