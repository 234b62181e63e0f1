/* SPDX-License-Identifier: Apache-2.0 */
/* The stop, enter and gc command lines, and the mode names. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "flags-util.h"
#include "stage1/flags.h"
#include "util.h"

const char *dns_resolv_mode_to_string(enum dns_resolv_mode m)
{
	static const char *const t[_DNS_RESOLV_MAX] = {
		[DNS_RESOLV_DEFAULT] = "default",
		[DNS_RESOLV_HOST] = "host",
		[DNS_RESOLV_STAGE0] = "stage0",
		[DNS_RESOLV_NONE] = "none",
	};
	return m >= 0 && m < _DNS_RESOLV_MAX ? t[m] : NULL;
}

const char *dns_hosts_mode_to_string(enum dns_hosts_mode m)
{
	static const char *const t[_DNS_HOSTS_MAX] = {
		[DNS_HOSTS_DEFAULT] = "default",
		[DNS_HOSTS_HOST] = "host",
		[DNS_HOSTS_STAGE0] = "stage0",
	};
	return m >= 0 && m < _DNS_HOSTS_MAX ? t[m] : NULL;
}

const char *ipc_mode_to_string(enum ipc_mode m)
{
	static const char *const t[_IPC_MODE_MAX] = {
		[IPC_MODE_UNSET] = "",
		[IPC_MODE_AUTO] = "auto",
		[IPC_MODE_PRIVATE] = "private",
		[IPC_MODE_PARENT] = "parent",
	};
	return m >= 0 && m < _IPC_MODE_MAX ? t[m] : NULL;
}

/* The last argument is the UUID, every other one must be consumed by the caller's loop. */
static int last_uuid(int argc, char *const *argv, char out[STAGE1_UUID_STRING_MAX],
		     struct cc_error *reterr)
{
	char p[80];

	if (argc < 2 || !argv[argc - 1])
		return cc_error_set(reterr, -EINVAL, "missing the pod UUID (last argument)");
	if (argv[argc - 1][0] == '-')
		return cc_error_set(reterr, -EINVAL, "missing the pod UUID (last argument is '%s')",
				    flag_printable(argv[argc - 1], p, sizeof(p)));
	return flag_uuid(argv[argc - 1], out, reterr);
}

static int unexpected(const char *a, struct cc_error *reterr)
{
	char p[80];

	if (a[0] == '-')
		return cc_error_set(reterr, -EINVAL, "unknown flag '%s'",
				    flag_printable(a, p, sizeof(p)));
	return cc_error_set(reterr, -EINVAL,
			    "unexpected argument '%s' (the pod UUID must be the last and only "
			    "positional)",
			    flag_printable(a, p, sizeof(p)));
}

int stop_flags_parse(int argc, char *const *argv, struct stop_flags *ret, struct cc_error *reterr)
{
	struct stop_flags f = {};
	int r;

	assert_return(argv && ret, -EINVAL);
	r = last_uuid(argc, argv, f.uuid, reterr);
	if (r < 0)
		return r;
	for (int i = 1; i < argc - 1; i++) {
		if (!argv[i])
			return cc_error_set(reterr, -EINVAL, "NULL argument");
		if (!streq(argv[i], "--force"))
			return unexpected(argv[i], reterr);
		if (f.force)
			return cc_error_set(reterr, -EINVAL, "--force given twice");
		f.force = true;
	}
	*ret = f;
	return 0;
}

