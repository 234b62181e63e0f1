/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The device options of struct vm_config in their command-line form (--9p, --vsock, --net,
 * --blk), parsed strictly: anything unexpected is refused with a reason, nothing is guessed.
 * Pure string work: files, directories and taps are only opened by vm_new().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "blk/vblk.h"
#include "cc/macro.h"
#include "net/vnet.h"
#include "vmm/vm.h"

void vm_config_done(struct vm_config *cfg)
{
	if (!cfg)
		return;
	for (unsigned i = 0; i < cfg->n_shares; i++) {
		free(cfg->shares[i].tag);
		free(cfg->shares[i].dir);
	}
	for (unsigned i = 0; i < cfg->n_blks; i++)
		free(cfg->blks[i].path);
	free(cfg->vsock_path);
	cfg->n_shares = cfg->n_blks = 0;
	cfg->vsock_path = NULL;
	cfg->vsock_cid = 0;
}

/* "DIR" or "DIR,ro" (the same rule as vblk_spec_parse: a ",ro" suffix is the flag). */
static size_t vm_config_strip_ro(const char *s, bool *ret_ro)
{
	size_t len = strlen(s);

	*ret_ro = len >= 3 && strcmp(s + len - 3, ",ro") == 0;
	return *ret_ro ? len - 3 : len;
}

int vm_config_add_share(struct vm_config *cfg, const char *spec, struct cc_error *err)
{
	const char *colon;
	char *tag, *dir;
	size_t tag_len, dir_len;
	bool ro;

	assert_return(cfg && spec, -EINVAL);
	colon = strchr(spec, ':');
	if (!colon)
		return cc_error_set(err, -EINVAL, "expected TAG:DIR[,ro]");
	tag_len = (size_t) (colon - spec);
	if (tag_len == 0)
		return cc_error_set(err, -EINVAL, "empty tag (expected TAG:DIR[,ro])");
	if (tag_len > VM_SHARE_TAG_MAX)
		return cc_error_set(err, -ENAMETOOLONG, "%s",
				    "tag longer than " STRINGIFY(VM_SHARE_TAG_MAX) " bytes");
	dir_len = vm_config_strip_ro(colon + 1, &ro);
	if (dir_len == 0)
		return cc_error_set(err, -EINVAL, "empty directory (expected TAG:DIR[,ro])");
	if (vm_config_find_share(cfg, spec, tag_len) >= 0)
		return cc_error_set(err, -EEXIST, "tag already used");
	if (cfg->n_shares >= VM_MAX_SHARES)
		return cc_error_set(err, -E2BIG, "%s",
				    "at most " STRINGIFY(VM_MAX_SHARES) " shares");
	tag = strndup(spec, tag_len);
	dir = strndup(colon + 1, dir_len);
	if (!tag || !dir) {
		free(tag);
		free(dir);
		return cc_error_set(err, -ENOMEM, "out of memory");
	}
	cfg->shares[cfg->n_shares++] = (struct vm_share_config){tag, dir, ro, false};
	return 0;
}

int vm_config_find_share(const struct vm_config *cfg, const char *tag, size_t len)
{
	for (unsigned i = 0; i < cfg->n_shares; i++)
		if (strlen(cfg->shares[i].tag) == len && memcmp(cfg->shares[i].tag, tag, len) == 0)
			return (int) i;
	return -ENOENT;
}

int vm_config_set_share_visible(struct vm_config *cfg, const char *tag, struct cc_error *err)
{
	int i;

	assert_return(cfg && tag, -EINVAL);
	i = vm_config_find_share(cfg, tag, strlen(tag));
	if (i < 0)
		return cc_error_set(err, i, "no --9p share with that tag before it");
	cfg->shares[i].visible = true;
	return 0;
}

/* Decimal digits only (no sign, space or base prefix), at most max. */
static int vm_config_parse_dec(const char *s, size_t len, uint64_t max, uint64_t *ret)
{
	uint64_t v = 0;

	if (len == 0)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (uint64_t) (s[i] - '0');
		if (v > max)
			return -ERANGE;
	}
	*ret = v;
	return 0;
}

