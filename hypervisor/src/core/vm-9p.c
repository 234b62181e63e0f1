/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The VM's 9p worker (9p/9p-worker.h): with the sandbox, every --9p share is served by one
 * worker process that holds the exports and 9p's capabilities, so that the VMM keeps neither.
 * Started first thing in vm_setup(): no guest memory, KVM descriptor or thread exists yet for
 * the fork to copy.
 */
#include <errno.h>

#include "9p/9p-worker.h"
#include "core/vm-internal.h"

int vm_9p_worker_setup(struct vm *vm, struct vm_error *reterr)
{
	struct p9_export exports[VM_MAX_SHARES] = {0};
	struct p9_hostvol hostvols[VM_MAX_HOSTVOLS];
	unsigned n_hv = 0;
	int r;

	if (!vm->cfg.sandbox || vm->cfg.n_shares == 0)
		return 0;
	for (unsigned i = 0; i < vm->cfg.n_shares; i++) {
		exports[i] = (struct p9_export){
			.dir = vm->cfg.shares[i].dir,
			.read_only = vm->cfg.shares[i].read_only,
			.hostvols = hostvols + n_hv,
		};
		for (unsigned k = 0; k < vm->cfg.n_hostvols; k++) {
			const struct vm_hostvol_config *h = &vm->cfg.hostvols[k];

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
	r = p9_worker_start(exports, vm->cfg.n_shares, vm_sandbox_enter_9p, vm, &vm->p9_worker,
			    vm->p9_results);
	if (r < 0)
		return vm_error_set(reterr, VMM_EXIT_FAILURE, r, "cannot start the 9p worker");
	return 0;
}

void vm_9p_worker_free(struct vm *vm)
{
	vm->p9_worker = p9_worker_free(vm->p9_worker);
}
