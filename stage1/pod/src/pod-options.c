/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <string.h>

#include "stage1/pod-options.h"

/* The value of annotation name in l into *ret: 1 when set, 0 when absent (*ret unchanged). */
static int kv_bool(const struct manifest_kv_list *l, const char *what, const char *name, bool *ret,
		   struct cc_error *reterr)
{
	int found = 0;

	for (size_t i = 0; i < l->n; i++) {
		const char *v = l->items[i].value;

		if (strcmp(l->items[i].name, name) != 0)
			continue;
		if (strcmp(v, "true") == 0)
			*ret = true;
		else if (strcmp(v, "false") == 0)
			*ret = false;
		else
			return cc_error_set(reterr, -EINVAL,
					    "pod %s %s: '%.64s' is not true or false", what, name,
					    v);
		found = 1;
	}
	return found;
}

/* KSM is one setting of the VM: the pod's, else on when any app asks for it. */
static int ksm_parse(const struct pod_manifest *pod, bool *ret, struct cc_error *reterr)
{
	bool pod_set = false, app_set = false;
	int r, found;

	for (size_t i = 0; i < pod->n_apps; i++) {
		bool v = false;

		if (!pod->apps[i].app)
			continue;
		r = kv_bool(&pod->apps[i].app->user_annotations, "app userAnnotation",
			    POD_OPTION_KSM, &v, reterr);
		if (r < 0)
			return r;
		app_set = app_set || v;
	}
	/* The pod's own setting decides when there is one; its userAnnotation overrides. */
	found = kv_bool(&pod->annotations, "annotation", POD_OPTION_KSM, &pod_set, reterr);
	if (found < 0)
		return found;
	r = kv_bool(&pod->user_annotations, "userAnnotation", POD_OPTION_KSM, &pod_set, reterr);
	if (r < 0)
		return r;
	*ret = found + r > 0 ? pod_set : app_set;
	return 0;
}

int pod_options_parse(const struct pod_manifest *pod, struct pod_options *ret,
		      struct cc_error *reterr)
{
	struct pod_options o = {};
	int r;

	assert_return(pod && ret, -EINVAL);
	r = ksm_parse(pod, &o.ksm, reterr);
	if (r < 0)
		return r;
	*ret = o;
	return 0;
}
