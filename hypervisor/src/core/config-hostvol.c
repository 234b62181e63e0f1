/* SPDX-License-Identifier: Apache-2.0 */
/*
 * --9p-hostvol TAG:DEV:INO:UID:GID or TAG (vm.h, struct vm_hostvol_config): a host volume
 * inside an export already given with --9p, or the whole export. Parsed strictly, like the
 * other device options in config.c.
 */
#include <errno.h>
#include <string.h>

#include "cc/macro.h"
#include "vmm/vm.h"

static int hostvol_refuse(const char **ret_reason, const char *reason, int err)
{
	*ret_reason = reason;
	return err;
}

/* One decimal field up to the next ':' (or the end for the last); advances *s. */
static int hostvol_field(const char **s, bool last, uint64_t max, uint64_t *ret)
{
	const char *p = *s;
	uint64_t v = 0;
	size_t n = 0;

	for (; p[n] >= '0' && p[n] <= '9'; n++) {
		if (v > (max - (uint64_t) (p[n] - '0')) / 10)
			return -ERANGE;
		v = v * 10 + (uint64_t) (p[n] - '0');
	}
	if (n == 0 || p[n] != (last ? '\0' : ':'))
		return -EINVAL;
	*s = p + n + (last ? 0 : 1);
	*ret = v;
	return 0;
}

int vm_config_add_hostvol(struct vm_config *cfg, const char *spec, const char **ret_reason)
{
	static const char usage[] = "expected TAG or TAG:DEV:INO:UID:GID (decimal numbers, UID "
				    "and GID below 4294967295)";
	struct vm_hostvol_config h = {};
	uint64_t uid, gid;
	const char *colon, *p;
	size_t tag_len;
	unsigned i;
	int share;

	assert_return(cfg && spec && ret_reason, -EINVAL);
	colon = strchr(spec, ':');
	h.export_root = !colon;
	tag_len = colon ? (size_t) (colon - spec) : strlen(spec);
	share = vm_config_find_share(cfg, spec, tag_len);
	if (share < 0)
		return hostvol_refuse(ret_reason, "no --9p share with that tag before it", share);
	h.share = (unsigned) share;
	if (h.export_root) {
		for (i = 0; i < cfg->n_hostvols; i++)
			if (cfg->hostvols[i].share == h.share && cfg->hostvols[i].export_root)
				return hostvol_refuse(ret_reason, "that share is already one",
						      -EEXIST);
		goto add;
	}
	p = colon + 1;
	/* uid and gid (uint32_t)-1 mean "unchanged" to chown(2): never an owner. */
	if (hostvol_field(&p, false, UINT64_MAX, &h.dev) < 0 ||
	    hostvol_field(&p, false, UINT64_MAX, &h.ino) < 0 ||
	    hostvol_field(&p, false, UINT32_MAX - 1, &uid) < 0 ||
	    hostvol_field(&p, true, UINT32_MAX - 1, &gid) < 0)
		return hostvol_refuse(ret_reason, usage, -EINVAL);
	h.uid = (uint32_t) uid;
	h.gid = (uint32_t) gid;
	for (i = 0; i < cfg->n_hostvols; i++)
		if (cfg->hostvols[i].share == h.share && !cfg->hostvols[i].export_root &&
		    cfg->hostvols[i].dev == h.dev && cfg->hostvols[i].ino == h.ino)
			return hostvol_refuse(ret_reason, "that DEV:INO is already a host volume",
					      -EEXIST);
add:
	if (cfg->n_hostvols >= VM_MAX_HOSTVOLS)
		return hostvol_refuse(
			ret_reason, "at most " STRINGIFY(VM_MAX_HOSTVOLS) " host volumes", -E2BIG);
	cfg->hostvols[cfg->n_hostvols++] = h;
	return 0;
}
