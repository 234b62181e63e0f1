/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The VMM as a library. A caller fills a struct vm_config, creates the VM with vm_new()
 * (opens /dev/kvm, maps memory and the kernel, builds the boot data and the devices), runs it
 * with vm_run() until the guest resets or a signal stops it, and frees it with vm_free().
 *
 * Errors come back as a negative errno plus a struct vm_error with the exit status to use
 * (enum vmm_exit) and a one-line message; the library itself prints nothing.
 */

#include <stdbool.h>
#include <stdint.h>

#include "vmm/exit.h"

#define VM_MAX_CPUS    14 /* APIC IDs 0-13; the IOAPIC has ID 15 (arch/mptable.h) */
#define VM_MIN_MEM_MIB 16
#define VM_MAX_MEM_MIB (256u * 1024)
#define VM_CMDLINE_MAX 4096

enum vm_hugepages {
	VM_HUGEPAGES_OFF,  /* MADV_NOHUGEPAGE: smallest footprint, best for KSM (default) */
	VM_HUGEPAGES_ON,   /* MADV_HUGEPAGE: fewer TLB misses, more resident memory */
	VM_HUGEPAGES_AUTO, /* leave the host's transparent huge page policy alone */
	_VM_HUGEPAGES_MAX,
	_VM_HUGEPAGES_INVALID = -22,
};

struct vm_config {
	const char *kernel_path; /* vmlinux (ELF) or bzImage */
	const char *cmdline;	 /* may be NULL; device declarations are appended */
	uint64_t mem_mib;
	unsigned n_cpus;
	const char *pmem_path; /* NULL: no pmem */
	bool pmem_rw;	       /* the pmem memslot is writable (writes stay private) */
	bool ksm;	       /* MADV_MERGEABLE on guest RAM */
	enum vm_hugepages hugepages;
	int console_in_fd;    /* -1: no console input */
	int console_out_fd;   /* -1: console output dropped */
	int boot_markers_fd;  /* -1: markers not written; else JSON lines */
	const char *kvm_path; /* NULL: /dev/kvm */
	uint64_t start_ns;    /* CLOCK_MONOTONIC at VMM start (0: vm_new's) */
};

struct vm_error {
	int status; /* enum vmm_exit */
	char msg[256];
};

struct vm;

void vm_config_init(struct vm_config *cfg);

int vm_new(const struct vm_config *cfg, struct vm **ret, struct vm_error *reterr);
/*
 * Runs the guest until it resets (returns 0, status VMM_EXIT_OK), a signal in 'stop_signals'
 * (SIGTERM, SIGINT) arrives (returns 0, status 128+sig), or an error (negative errno with
 * reterr filled). The caller must have blocked SIGTERM and SIGINT in every thread.
 */
int vm_run(struct vm *vm, struct vm_error *reterr);
struct vm *vm_free(struct vm *vm);

const char *vm_hugepages_to_string(enum vm_hugepages h);
enum vm_hugepages vm_hugepages_from_string(const char *s);
