/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The device table: which virtio devices a VM gets, in which order (= window and GSI order =
 * the order Linux probes them, so /dev/vda is the first --blk and eth0 the first --net).
 * Adding a device = one row here (count + create) plus one CLI option filling struct vm_config.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>

#include "9p/9p-dev.h"
#include "arch/layout.h"
#include "balloon/vballoon.h"
#include "blk/vblk.h"
#include "vm/vm-internal.h"
#include "net/vnet.h"
#include "rng/vrng.h"
#include "console/console.h"
#include "vsock/vsock.h"

_Static_assert(VM_TAP_NAME_MAX == VNET_TAP_NAME_MAX, "tap name sizes differ");
_Static_assert(VM_SHARE_TAG_MAX == V9P_TAG_MAX, "9p tag limits differ");

/* A file or directory the user named that cannot be used: "bad image", unless we ran out. */
static int vm_exit_for_path(int err)
{
	switch (-err) {
	case ENOMEM:
	case EMFILE:
	case ENFILE:
		return VMM_EXIT_FAILURE;
	default:
		return VMM_EXIT_BAD_IMAGE;
	}
}

/* Without a console destination there is no console device (vm.h: output dropped). */
static unsigned vm_console_count(const struct vm_config *cfg)
{
	return cfg->console_out_fd >= 0;
}

static int vm_console_create(const struct vm_device_ctx *ctx, struct vdev **ret,
			     struct cc_error *reterr)
{
	int r = vcon_new(ctx->cfg->console_in_fd, ctx->cfg->console_out_fd, ret);

	if (r < 0)
		return cc_error_set_status(reterr, VMM_EXIT_FAILURE, r,
					   "cannot create the console: %m");
	return 0;
}

static unsigned vm_share_count(const struct vm_config *cfg)
{
	return cfg->n_shares;
}

/* The message of a share that cannot be served: h NULL for the directory itself, else the
 * --9p-hostvol that could not be applied. */
static int vm_share_error(const struct vm_device_ctx *ctx, int err,
			  const struct vm_hostvol_config *h, struct cc_error *reterr)
{
	const struct vm_share_config *s = &ctx->cfg->shares[ctx->index];

	if (!h)
		return cc_error_set_status(reterr, vm_exit_for_path(err), err,
					   "9p share '%s': cannot export directory '%s': %m",
					   s->tag, s->dir);
	if (h->export_root)
		return cc_error_set_status(
			reterr, VMM_EXIT_FAILURE, err,
			"9p share '%s': cannot apply --9p-hostvol to the whole share: %m", s->tag);
	return cc_error_set_status(reterr, VMM_EXIT_FAILURE, err,
				   "9p share '%s': cannot apply --9p-hostvol %" PRIu64 ":%" PRIu64
				   ": %m",
				   s->tag, h->dev, h->ino);
}

/* The --9p-hostvol of this share that a worker's result names (p9_export_result.hostvol), NULL
 * for the directory itself. */
static const struct vm_hostvol_config *vm_share_hostvol(const struct vm_device_ctx *ctx, int which)
{
	for (unsigned i = 0, k = 0; which != P9_EXPORT_HOSTVOL_DIR && i < ctx->cfg->n_hostvols;
	     i++) {
		const struct vm_hostvol_config *h = &ctx->cfg->hostvols[i];

		if (h->share != ctx->index)
			continue;
		if (h->export_root ? which == P9_EXPORT_HOSTVOL_ROOT : k++ == (unsigned) which)
			return h;
	}
	return NULL;
}

/* Without the sandbox: a server in the VMM itself. */
static int vm_share_create_local(const struct vm_device_ctx *ctx, struct vdev **ret,
				 struct cc_error *reterr)
{
	const struct vm_share_config *s = &ctx->cfg->shares[ctx->index];
	int r = v9p_new(s->tag, s->dir, s->read_only, ctx->loop, ret);

	if (r < 0)
		return vm_share_error(ctx, r, NULL, reterr);
	for (unsigned i = 0; i < ctx->cfg->n_hostvols; i++) {
		const struct vm_hostvol_config *h = &ctx->cfg->hostvols[i];

		if (h->share != ctx->index)
			continue;
		r = h->export_root ? v9p_add_hostvol_root(*ret)
				   : v9p_add_hostvol(*ret, &(struct p9_hostvol){h->dev, h->ino,
										h->uid, h->gid});
		if (r < 0) {
			(*ret)->ops->free(*ret);
			*ret = NULL;
			return vm_share_error(ctx, r, h, reterr);
		}
	}
	return 0;
}

static int vm_share_create(const struct vm_device_ctx *ctx, struct vdev **ret,
			   struct cc_error *reterr)
{
	const struct vm_share_config *s = &ctx->cfg->shares[ctx->index];
	const struct p9_export_result *res = &ctx->vm->p9_results[ctx->index];
	int r;

