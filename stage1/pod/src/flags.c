/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flags-util.h"
#include "util.h"
#include "stage1/flags.h"

#define MDS_TOKEN_MAX	 256
#define LOCAL_CONFIG_MAX 4096

const char *flag_value(const char *arg, const char *name)
{
	size_t n = strlen(name);

	if (strncmp(arg, name, n) != 0 || arg[n] != '=')
		return NULL;
	return arg + n + 1;
}

bool flag_is(const char *arg, const char *name)
{
	size_t n = strlen(name);

	return strncmp(arg, name, n) == 0 && (arg[n] == '\0' || arg[n] == '=');
}

const char *flag_printable(const char *arg, char *buf, size_t size)
{
	size_t i;

	for (i = 0; arg[i] && i + 4 < size && i < 64; i++)
		buf[i] = ((unsigned char) arg[i] < 0x20 || arg[i] == 0x7f) ? '?' : arg[i];
	if (arg[i])
		buf[i++] = '.', buf[i++] = '.', buf[i++] = '.';
	buf[i] = '\0';
	return buf;
}

int flag_uuid(const char *arg, char out[STAGE1_UUID_STRING_MAX], struct cc_error *reterr)
{
	char p[80];

	if (!stage1_uuid_is_valid(arg))
		return cc_error_set(reterr, -EINVAL, "'%s' is not a valid pod UUID",
				    flag_printable(arg, p, sizeof(p)));
	memcpy(out, arg, STAGE1_UUID_STRING_MAX);
	return 0;
}

/* Parses "<u32>" fully; no sign, no leading space, no empty string. */
static int parse_u32(const char *s, uint32_t *ret)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || v > UINT32_MAX)
		return -EINVAL;
	*ret = (uint32_t) v;
	return 0;
}

static int parse_private_users(const char *v, struct run_flags *f, struct cc_error *reterr)
{
	char buf[32], p[80];
	const char *colon = strchr(v, ':');
	size_t n;

	if (!colon || (n = (size_t) (colon - v)) >= sizeof(buf))
		goto bad;
	memcpy(buf, v, n);
	buf[n] = '\0';
	if (parse_u32(buf, &f->private_users_base) < 0 ||
	    parse_u32(colon + 1, &f->private_users_count) < 0 || f->private_users_base == 0 ||
	    f->private_users_count == 0 ||
	    (uint64_t) f->private_users_base + f->private_users_count > UINT32_MAX)
		goto bad;
	f->private_users = true;
	return 0;
bad:
	return cc_error_set(reterr, -EINVAL,
			    "--private-users=%s: expected <uid base>:<count>, both positive",
			    flag_printable(v, p, sizeof(p)));
}

static int parse_mds_token(const char *v, struct run_flags *f, struct cc_error *reterr)
{
	size_t n = strlen(v);

	if (n == 0 || n > MDS_TOKEN_MAX)
		return cc_error_set(reterr, -EINVAL, "--mds-token: expected 1 to %d characters",
				    MDS_TOKEN_MAX);
	for (size_t i = 0; i < n; i++) {
		char c = v[i];

		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
			return cc_error_set(reterr, -EINVAL,
					    "--mds-token: only letters and digits are allowed");
	}
	f->mds_token = v;
	return 0;
}

static int parse_dns_conf_mode(const char *v, struct run_flags *f, struct cc_error *reterr)
{
	static const char *const resolv[_DNS_RESOLV_MAX] = {
		[DNS_RESOLV_DEFAULT] = "default",
		[DNS_RESOLV_HOST] = "host",
		[DNS_RESOLV_STAGE0] = "stage0",
		[DNS_RESOLV_NONE] = "none",
	};
	static const char *const hosts[_DNS_HOSTS_MAX] = {
		[DNS_HOSTS_DEFAULT] = "default",
		[DNS_HOSTS_HOST] = "host",
		[DNS_HOSTS_STAGE0] = "stage0",
	};
	bool seen_resolv = false, seen_hosts = false;
	const char *p = v;
	char pr[80];

	for (;;) {
		const char *end = strchrnul(p, ','), *val;
		bool is_resolv;
		size_t n;
		int found = -1;

		if (strncmp(p, "resolv=", 7) == 0 && !seen_resolv) {
			is_resolv = true;
			val = p + 7;
		} else if (strncmp(p, "hosts=", 6) == 0 && !seen_hosts) {
			is_resolv = false;
			val = p + 6;
		} else {
			goto bad;
		}
		n = (size_t) (end - val);
		for (int i = 0; i < (is_resolv ? _DNS_RESOLV_MAX : _DNS_HOSTS_MAX); i++) {
			const char *name = is_resolv ? resolv[i] : hosts[i];

			if (strlen(name) == n && strncmp(val, name, n) == 0)
				found = i;
		}
		if (found < 0)
			goto bad;
		if (is_resolv) {
			f->dns_resolv = (enum dns_resolv_mode) found;
			seen_resolv = true;
		} else {
			f->dns_hosts = (enum dns_hosts_mode) found;
			seen_hosts = true;
		}
		if (*end == '\0')
			break;
		p = end + 1;
	}
	return 0;
bad:
	return cc_error_set(reterr, -EINVAL,
			    "--dns-conf-mode=%s: expected resolv=<host|stage0|none|default>,"
			    "hosts=<host|stage0|default>",
			    flag_printable(v, pr, sizeof(pr)));
}

