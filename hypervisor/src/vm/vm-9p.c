/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The VM's 9p worker (9p/9p-worker.h): with the sandbox, every --9p share is served by one
 * worker process that holds the exports and 9p's capabilities, so that the VMM keeps neither.
 * Started first thing in vm_setup(): no guest memory, KVM descriptor or thread exists yet for
 * the fork to copy. The child execs cc-vmm again as
 *
 *   cc-vmm-9p --9p-worker PARENT [-v...] --seccomp kill|log [--chroot DIR]
 *             --9p TAG:DIR[,ro]... [--9p-hostvol SPEC...]
 *
 * (the VMM's own options for them, as it parsed them), and that program serves them
 * (vm_9p_worker_serve()).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/epoll.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "9p/9p-worker.h"
#include "cc/log.h"
#include "vm/vm-internal.h"

/* The exports of cfg's shares; hostvols holds their host volumes. */
static void vm_9p_exports(const struct vm_config *cfg, struct p9_export *exports,
			  struct p9_hostvol *hostvols)
{
	unsigned n_hv = 0;

	for (unsigned i = 0; i < cfg->n_shares; i++) {
		exports[i] = (struct p9_export){
			.dir = cfg->shares[i].dir,
			.read_only = cfg->shares[i].read_only,
			.hostvols = hostvols + n_hv,
		};
		for (unsigned k = 0; k < cfg->n_hostvols; k++) {
			const struct vm_hostvol_config *h = &cfg->hostvols[k];

			if (h->share != i)
				continue;
			if (h->export_root) {
				exports[i].hostvol_root = true;
				continue;
			}
			hostvols[n_hv++] = (struct p9_hostvol){h->dev, h->ino, h->uid, h->gid};
			exports[i].n_hostvols++;
		}
	}
}

#define VM_9P_ARGV_MAX (10 + 2 * VM_MAX_SHARES + 2 * VM_MAX_HOSTVOLS)

struct vm_9p_argv {
	char *v[VM_9P_ARGV_MAX + 1];
	unsigned n;
};

static void vm_9p_argv_done(struct vm_9p_argv *a)
{
	for (unsigned i = 0; i < a->n; i++)
		free(a->v[i]);
}

static int vm_9p_argv_add(struct vm_9p_argv *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int vm_9p_argv_add(struct vm_9p_argv *a, const char *fmt, ...)
{
	va_list ap;
	int r;

	if (a->n >= VM_9P_ARGV_MAX)
		return -E2BIG;
	va_start(ap, fmt);
	r = vasprintf(&a->v[a->n], fmt, ap);
	va_end(ap);
	if (r < 0)
		return -ENOMEM;
	a->n++;
	return 0;
}

/* The worker's command line (see the top of this file). */
static int vm_9p_argv_build(const struct vm_config *cfg, struct vm_9p_argv *a)
{
	int r = vm_9p_argv_add(a, "cc-vmm-9p");

	if (r >= 0)
		r = vm_9p_argv_add(a, "--9p-worker=%d", (int) getpid());
	for (int l = LOG_INFO; r >= 0 && l <= log_get_max_level(); l++)
		r = vm_9p_argv_add(a, "-v");
	if (r >= 0)
		r = vm_9p_argv_add(a, "--seccomp=%s", vm_seccomp_to_string(cfg->seccomp));
	if (r >= 0 && cfg->sandbox_root)
		r = vm_9p_argv_add(a, "--chroot=%s", cfg->sandbox_root);
	for (unsigned i = 0; r >= 0 && i < cfg->n_shares; i++)
		r = vm_9p_argv_add(a, "--9p=%s:%s%s", cfg->shares[i].tag, cfg->shares[i].dir,
				   cfg->shares[i].read_only ? ",ro" : "");
	for (unsigned k = 0; r >= 0 && k < cfg->n_hostvols; k++) {
		const struct vm_hostvol_config *h = &cfg->hostvols[k];

		if (h->export_root)
			r = vm_9p_argv_add(a, "--9p-hostvol=%s", cfg->shares[h->share].tag);
		else
			r = vm_9p_argv_add(
				a, "--9p-hostvol=%s:%" PRIu64 ":%" PRIu64 ":%" PRIu32 ":%" PRIu32,
				cfg->shares[h->share].tag, h->dev, h->ino, h->uid, h->gid);
	}
	return r;
}

/* The event loop saw the worker's end of the socket close. */
static void vm_9p_worker_hup(void *userdata, uint32_t events)
{
	(void) events;
	vm_9p_worker_gone(userdata);
}

void vm_9p_worker_gone(void *userdata)
{
	vm_request_stop(userdata, VMM_EXIT_FAILURE, EPIPE, "the 9p worker is gone: %m");
}

int vm_9p_worker_setup(struct vm *vm, struct cc_error *reterr)
{
	struct vm_9p_argv argv = {0};
	int r;

	if (!vm->cfg.sandbox || vm->cfg.n_shares == 0)
		return 0;
	/* The exec'd worker reads its exports from this command line. */
	r = vm_9p_argv_build(&vm->cfg, &argv);
	if (r >= 0)
		r = p9_worker_spawn(NULL, vm->cfg.n_shares, argv.v, NULL, NULL, &vm->p9_worker);
	vm_9p_argv_done(&argv);
	if (r < 0)
		return cc_error_set_status(reterr, VMM_EXIT_FAILURE, r,
					   "cannot start the 9p worker: %m");
	return 0;
}

int vm_9p_worker_ready(struct vm *vm, struct cc_error *reterr)
{
	int r;

	if (!vm->p9_worker)
		return 0;
	r = p9_worker_wait(vm->p9_worker, vm->p9_results);
	if (r < 0)
		return cc_error_set_status(reterr, VMM_EXIT_FAILURE, r,
					   "cannot start the 9p worker: %m");
	/* Its end, whenever it comes, ends the VM: a pod without its file systems is broken. */
	p9_worker_on_gone(vm->p9_worker, vm_9p_worker_gone, vm);
	r = evloop_add(vm->loop, p9_worker_fd(vm->p9_worker), EPOLLRDHUP, vm_9p_worker_hup, vm);
	if (r < 0)
		return cc_error_set_status(reterr, VMM_EXIT_FAILURE, r,
					   "cannot watch the 9p worker: %m");
	return 0;
}

void vm_9p_worker_free(struct vm *vm)
{
	if (!vm->p9_worker)
		return;
	(void) evloop_remove(vm->loop, p9_worker_fd(vm->p9_worker));
	vm->p9_worker = p9_worker_free(vm->p9_worker);
}

/* A --9p-visible share stays, read-only: a bind of itself over itself, read-only with every
 * mount beneath it. */
static int vm_9p_share_ro(const char *dir)
{
	struct mount_attr attr = {
		.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
			    MOUNT_ATTR_NOEXEC,
	};

	if (mount(dir, dir, NULL, MS_BIND | MS_REC, NULL) < 0 ||
	    syscall(SYS_mount_setattr, AT_FDCWD, dir, AT_RECURSIVE, &attr, sizeof(attr)) < 0)
		return -errno;
	return 0;
}

int vm_9p_hide_exports(struct vm *vm)
{
	unsigned hidden = 0;

	if (!vm->p9_worker)
		return 0;
	if (unshare(CLONE_NEWNS) < 0) {
		/* Only a VMM run by hand without privileges gets here (the jail gives it
		 * CAP_SYS_ADMIN in its namespace for this): it holds nothing to hide behind. */
		if (errno != EPERM)
			return -errno;
		log_debug("9p: cannot hide the exports (no CAP_SYS_ADMIN)");
		return 0;
	}
	/* Nothing of what follows may reach the worker's namespace or the host's. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return -errno;
	for (unsigned i = 0; i < vm->cfg.n_shares; i++) {
		const struct vm_share_config *sh = &vm->cfg.shares[i];
		int r = 0;

		if (sh->visible)
			r = vm_9p_share_ro(sh->dir);
		else if (mount("cc-vmm-no-export", sh->dir, "tmpfs",
			       MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
			       "size=4k,mode=000") < 0)
			r = -errno;
		else
			hidden++;
		/* A share inside one covered already is hidden with it. */
		if (r == -ENOENT && hidden > 0)
			continue;
		if (r < 0)
			return r;
	}
	log_debug("9p: %u of the %u exports are hidden from the VMM, the others read-only", hidden,
		  vm->cfg.n_shares);
	return 0;
}

int vm_9p_worker_serve(const struct vm_config *cfg, pid_t parent)
{
	struct p9_export exports[VM_MAX_SHARES];
	struct p9_hostvol hostvols[VM_MAX_HOSTVOLS];

	if (cfg->n_shares == 0)
		return log_error_errno(EINVAL, "--9p-worker: no --9p share");
	vm_9p_exports(cfg, exports, hostvols);
	p9_worker_main_exec(parent, exports, cfg->n_shares, vm_sandbox_enter_9p, (void *) cfg);
}
