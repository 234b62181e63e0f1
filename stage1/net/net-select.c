/* SPDX-License-Identifier: Apache-2.0 */
/* --net=<list> → the CNI configs to run, with rkt's loading rules (ccnet.h). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cc/cleanup.h"
#include "cc/fileio.h"
#include "ccnet.h"
#include "json-util.h"

#define CONF_SIZE_MAX (64u * 1024u)

/* rkt's stage1 defaults (etc/rkt/net.d/99-default{,-restricted}.conf). */
static const char default_conf[] =
	"{\"cniVersion\":\"1.0.0\",\"name\":\"default\",\"type\":\"ptp\",\"ipMasq\":true,"
	"\"ipam\":{\"type\":\"host-local\",\"subnet\":\"172.16.28.0/24\","
	"\"routes\":[{\"dst\":\"0.0.0.0/0\"}]}}\n";
static const char restricted_conf[] =
	"{\"cniVersion\":\"1.0.0\",\"name\":\"default-restricted\",\"type\":\"ptp\","
	"\"ipMasq\":false,\"ipam\":{\"type\":\"host-local\",\"subnet\":\"172.17.0.0/16\"}}\n";

struct wanted {
	char name[CNI_NAME_MAX];
	const char *args; /* points into the --net copy */
	bool found;
};

struct want_list {
	struct wanted v[CCNET_NETS_MAX];
	size_t n;
	bool all, none;
	const char *value; /* --net's value, for the messages */
};

static bool net_name_valid(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= CNI_NAME_MAX || !isalnum((unsigned char) s[0]))
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == n;
}

static bool args_valid(const char *s)
{
	for (; *s; s++)
		if ((unsigned char) *s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

static int want_parse(char *list, struct want_list *w, struct cc_error *err)
{
	char *tok;

	while ((tok = strsep(&list, ","))) {
		char *colon = strchr(tok, ':');
		const char *args = "";

		if (!*tok)
			return cc_error_set(err, -EINVAL, "--net=%.200s: empty network name",
					    w->value);
		if (colon) {
			*colon = '\0';
			args = colon + 1;
		}
		if (strcmp(tok, "host") == 0)
			return cc_error_set(
				err, -EOPNOTSUPP,
				"--net=%.200s: a VM cannot share the host's network stack (use "
				"--net=default, a named network or --net=none)",
				w->value);
		if (strcmp(tok, "none") == 0 || strcmp(tok, "all") == 0) {
			if (colon)
				return cc_error_set(err, -EINVAL,
						    "--net=%.200s: \"%s\" takes no arguments",
						    w->value, tok);
			if (tok[0] == 'n')
				w->none = true;
			else
				w->all = true;
			continue;
		}
		if (!net_name_valid(tok))
			return cc_error_set(err, -EINVAL,
					    "--net=%.200s: invalid network name \"%s\"", w->value,
					    tok);
		if (!args_valid(args))
			return cc_error_set(err, -EINVAL,
					    "--net=%.200s: invalid CNI_ARGS for network \"%s\"",
					    w->value, tok);
		for (size_t i = 0; i < w->n; i++)
			if (strcmp(w->v[i].name, tok) == 0)
				return cc_error_set(err, -EINVAL,
						    "--net=%.200s: network \"%s\" given twice",
						    w->value, tok);
		if (w->n >= CCNET_NETS_MAX)
			return cc_error_set(err, -E2BIG, "--net=%.200s: more than %d networks",
					    w->value, CCNET_NETS_MAX);
		strcpy(w->v[w->n].name, tok);
		w->v[w->n].args = args;
		w->n++;
	}
	if (w->none && (w->all || w->n > 0))
		return cc_error_set(err, -EINVAL,
				    "--net=%.200s: none cannot be combined with networks",
				    w->value);
	if (!w->none && !w->all && w->n == 0)
		return cc_error_set(err, -EINVAL, "--net=%.200s: empty network list", w->value);
	return 0;
}

void ccnet_selection_done(struct ccnet_selection *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->nets[i].name);
		free(s->nets[i].type);
		free(s->nets[i].args);
		free(s->nets[i].conf);
		free(s->nets[i].source);
	}
	memset(s, 0, sizeof(*s));
}

