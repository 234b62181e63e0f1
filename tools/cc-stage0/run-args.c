/* SPDX-License-Identifier: Apache-2.0 */
/* The flags of `cc-stage0 run`: rkt run's, as far as a VM stage1 uses them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cc/log.h"
#include "cc/macro.h"
#include "stage0.h"

int strv_push(struct strv *s, const char *str)
{
	const char **v = reallocarray(s->v, s->n + 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	v[s->n++] = str;
	s->v = v;
	return 0;
}

void strv_done(struct strv *s)
{
	free(s->v);
	*s = (struct strv){};
}

const char *stage0_flag_value(int argc, char **argv, int *i, const char *flag)
{
	size_t l = strlen(flag);

	if (strncmp(argv[*i], flag, l) != 0)
		return NULL;
	if (argv[*i][l] == '=')
		return argv[*i] + l + 1;
	if (argv[*i][l] == '\0' && *i + 1 < argc)
		return argv[++*i];
	return NULL;
}

/* The flags that follow an image; returns the index of the next unparsed argument. */
static int app_flags_parse(struct stage0_app *a, int argc, char **argv, int i)
{
	const char *v;
	int r;

	for (; i < argc; i++) {
		if (streq(argv[i], "--")) {
			for (i++; i < argc && !streq(argv[i], "---"); i++) {
				r = strv_push(&a->args, argv[i]);
				if (r < 0)
					return r;
			}
			continue; /* skips the "---" */
		}
		if ((v = stage0_flag_value(argc, argv, &i, "--name")))
			a->name = v;
		else if ((v = stage0_flag_value(argc, argv, &i, "--exec")))
			a->exec = v;
		else if ((v = stage0_flag_value(argc, argv, &i, "--user")))
			a->user = v;
		else if ((v = stage0_flag_value(argc, argv, &i, "--group")))
			a->group = v;
		else if ((v = stage0_flag_value(argc, argv, &i, "--set-env"))) {
			if (!strchr(v, '='))
				return log_error_errno(EINVAL, "--set-env=%s: expected NAME=VALUE",
						       v);
			r = strv_push(&a->set_env, v);
			if (r < 0)
				return r;
		} else if ((v = stage0_flag_value(argc, argv, &i, "--user-annotation"))) {
			if (!strchr(v, '=') || v[0] == '=')
				return log_error_errno(
					EINVAL, "--user-annotation=%s: expected NAME=VALUE", v);
			r = strv_push(&a->user_annotations, v);
			if (r < 0)
				return r;
		} else if (argv[i][0] == '-')
			return log_error_errno(EINVAL, "unknown app flag %s", argv[i]);
		else
			break;
	}
	return i;
}

int run_opts_parse(struct run_opts *o, int argc, char **argv)
{
	const char *v;
	int i = 1, r;

	for (; i < argc && argv[i][0] == '-'; i++) {
		struct strv *list = NULL;

		if (streq(argv[i], "--interactive"))
			o->interactive = true;
		else if (streq(argv[i], "--no-overlay"))
			o->no_overlay = true;
		else if ((v = stage0_flag_value(argc, argv, &i, "--stage1")))
			o->stage1 = v;
		else if (streq(argv[i], "--net"))
			o->net = "default"; /* rkt: --net without a value is the default network */
		else if ((v = stage0_flag_value(argc, argv, &i, "--net")))
			o->net = v;
		else if ((v = stage0_flag_value(argc, argv, &i, "--hostname")))
			o->hostname = v;
		else if ((v = stage0_flag_value(argc, argv, &i, "--ipc")))
			o->ipc = v;
		else if ((v = stage0_flag_value(argc, argv, &i, "--pod-manifest")))
			o->pod_manifest = v;
		else if ((v = stage0_flag_value(argc, argv, &i, "--mds-token"))) {
			if (!*v || strspn(v, "0123456789abcdef") != strlen(v))
				return log_error_errno(EINVAL,
						       "--mds-token=%s: expected hex digits", v);
			o->mds_token = v;
		} else if ((v = stage0_flag_value(argc, argv, &i, "--uuid-file-save")))
			o->uuid_file = v;
		else if ((v = stage0_flag_value(argc, argv, &i, "--dns-domain")))
			o->dns_domain = v;
		else if ((v = stage0_flag_value(argc, argv, &i, "--dns-search")))
			list = &o->dns_search;
		else if ((v = stage0_flag_value(argc, argv, &i, "--dns-opt")))
			list = &o->dns_opt;
		else if ((v = stage0_flag_value(argc, argv, &i, "--dns")))
			list = &o->dns;
		else if ((v = stage0_flag_value(argc, argv, &i, "--hosts-entry")))
			list = &o->hosts_entries;
		else if ((v = stage0_flag_value(argc, argv, &i, "--volume")))
			list = &o->volumes;
		else if ((v = stage0_flag_value(argc, argv, &i, "--port")))
			list = &o->ports;
		else
			return log_error_errno(EINVAL, "unknown run flag %s (see --help)", argv[i]);
		if (list) {
			r = strv_push(list, v);
			if (r < 0)
				return log_oom();
		}
	}

	while (i < argc) {
		struct stage0_app *apps = reallocarray(o->apps, o->n_apps + 1, sizeof(*apps));

		if (!apps)
			return log_oom();
		o->apps = apps;
		apps[o->n_apps] = (struct stage0_app){.aci = argv[i]};
		r = app_flags_parse(&apps[o->n_apps++], argc, argv, i + 1);
		if (r < 0)
			return r;
		i = r;
	}
	if (o->n_apps == 0)
		return log_error_errno(EINVAL, "run: no image given (see --help)");
	if (o->interactive && o->n_apps > 1)
		return log_error_errno(EINVAL, "run: --interactive needs exactly one app");
	return 0;
}

void run_opts_done(struct run_opts *o)
{
	for (size_t i = 0; i < o->n_apps; i++) {
		strv_done(&o->apps[i].args);
		strv_done(&o->apps[i].set_env);
		strv_done(&o->apps[i].user_annotations);
	}
	free(o->apps);
	strv_done(&o->dns);
	strv_done(&o->dns_search);
	strv_done(&o->dns_opt);
	strv_done(&o->hosts_entries);
	strv_done(&o->volumes);
	strv_done(&o->ports);
	*o = (struct run_opts){};
}
