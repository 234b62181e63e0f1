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

int vm_config_add_hostvol(struct vm_config *cfg, const char *spec, struct cc_error *err)
{
	static const char usage[] = "expected TAG or TAG:DEV:INO:UID:GID (decimal numbers, UID "
				    "and GID below 4294967295)";
	struct vm_hostvol_config h = {};
	uint64_t uid, gid;
	const char *colon, *p;
	size_t tag_len;
	unsigned i;
	int share;

	assert_return(cfg && spec, -EINVAL);
	colon = strchr(spec, ':');
	h.export_root = !colon;
	tag_len = colon ? (size_t) (colon - spec) : strlen(spec);
	share = vm_config_find_share(cfg, spec, tag_len);
	if (share < 0)
		return cc_error_set(err, share, "no --9p share with that tag before it");
	h.share = (unsigned) share;
	if (h.export_root) {
		for (i = 0; i < cfg->n_hostvols; i++)
			if (cfg->hostvols[i].share == h.share && cfg->hostvols[i].export_root)
				return cc_error_set(err, -EEXIST, "that share is already one");
		goto add;
	}
	p = colon + 1;
	/* uid and gid (uint32_t)-1 mean "unchanged" to chown(2): never an owner. */
	if (hostvol_field(&p, false, UINT64_MAX, &h.dev) < 0 ||
	    hostvol_field(&p, false, UINT64_MAX, &h.ino) < 0 ||
	    hostvol_field(&p, false, UINT32_MAX - 1, &uid) < 0 ||
	    hostvol_field(&p, true, UINT32_MAX - 1, &gid) < 0)
		return cc_error_set(err, -EINVAL, "%s", usage);
	h.uid = (uint32_t) uid;
	h.gid = (uint32_t) gid;
	for (i = 0; i < cfg->n_hostvols; i++)
		if (cfg->hostvols[i].share == h.share && !cfg->hostvols[i].export_root &&
		    cfg->hostvols[i].dev == h.dev && cfg->hostvols[i].ino == h.ino)
			return cc_error_set(err, -EEXIST, "that DEV:INO is already a host volume");
add:
	if (cfg->n_hostvols >= VM_MAX_HOSTVOLS)
		return cc_error_set(err, -E2BIG, "%s",
				    "at most " STRINGIFY(VM_MAX_HOSTVOLS) " host volumes");
	cfg->hostvols[cfg->n_hostvols++] = h;
	return 0;
}
