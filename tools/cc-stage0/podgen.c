/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pod manifest, as rkt 1.30 generates it for `rkt run IMAGE...`: one app per image, its app
 * taken from the image manifest with the command-line overrides merged in (--exec, args,
 * --user, --group, --set-env, --user-annotation), the --volume volumes, the --port forwards and the
 * mutable=false annotation. Built with json-c, then parsed and emitted by the manifest library, so
 * the `pod` file is valid and normalized.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "cc/cleanup.h"
#include "cc/log.h"
#include "manifest/pod-manifest.h"
#include "stage0.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct json_object *, json_object_put);

static struct json_object *kv_new(const char *name, const char *value)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	if (json_object_object_add(o, "name", json_object_new_string(name)) < 0 ||
	    json_object_object_add(o, "value", json_object_new_string(value)) < 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

int podgen_app_name(const char *manifest_json, size_t len, char **ret)
{
	_cleanup_(json_object_putp) struct json_object *m = NULL;
	struct json_object *n;
	const char *name, *base;

	m = json_tokener_parse(manifest_json);
	(void) len;
	if (!m || !json_object_object_get_ex(m, "name", &n) ||
	    !json_object_is_type(n, json_type_string))
		return -EINVAL;
	name = json_object_get_string(n);
	base = strrchr(name, '/');
	*ret = strdup(base ? base + 1 : name);
	return *ret ? 0 : -ENOMEM;
}

/* As rkt: --exec replaces the whole exec, the args after the image's `--` are appended. */
static int app_exec_merge(struct json_object *app, const struct stage0_app *a)
{
	struct json_object *exec;
	int r = 0;

	if (a->exec) {
		exec = json_object_new_array();
		if (!exec || json_object_object_add(app, "exec", exec) < 0 ||
		    json_object_array_add(exec, json_object_new_string(a->exec)) < 0)
			return -ENOMEM;
	} else if (!json_object_object_get_ex(app, "exec", &exec) ||
		   !json_object_is_type(exec, json_type_array)) {
		exec = json_object_new_array();
		if (!exec || json_object_object_add(app, "exec", exec) < 0)
			return -ENOMEM;
	}
	for (size_t i = 0; r >= 0 && i < a->args.n; i++)
		r = json_object_array_add(exec, json_object_new_string(a->args.v[i]));
	return r < 0 ? -ENOMEM : 0;
}

static int app_env_merge(struct json_object *app, const struct stage0_app *a)
{
	struct json_object *env;

	if (a->set_env.n == 0)
		return 0;
	if (!json_object_object_get_ex(app, "environment", &env) ||
	    !json_object_is_type(env, json_type_array)) {
		env = json_object_new_array();
		if (!env || json_object_object_add(app, "environment", env) < 0)
			return -ENOMEM;
	}
	for (size_t i = 0; i < a->set_env.n; i++) {
		const char *eq = strchr(a->set_env.v[i], '=');
		_cleanup_free_ char *name =
			strndup(a->set_env.v[i], (size_t) (eq - a->set_env.v[i]));
		size_t n = json_object_array_length(env), j;

		if (!name)
			return -ENOMEM;
		for (j = 0; j < n; j++) {
			struct json_object *e = json_object_array_get_idx(env, j), *k;

			if (json_object_object_get_ex(e, "name", &k) &&
			    streq(json_object_get_string(k), name))
				break;
		}
		struct json_object *kv = kv_new(name, eq + 1);
		if (!kv)
			return -ENOMEM;
		if ((j < n ? json_object_array_put_idx(env, j, kv)
			   : json_object_array_add(env, kv)) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* --user-annotation NAME=VALUE: the app's userAnnotations map (a later NAME wins). */
static int app_user_annotations_merge(struct json_object *app, const struct stage0_app *a)
{
	struct json_object *m;

	if (a->user_annotations.n == 0)
		return 0;
	if (!json_object_object_get_ex(app, "userAnnotations", &m) ||
	    !json_object_is_type(m, json_type_object)) {
		m = json_object_new_object();
		if (!m || json_object_object_add(app, "userAnnotations", m) < 0)
			return -ENOMEM;
	}
	for (size_t i = 0; i < a->user_annotations.n; i++) {
		const char *kv = a->user_annotations.v[i], *eq = strchr(kv, '=');
		_cleanup_free_ char *name = strndup(kv, (size_t) (eq - kv));

		if (!name || json_object_object_add(m, name, json_object_new_string(eq + 1)) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int app_new(const struct stage0_app *a, const struct store_image *img, const char *name,
		   struct json_object **ret)
{
	_cleanup_(json_object_putp) struct json_object *im = NULL, *o = NULL;
	struct json_object *app = NULL, *image, *v;
	int r;

	im = json_tokener_parse(img->manifest);
	o = json_object_new_object();
	image = json_object_new_object();
	if (!im || !o || !image ||
	    json_object_object_add(o, "name", json_object_new_string(name)) < 0 ||
	    json_object_object_add(o, "image", image) < 0)
		return -ENOMEM;
	if (json_object_object_get_ex(im, "name", &v))
		json_object_object_add(image, "name", json_object_get(v));
	json_object_object_add(image, "id", json_object_new_string(img->id));
	if (json_object_object_get_ex(im, "labels", &v))
		json_object_object_add(image, "labels", json_object_get(v));

	if (json_object_object_get_ex(im, "app", &v) && json_object_is_type(v, json_type_object)) {
		if (json_object_deep_copy(v, &app, NULL) < 0)
			return -ENOMEM;
	} else if (a->exec) {
		app = json_object_new_object();
		if (!app || json_object_object_add(app, "user", json_object_new_string("0")) < 0 ||
		    json_object_object_add(app, "group", json_object_new_string("0")) < 0) {
			json_object_put(app);
			return -ENOMEM;
		}
	} else
		return log_error_errno(EINVAL, "%s: the image has no app; give one with --exec",
				       a->aci);
	if (json_object_object_add(o, "app", app) < 0)
		return -ENOMEM;
	r = app_exec_merge(app, a);
	if (r >= 0)
		r = app_env_merge(app, a);
	if (r >= 0)
		r = app_user_annotations_merge(app, a);
	if (r >= 0 && a->user)
		r = json_object_object_add(app, "user", json_object_new_string(a->user));
	if (r >= 0 && a->group)
		r = json_object_object_add(app, "group", json_object_new_string(a->group));
	if (r < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(o);
	return 0;
}

/* rkt's --port syntax: NAME:[HOSTIP:]HOSTPORT, a pod manifest "ports" entry. */
static int port_new(const char *spec, struct json_object **ret)
{
	_cleanup_(json_object_putp) struct json_object *o = json_object_new_object();
	_cleanup_free_ char *copy = strdup(spec);
	char *name, *ip = NULL, *port, *end;
	long n;

	if (!o || !copy)
		return -ENOMEM;
	name = copy;
	port = strrchr(copy, ':');
	if (!port || port == name)
		return log_error_errno(EINVAL, "--port=%s: expected NAME:[HOSTIP:]HOSTPORT", spec);
	*port++ = '\0';
	ip = strchr(name, ':');
	if (ip)
		*ip++ = '\0';
	errno = 0;
	n = strtol(port, &end, 10);
	if (errno || end == port || *end || n < 1 || n > 65535 || (ip && !*ip))
		return log_error_errno(EINVAL, "--port=%s: expected NAME:[HOSTIP:]HOSTPORT", spec);
	json_object_object_add(o, "name", json_object_new_string(name));
	json_object_object_add(o, "hostPort", json_object_new_int((int) n));
	if (ip)
		json_object_object_add(o, "hostIP", json_object_new_string(ip));
	*ret = TAKE_PTR(o);
	return 0;
}

/* rkt's --volume syntax: NAME,kind=host|empty[,source=P][,readOnly=B][,recursive=B]
 * [,mode=M][,uid=N][,gid=N]. */
static int volume_new(const char *spec, struct json_object **ret)
{
	_cleanup_(json_object_putp) struct json_object *o = json_object_new_object();
	_cleanup_free_ char *copy = strdup(spec);
	char *save = NULL, *name;
	bool empty = false;

	if (!o || !copy)
		return -ENOMEM;
	name = strtok_r(copy, ",", &save);
	if (!name || strchr(name, '='))
		return log_error_errno(EINVAL, "--volume=%s: expected NAME,kind=...", spec);
	json_object_object_add(o, "name", json_object_new_string(name));
	for (char *kv = strtok_r(NULL, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *val = strchr(kv, '=');

		if (!val)
			return log_error_errno(EINVAL, "--volume=%s: '%s' is not key=value", spec,
					       kv);
		*val++ = '\0';
		if (streq(kv, "kind") || streq(kv, "source") || streq(kv, "mode")) {
			empty = empty || (streq(kv, "kind") && streq(val, "empty"));
			json_object_object_add(o, kv, json_object_new_string(val));
		} else if (streq(kv, "readOnly") || streq(kv, "recursive")) {
			if (!streq(val, "true") && !streq(val, "false"))
				return log_error_errno(
					EINVAL, "--volume=%s: %s must be true or false", spec, kv);
			json_object_object_add(o, kv, json_object_new_boolean(streq(val, "true")));
		} else if (streq(kv, "uid") || streq(kv, "gid")) {
			char *end;
			long long n = strtoll(val, &end, 10);

			if (*val == '\0' || *end || n < 0 || n > 0xffffffffLL)
				return log_error_errno(EINVAL, "--volume=%s: bad %s", spec, kv);
			json_object_object_add(o, kv, json_object_new_int64(n));
		} else
			return log_error_errno(EINVAL, "--volume=%s: unknown key '%s'", spec, kv);
	}
	if (empty) {
		/* rkt's defaults for empty volumes */
		if (!json_object_object_get_ex(o, "mode", NULL))
			json_object_object_add(o, "mode", json_object_new_string("0755"));
		if (!json_object_object_get_ex(o, "uid", NULL))
			json_object_object_add(o, "uid", json_object_new_int64(0));
		if (!json_object_object_get_ex(o, "gid", NULL))
			json_object_object_add(o, "gid", json_object_new_int64(0));
	}
	*ret = TAKE_PTR(o);
	return 0;
}

int podgen_build(const struct run_opts *o, const struct store_image *images, char **names,
		 char **ret_json)
{
	_cleanup_(json_object_putp) struct json_object *pod = json_object_new_object();
	_cleanup_(pod_manifest_freep) struct pod_manifest *pm = NULL;
	struct json_object *apps = json_object_new_array(), *vols = NULL, *ann, *ports;
	struct cc_error err = {};
	int r;

	if (!pod || !apps)
		return log_oom();
	json_object_object_add(pod, "acVersion", json_object_new_string(STAGE0_AC_VERSION));
	json_object_object_add(pod, "acKind", json_object_new_string("PodManifest"));
	json_object_object_add(pod, "apps", apps);
	for (size_t i = 0; i < o->n_apps; i++) {
		struct json_object *app = NULL;

		r = app_new(&o->apps[i], &images[i], names[i], &app);
		if (r < 0)
			return r == -ENOMEM ? log_oom() : r;
		json_object_array_add(apps, app);
	}
	if (o->volumes.n > 0) {
		vols = json_object_new_array();
		json_object_object_add(pod, "volumes", vols);
	}
	for (size_t i = 0; i < o->volumes.n; i++) {
		struct json_object *v = NULL;

		r = volume_new(o->volumes.v[i], &v);
		if (r < 0)
			return r;
		json_object_array_add(vols, v);
	}
	ann = json_object_new_array();
	json_object_object_add(pod, "annotations", ann);
	json_object_array_add(ann, kv_new("coreos.com/rkt/stage1/mutable", "false"));
	ports = json_object_new_array();
	json_object_object_add(pod, "ports", ports);
	for (size_t i = 0; i < o->ports.n; i++) {
		struct json_object *pt = NULL;

		r = port_new(o->ports.v[i], &pt);
		if (r < 0)
			return r;
		json_object_array_add(ports, pt);
	}

	const char *s = json_object_to_json_string_ext(pod, JSON_C_TO_STRING_PLAIN);
	if (!s)
		return log_oom();
	r = pod_manifest_parse(s, strlen(s), &pm, &err);
	if (r < 0)
		return log_error_errno(r, "the generated pod manifest is invalid: %s: %s",
				       err.context, err.msg);
	r = pod_manifest_to_json(pm, ret_json);
	if (r < 0)
		return log_error_errno(r, "cannot emit the pod manifest: %m");
	return 0;
}