static int parse_ipc(const char *v, struct run_flags *f, struct cc_error *reterr)
{
	char p[80];

	for (int i = IPC_MODE_AUTO; i < _IPC_MODE_MAX; i++)
		if (streq(v, ipc_mode_to_string((enum ipc_mode) i))) {
			f->ipc = (enum ipc_mode) i;
			return 0;
		}
	return cc_error_set(reterr, -EINVAL, "--ipc=%s: expected auto, private or parent",
			    flag_printable(v, p, sizeof(p)));
}

enum run_flag {
	RF_DEBUG,
	RF_NET,
	RF_INTERACTIVE,
	RF_PRIVATE_USERS,
	RF_MDS_TOKEN,
	RF_LOCAL_CONFIG,
	RF_HOSTNAME,
	RF_DNS_CONF_MODE,
	RF_DISABLE_CAPS,
	RF_DISABLE_PATHS,
	RF_DISABLE_SECCOMP,
	RF_MUTABLE,
	RF_IPC,
	_RF_MAX,
};

static const struct {
	const char *name;
	bool has_value;
} run_flag_table[_RF_MAX] = {
	[RF_DEBUG] = {"--debug", false},
	[RF_NET] = {"--net", true},
	[RF_INTERACTIVE] = {"--interactive", false},
	[RF_PRIVATE_USERS] = {"--private-users", true},
	[RF_MDS_TOKEN] = {"--mds-token", true},
	[RF_LOCAL_CONFIG] = {"--local-config", true},
	[RF_HOSTNAME] = {"--hostname", true},
	[RF_DNS_CONF_MODE] = {"--dns-conf-mode", true},
	[RF_DISABLE_CAPS] = {"--disable-capabilities-restriction", false},
	[RF_DISABLE_PATHS] = {"--disable-paths", false},
	[RF_DISABLE_SECCOMP] = {"--disable-seccomp", false},
	[RF_MUTABLE] = {"--mutable", false},
	[RF_IPC] = {"--ipc", true},
};

static int run_flag_apply(enum run_flag k, const char *v, struct run_flags *f,
			  struct cc_error *reterr)
{
	char p[80];

	switch (k) {
	case RF_DEBUG:
		f->debug = true;
		return 0;
	case RF_NET:
		if (*v == '\0' || strlen(v) > 4096)
			return cc_error_set(reterr, -EINVAL, "--net: expected a value");
		f->net = v;
		return 0;
	case RF_INTERACTIVE:
		f->interactive = true;
		return 0;
	case RF_PRIVATE_USERS:
		return parse_private_users(v, f, reterr);
	case RF_MDS_TOKEN:
		return parse_mds_token(v, f, reterr);
	case RF_LOCAL_CONFIG:
		if (v[0] != '/' || strlen(v) >= LOCAL_CONFIG_MAX)
			return cc_error_set(reterr, -EINVAL,
					    "--local-config=%s: expected an absolute path",
					    flag_printable(v, p, sizeof(p)));
		f->local_config = v;
		return 0;
	case RF_HOSTNAME:
		if (!stage1_hostname_is_valid(v))
			return cc_error_set(reterr, -EINVAL,
					    "--hostname=%s: not a valid host name (1-64 of "
					    "[A-Za-z0-9.-], labels not starting or ending "
					    "with '-')",
					    flag_printable(v, p, sizeof(p)));
		f->hostname = v;
		return 0;
	case RF_DNS_CONF_MODE:
		return parse_dns_conf_mode(v, f, reterr);
	case RF_DISABLE_CAPS:
		f->disable_capabilities = true;
		return 0;
	case RF_DISABLE_PATHS:
		f->disable_paths = true;
		return 0;
	case RF_DISABLE_SECCOMP:
		f->disable_seccomp = true;
		return 0;
	case RF_MUTABLE:
		f->mutable_pod = true;
		return 0;
	case RF_IPC:
		return parse_ipc(v, f, reterr);
	default:
		return cc_error_set(reterr, -EINVAL, "internal error: unknown flag");
	}
}