/* Parse conf (from source) into c, without args. */
static int conf_load(const char *conf, size_t len, const char *source, struct ccnet_conf *c,
		     struct cc_error *err)
{
	json_object *root = NULL, *masq;
	const char *name, *type;
	int r = 0;

	if (ccnet_json_parse_object(conf, len, &root) < 0)
		return cc_error_set(err, -EBADMSG, "%s: not a JSON object", source);
	name = ccnet_json_get_string(root, "name");
	type = ccnet_json_get_string(root, "type");
	if (!name || !type)
		r = cc_error_set(err, -EBADMSG, "%s: no string \"name\" and \"type\"", source);
	else if (!*type || strchr(type, '/') || strcmp(type, ".") == 0 || strcmp(type, "..") == 0)
		r = cc_error_set(err, -EBADMSG, "%s: invalid plugin type \"%s\"", source, type);
	if (r < 0) {
		json_object_put(root);
		return r;
	}
	masq = ccnet_json_get(root, "ipMasq");
	c->ip_masq = masq && json_object_get_boolean(masq);
	c->name = strdup(name);
	c->type = strdup(type);
	c->conf = strndup(conf, len);
	c->source = strdup(source);
	json_object_put(root);
	if (!c->name || !c->type || !c->conf || !c->source)
		return -ENOMEM;
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

static int selection_has(const struct ccnet_selection *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->nets[i].name, name) == 0)
			return 1;
	return 0;
}

static struct wanted *want_find(struct want_list *w, const char *name)
{
	for (size_t i = 0; i < w->n; i++)
		if (strcmp(w->v[i].name, name) == 0)
			return &w->v[i];
	return NULL;
}

/* Add c to the selection if wanted and not yet there; takes c's contents either way. */
static int selection_offer(struct ccnet_selection *s, struct want_list *w, struct ccnet_conf *c,
			   struct cc_error *err)
{
	struct wanted *want = want_find(w, c->name);
	struct ccnet_selection tmp = {.n = 1};

	tmp.nets[0] = *c;
	memset(c, 0, sizeof(*c));
	if ((!w->all && !want) || selection_has(s, tmp.nets[0].name)) {
		ccnet_selection_done(&tmp);
		return 0;
	}
	if (!net_name_valid(tmp.nets[0].name)) {
		int r = cc_error_set(err, -EBADMSG, "%s: invalid network name \"%s\"",
				     tmp.nets[0].source, tmp.nets[0].name);

		ccnet_selection_done(&tmp);
		return r;
	}
	if (s->n >= CCNET_NETS_MAX) {
		ccnet_selection_done(&tmp);
		return cc_error_set(err, -E2BIG, "--net=%.200s: more than %d networks", w->value,
				    CCNET_NETS_MAX);
	}
	tmp.nets[0].args = strdup(want ? want->args : "");
	if (!tmp.nets[0].args) {
		ccnet_selection_done(&tmp);
		return -ENOMEM;
	}
	if (want)
		want->found = true;
	s->nets[s->n++] = tmp.nets[0];
	return 0;
}