int vm_config_set_vsock(struct vm_config *cfg, const char *spec, struct cc_error *err)
{
	const char *colon;
	uint64_t cid;
	size_t path_len;
	char *path;
	int r;

	assert_return(cfg && spec, -EINVAL);
	if (cfg->vsock_cid != 0)
		return cc_error_set(err, -EEXIST, "only one vsock device");
	colon = strchr(spec, ':');
	if (!colon)
		return cc_error_set(err, -EINVAL, "expected CID:UDS_PATH");
	r = vm_config_parse_dec(spec, (size_t) (colon - spec), VM_VSOCK_CID_MAX, &cid);
	if (r < 0 || cid < VM_VSOCK_CID_MIN)
		return cc_error_set(err, -EINVAL, "%s",
				    "CID must be a decimal number from " STRINGIFY(
					    VM_VSOCK_CID_MIN) " to 4294967294");
	path_len = strlen(colon + 1);
	if (path_len == 0)
		return cc_error_set(err, -EINVAL, "empty socket path (expected CID:UDS_PATH)");
	if (path_len > VM_VSOCK_PATH_MAX)
		return cc_error_set(
			err, -ENAMETOOLONG, "%s",
			"socket path longer than " STRINGIFY(VM_VSOCK_PATH_MAX) " bytes");
	path = strdup(colon + 1);
	if (!path)
		return cc_error_set(err, -ENOMEM, "out of memory");
	cfg->vsock_cid = cid;
	cfg->vsock_path = path;
	return 0;
}

int vm_config_add_net(struct vm_config *cfg, const char *spec, struct cc_error *err)
{
	struct vnet_config vc;
	struct vm_net_config *n;

	assert_return(cfg && spec, -EINVAL);
	if (vnet_config_parse(spec, &vc) < 0)
		return cc_error_set(
			err, -EINVAL, "%s",
			"expected tap=NAME|fd=N[,mac=XX:XX:XX:XX:XX:XX] (NAME up to 15 bytes, "
			"unicast MAC)");
	if (vc.tap_fd >= 0 && vc.tap_fd <= 2)
		return cc_error_set(err, -EINVAL, "fd 0-2 are standard input and output");
	for (unsigned i = 0; i < cfg->n_nets; i++)
		if ((vc.tap_fd >= 0 && cfg->nets[i].tap_fd == vc.tap_fd) ||
		    (vc.tap_fd < 0 && strcmp(cfg->nets[i].tap_name, vc.tap_name) == 0))
			return cc_error_set(err, -EEXIST, "tap already used");
	if (cfg->n_nets >= VM_MAX_NETS)
		return cc_error_set(err, -E2BIG, "%s", "at most " STRINGIFY(VM_MAX_NETS) " nets");
	n = &cfg->nets[cfg->n_nets++];
	*n = (struct vm_net_config){.tap_fd = vc.tap_fd, .has_mac = vc.has_mac};
	memcpy(n->tap_name, vc.tap_name, sizeof(n->tap_name));
	memcpy(n->mac, vc.mac, sizeof(n->mac));
	return 0;
}

int vm_config_add_blk(struct vm_config *cfg, const char *spec, struct cc_error *err)
{
	char *path = NULL;
	bool ro;

	assert_return(cfg && spec, -EINVAL);
	if (cfg->n_blks >= VM_MAX_BLKS)
		return cc_error_set(err, -E2BIG, "%s", "at most " STRINGIFY(VM_MAX_BLKS) " disks");
	switch (vblk_spec_parse(spec, &path, &ro)) {
	case 0:
		break;
	case -ENOMEM:
		return cc_error_set(err, -ENOMEM, "out of memory");
	default:
		return cc_error_set(err, -EINVAL, "expected FILE[,ro]");
	}
	for (unsigned i = 0; i < cfg->n_blks; i++)
		if (strcmp(cfg->blks[i].path, path) == 0) {
			free(path);
			return cc_error_set(err, -EEXIST, "image already used");
		}
	cfg->blks[cfg->n_blks++] = (struct vm_blk_config){path, ro};
	return 0;
}