int run_flags_parse(int argc, char *const *argv, struct run_flags *ret, struct cc_error *reterr)
{
	struct run_flags f = {
		.net = "default",
		.dns_resolv = DNS_RESOLV_DEFAULT,
		.dns_hosts = DNS_HOSTS_DEFAULT,
		.ipc = IPC_MODE_UNSET,
	};
	bool seen[_RF_MAX] = {};
	const char *uuid = NULL;
	char p[80];
	int r;

	assert_return(argv && ret, -EINVAL);

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int k;

		if (!a)
			return cc_error_set(reterr, -EINVAL, "NULL argument");
		if (a[0] != '-' || a[1] != '-' || a[2] == '\0') {
			if (a[0] == '-')
				return cc_error_set(reterr, -EINVAL, "unknown flag '%s'",
						    flag_printable(a, p, sizeof(p)));
			if (uuid)
				return cc_error_set(reterr, -EINVAL,
						    "unexpected argument '%s' (the pod UUID "
						    "must be the last and only positional)",
						    flag_printable(a, p, sizeof(p)));
			uuid = a;
			continue;
		}
		if (uuid)
			return cc_error_set(reterr, -EINVAL,
					    "flag '%s' after the pod UUID (it must come last)",
					    flag_printable(a, p, sizeof(p)));
		for (k = 0; k < _RF_MAX; k++)
			if (flag_is(a, run_flag_table[k].name))
				break;
		if (k == _RF_MAX)
			return cc_error_set(reterr, -EINVAL, "unknown flag '%s'",
					    flag_printable(a, p, sizeof(p)));
		if (seen[k])
			return cc_error_set(reterr, -EINVAL, "%s given twice",
					    run_flag_table[k].name);
		seen[k] = true;
		if (run_flag_table[k].has_value) {
			const char *v = flag_value(a, run_flag_table[k].name);

			if (!v)
				return cc_error_set(reterr, -EINVAL, "%s: expected %s=<value>",
						    run_flag_table[k].name, run_flag_table[k].name);
			r = run_flag_apply((enum run_flag) k, v, &f, reterr);
		} else {
			if (!streq(a, run_flag_table[k].name))
				return cc_error_set(reterr, -EINVAL, "%s takes no value",
						    run_flag_table[k].name);
			r = run_flag_apply((enum run_flag) k, NULL, &f, reterr);
		}
		if (r < 0)
			return r;
	}
	if (!uuid)
		return cc_error_set(reterr, -EINVAL, "missing the pod UUID (last argument)");
	r = flag_uuid(uuid, f.uuid, reterr);
	if (r < 0)
		return r;
	*ret = f;
	return 0;
}

bool run_flags_net_is_none(const struct run_flags *f)
{
	return f && f->net && streq(f->net, "none");
}

int run_flags_check_supported(const struct run_flags *f, struct cc_error *reterr)
{
	assert_return(f, -EINVAL);
	/* --net is checked by the network selection (stage1/net: `host` is refused there). */
	if (f->private_users)
		return cc_error_set(reterr, -EOPNOTSUPP,
				    "--private-users: user namespaces are not supported by "
				    "this stage1 (each pod is a VM)");
	if (f->ipc == IPC_MODE_PARENT)
		return cc_error_set(reterr, -EOPNOTSUPP,
				    "--ipc=parent: a pod VM cannot share the host's IPC "
				    "namespace");
	if (f->mutable_pod)
		return cc_error_set(reterr, -EOPNOTSUPP,
				    "--mutable: mutable pods (rkt app sandbox) are not "
				    "supported by this stage1");
	return 0;
}