static void names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static int dir_names(DIR *d, char ***ret, size_t *ret_n)
{
	char **v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;

	while ((errno = 0, de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (l <= 5 || strcmp(de->d_name + l - 5, ".conf") != 0)
			continue;
		if (n == cap) {
			char **nv = reallocarray(v, cap ? cap * 2 : 16, sizeof(*v));

			if (!nv) {
				names_free(v, n);
				return -ENOMEM;
			}
			v = nv;
			cap = cap ? cap * 2 : 16;
		}
		v[n] = strdup(de->d_name);
		if (!v[n]) {
			names_free(v, n);
			return -ENOMEM;
		}
		n++;
	}
	if (errno) {
		int r = -errno;

		names_free(v, n);
		return r;
	}
	if (n)
		qsort(v, n, sizeof(*v), name_cmp);
	*ret = v;
	*ret_n = n;
	return 0;
}

static int dir_load(const char *dir, struct ccnet_selection *s, struct want_list *w,
		    struct cc_error *err)
{
	_cleanup_(closedirp) DIR *d = NULL;
	char **names = NULL;
	size_t n = 0;
	int r;

	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : cc_error_set(err, -errno, "%s: %m", dir);
	r = dir_names(d, &names, &n);
	if (r < 0)
		return cc_error_set(err, r, "%s: %m", dir);
	for (size_t i = 0; i < n && r >= 0; i++) {
		_cleanup_free_ char *path = NULL, *buf = NULL;
		struct ccnet_conf c = {};
		struct stat st;
		size_t len;

		if (asprintf(&path, "%s/%s", dir, names[i]) < 0) {
			r = -ENOMEM;
			break;
		}
		if (stat(path, &st) < 0) {
			r = cc_error_set(err, -errno, "%s: %m", path);
			break;
		}
		if (S_ISDIR(st.st_mode))
			continue;
		r = read_full_file(path, CONF_SIZE_MAX, &buf, &len);
		if (r < 0) {
			r = cc_error_set(err, r, "%s: %m", path);
			break;
		}
		r = conf_load(buf, len, path, &c, err);
		if (r >= 0)
			r = selection_offer(s, w, &c, err);
		else
			ccnet_selection_done(&(struct ccnet_selection){.nets[0] = c, .n = 1});
	}
	names_free(names, n);
	return r;
}

static int missing_error(const struct want_list *w, const char *const *dirs, struct cc_error *err)
{
	char names[CC_ERROR_MSG_MAX] = "", where[CC_ERROR_MSG_MAX] = "";
	size_t nl = 0, wl = 0;

	for (size_t i = 0; i < w->n; i++)
		if (!w->v[i].found)
			nl += (size_t) snprintf(names + nl,
						nl < sizeof(names) ? sizeof(names) - nl : 0, "%s%s",
						nl ? ", " : "", w->v[i].name);
	for (size_t i = 0; dirs && dirs[i]; i++)
		wl += (size_t) snprintf(where + wl, wl < sizeof(where) ? sizeof(where) - wl : 0,
					"%s%s", wl ? ", " : "", dirs[i]);
	return cc_error_set(err, -ENOENT, "--net=%.200s: network(s) not found: %s (looked in %s)",
			    w->value, names, wl ? where : "no directory");
}

int ccnet_select(const char *net_value, const char *const *conf_dirs, struct ccnet_selection *ret,
		 struct cc_error *reterr)
{
	_cleanup_free_ char *copy = NULL;
	struct ccnet_selection s = {};
	struct want_list w = {};
	int r;

	assert_return(ret, -EINVAL);
	/* rkt passes "default" when --net has no value; be as lenient with an empty one. */
	copy = strdup(net_value && *net_value ? net_value : CCNET_DEFAULT_NAME);
	if (!copy)
		return -ENOMEM;
	w.value = net_value && *net_value ? net_value : CCNET_DEFAULT_NAME;
	r = want_parse(copy, &w, reterr);
	if (r < 0)
		return r;
	memset(ret, 0, sizeof(*ret));
	if (w.none)
		return 0;
	for (size_t i = 0; conf_dirs && conf_dirs[i]; i++) {
		r = dir_load(conf_dirs[i], &s, &w, reterr);
		if (r < 0)
			goto fail;
	}
	if (!selection_has(&s, CCNET_DEFAULT_NAME) && !selection_has(&s, CCNET_RESTRICTED)) {
		bool dflt = w.all || want_find(&w, CCNET_DEFAULT_NAME);
		const char *conf = dflt ? default_conf : restricted_conf;
		struct ccnet_conf c = {};
		bool was_all = w.all;

		r = conf_load(conf, strlen(conf), "built-in", &c, reterr);
		if (r < 0)
			goto fail;
		w.all = true; /* the built-in is added even when not named */
		r = selection_offer(&s, &w, &c, reterr);
		w.all = was_all;
		if (r < 0)
			goto fail;
	}
	for (size_t i = 0; i < w.n; i++)
		if (!w.v[i].found) {
			r = missing_error(&w, conf_dirs, reterr);
			goto fail;
		}
	*ret = s;
	return 0;
fail:
	ccnet_selection_done(&s);
	return r;
}