	if (!ctx->vm->p9_worker)
		return vm_share_create_local(ctx, ret, reterr);
	if (res->error < 0)
		return vm_share_error(ctx, res->error, vm_share_hostvol(ctx, res->hostvol), reterr);
	r = v9p_new_remote(s->tag, ctx->vm->p9_worker, ctx->index, ctx->loop, ret);
	if (r < 0)
		return cc_error_set_status(reterr, VMM_EXIT_FAILURE, r,
					   "9p share '%s': cannot create the device: %m", s->tag);
	return 0;
}

static unsigned vm_vsock_count(const struct vm_config *cfg)
{
	return cfg->vsock_cid != 0;
}

static int vm_vsock_create(const struct vm_device_ctx *ctx, struct vdev **ret,
			   struct cc_error *reterr)
{
	const struct vm_config *cfg = ctx->cfg;
	int r = vvsock_new(cfg->vsock_cid, cfg->vsock_path, ctx->loop, ret);

	if (r < 0)
		return cc_error_set_status(reterr, VMM_EXIT_FAILURE, r,
					   "vsock: cannot listen on '%s': %m", cfg->vsock_path);
	return 0;
}

static unsigned vm_net_count(const struct vm_config *cfg)
{
	return cfg->n_nets;
}

static int vm_net_create(const struct vm_device_ctx *ctx, struct vdev **ret,
			 struct cc_error *reterr)
{
	const struct vm_net_config *n = &ctx->cfg->nets[ctx->index];
	struct vnet_config vc = {.tap_fd = -1, .has_mac = n->has_mac};
	int r;

	memcpy(vc.mac, n->mac, sizeof(vc.mac));
	if (n->tap_fd >= 0) {
		/* The device owns what it gets; the caller's fd stays the caller's. */
		vc.tap_fd = fcntl(n->tap_fd, F_DUPFD_CLOEXEC, 3);
		if (vc.tap_fd < 0)
			return cc_error_set_status(reterr, VMM_EXIT_FAILURE, errno,
						   "net: tap fd %d: %m", n->tap_fd);
		r = vnet_new(&vc, ret);
		if (r < 0)
			return cc_error_set_status(reterr, VMM_EXIT_FAILURE, r,
						   "net: fd %d is not a usable tap: %m", n->tap_fd);
		return 0;
	}
	memcpy(vc.tap_name, n->tap_name, sizeof(vc.tap_name));
	r = vnet_new(&vc, ret);
	if (r < 0)
		return cc_error_set_status(reterr, VMM_EXIT_FAILURE, r,
					   "net: cannot attach to tap '%s': %m", n->tap_name);
	return 0;
}

static unsigned vm_blk_count(const struct vm_config *cfg)
{
	return cfg->n_blks;
}

static int vm_blk_create(const struct vm_device_ctx *ctx, struct vdev **ret,
			 struct cc_error *reterr)
{
	const struct vm_blk_config *b = &ctx->cfg->blks[ctx->index];
	int r = vblk_new(b->path, b->read_only, ret);

	if (r < 0)
		return cc_error_set_status(reterr, vm_exit_for_path(r), r,
					   "cannot open block image '%s': %m", b->path);
	return 0;
}

static unsigned vm_rng_count(const struct vm_config *cfg)
{
	return cfg->rng;
}

static int vm_rng_create(const struct vm_device_ctx *ctx, struct vdev **ret,
			 struct cc_error *reterr)
{
	int r;

	(void) ctx;
	r = vrng_new(ret);
	if (r < 0)
		return cc_error_set_status(reterr, VMM_EXIT_FAILURE, r,
					   "cannot create the rng device: %m");
	return 0;
}

static unsigned vm_balloon_count(const struct vm_config *cfg)
{
	return cfg->balloon;
}

/*
 * Guest RAM the balloon may discard (vm_ram_map(vm, false, ...)): all of it, the kernel's segments
 * included. The kernel frees parts of its own image after boot (init code and data, the 2 MiB
 * text/rodata gap, poisoned as they are freed); where those pages are mapped from the vmlinux file,
 * a discard drops the VM's private copy and the page reads as the file again, which is fine for
 * memory the guest freed. That is also why the device never offers VIRTIO_BALLOON_F_PAGE_POISON: it
 * would promise that discarded pages keep the guest's poison (or zeros).
 */
static int vm_balloon_create(const struct vm_device_ctx *ctx, struct vdev **ret,
			     struct cc_error *reterr)
{
	struct balloon_map map;
	struct vballoon_config bc = {.map = &map, .reporting = true};
	int r;

	r = vm_ram_map(ctx->vm, false, &map);
	if (r >= 0)
		r = vballoon_new(&bc, ret);
	if (r < 0)
		return cc_error_set_status(reterr, VMM_EXIT_FAILURE, r,
					   "cannot create the balloon device: %m");
	return 0;
}

const struct vm_device_desc vm_device_table[] = {
	{"console", vm_console_count, vm_console_create},
	{"9p", vm_share_count, vm_share_create},
	{"vsock", vm_vsock_count, vm_vsock_create},
	{"net", vm_net_count, vm_net_create},
	{"blk", vm_blk_count, vm_blk_create},
	{"rng", vm_rng_count, vm_rng_create},
	{"balloon", vm_balloon_count, vm_balloon_create},
	{NULL, NULL, NULL},
};