int gc_flags_parse(int argc, char *const *argv, struct gc_flags *ret, struct cc_error *reterr)
{
	struct gc_flags f = {};
	char p[80];
	int r;

	assert_return(argv && ret, -EINVAL);
	r = last_uuid(argc, argv, f.uuid, reterr);
	if (r < 0)
		return r;
	for (int i = 1; i < argc - 1; i++) {
		const char *a = argv[i], *v;

		if (!a)
			return cc_error_set(reterr, -EINVAL, "NULL argument");
		if (streq(a, "--debug")) {
			if (f.debug)
				return cc_error_set(reterr, -EINVAL, "--debug given twice");
			f.debug = true;
			continue;
		}
		if (!flag_is(a, "--local-config"))
			return unexpected(a, reterr);
		if (f.local_config)
			return cc_error_set(reterr, -EINVAL, "--local-config given twice");
		v = flag_value(a, "--local-config");
		if (!v) {
			/* rkt sends "--local-config <dir>" as two arguments. */
			if (i + 1 >= argc - 1)
				return cc_error_set(reterr, -EINVAL,
						    "--local-config: missing the directory");
			v = argv[++i];
		}
		if (!v || v[0] != '/' || strlen(v) >= 4096)
			return cc_error_set(reterr, -EINVAL,
					    "--local-config %s: expected an absolute path",
					    v ? flag_printable(v, p, sizeof(p)) : "(null)");
		f.local_config = v;
	}
	*ret = f;
	return 0;
}

static int parse_pid(const char *v, pid_t *ret, struct cc_error *reterr)
{
	char *end, p[80];
	long n;

	errno = 0;
	n = (v[0] >= '0' && v[0] <= '9') ? strtol(v, &end, 10) : -1;
	if (n <= 0 || errno != 0 || *end != '\0' || n > 4194304)
		return cc_error_set(reterr, -EINVAL, "--pid=%s: expected a process ID",
				    flag_printable(v, p, sizeof(p)));
	*ret = (pid_t) n;
	return 0;
}

int enter_flags_parse(int argc, char *const *argv, struct enter_flags *ret, struct cc_error *reterr)
{
	struct enter_flags f = {};
	char p[80];
	int i, r;

	assert_return(argv && ret, -EINVAL);
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v;

		if (!a)
			return cc_error_set(reterr, -EINVAL, "NULL argument");
		if (streq(a, "--"))
			break;
		if (flag_is(a, "--pid")) {
			if (f.pid)
				return cc_error_set(reterr, -EINVAL, "--pid given twice");
			v = flag_value(a, "--pid");
			if (!v)
				return cc_error_set(reterr, -EINVAL, "--pid: expected --pid=<pid>");
			r = parse_pid(v, &f.pid, reterr);
			if (r < 0)
				return r;
		} else if (flag_is(a, "--appname")) {
			if (f.app_name)
				return cc_error_set(reterr, -EINVAL, "--appname given twice");
			v = flag_value(a, "--appname");
			if (!v || !stage1_ac_name_is_valid(v))
				return cc_error_set(reterr, -EINVAL,
						    "--appname=%s: expected an app name",
						    v ? flag_printable(v, p, sizeof(p)) : "");
			f.app_name = v;
		} else if (a[0] == '-') {
			return cc_error_set(reterr, -EINVAL, "unknown flag '%s'",
					    flag_printable(a, p, sizeof(p)));
		} else {
			return cc_error_set(reterr, -EINVAL, "unexpected argument '%s' before '--'",
					    flag_printable(a, p, sizeof(p)));
		}
	}
	if (!f.pid)
		return cc_error_set(reterr, -EINVAL, "missing --pid=<pid>");
	if (!f.app_name)
		return cc_error_set(reterr, -EINVAL, "missing --appname=<app>");
	if (i >= argc)
		return cc_error_set(reterr, -EINVAL, "missing '--' before the command");
	if (i + 1 >= argc || !argv[i + 1] || argv[i + 1][0] == '\0')
		return cc_error_set(reterr, -EINVAL, "missing the command after '--'");
	for (int k = i + 1; k < argc; k++)
		if (!argv[k])
			return cc_error_set(reterr, -EINVAL, "NULL argument");
	f.cmd = argv + i + 1;
	f.n_cmd = (size_t) (argc - i - 1);
	*ret = f;
	return 0;
}
