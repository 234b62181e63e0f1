/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "json-util.h"

int ccnet_json_parse_object(const char *s, size_t len, json_object **ret)
{
	json_tokener *tok;
	json_object *o;
	size_t used;

	if (!s || len == 0 || len > INT_MAX || memchr(s, '\0', len))
		return -EBADMSG;
	tok = json_tokener_new_ex(64);
	if (!tok)
		return -ENOMEM;
	o = json_tokener_parse_ex(tok, s, (int) len);
	used = json_tokener_get_parse_end(tok);
	if (!o || json_tokener_get_error(tok) != json_tokener_success) {
		json_tokener_free(tok);
		json_object_put(o);
		return -EBADMSG;
	}
	json_tokener_free(tok);
	for (; used < len; used++)
		if (!strchr(" \t\r\n", s[used])) {
			json_object_put(o);
			return -EBADMSG;
		}
	if (!json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return -EBADMSG;
	}
	*ret = o;
	return 0;
}

json_object *ccnet_json_get(json_object *o, const char *key)
{
	json_object *v;

	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

const char *ccnet_json_get_string(json_object *o, const char *key)
{
	json_object *v = ccnet_json_get(o, key);

	if (!v || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}
