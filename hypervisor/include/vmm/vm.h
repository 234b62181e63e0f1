/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * The VMM as a library. A caller fills a struct vm_config, creates the VM with vm_new()
 * (opens /dev/kvm, maps memory and the kernel, builds the boot data and the devices), runs it
 * with vm_run() until the guest resets or a signal stops it, and frees it with vm_free().
 *
 * Errors come back as a negative errno plus a struct cc_error (cc/error.h) whose status is
 * the exit status to use (enum vmm_exit); the library itself prints nothing.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cc/error.h"
#include "cc/vm-limits.h"
#include "vmm/exit.h"

#define VM_MIN_MEM_MIB	       16
#define VM_MAX_MEM_MIB	       (256u * 1024)
#define VM_CMDLINE_MAX	       4096
#define VM_ZERO_SWEEP_FIRST_MS 2000u
#define VM_ZERO_SWEEP_MAX_MS   (600u * 1000)
/* Pages --merge-pages maps onto patterns at most: each is a mapping of its own, so this keeps
 * the VMM's mapping count (about twice this) far below vm.max_map_count's default 65530. */
#define VM_MERGE_MAX_PAGES 8192u

/* Virtio devices a config can ask for (each also needs a window: at most 16 in all). */
#define VM_MAX_SHARES	  8   /* --9p */
#define VM_MAX_HOSTVOLS	  256 /* --9p-hostvol, over all shares */
#define VM_MAX_NETS	  4   /* --net */
#define VM_MAX_BLKS	  8   /* --blk */
#define VM_SHARE_TAG_MAX  255 /* 9p mount tag, bytes */
#define VM_TAP_NAME_MAX	  16  /* IFNAMSIZ, NUL included */
#define VM_VSOCK_PATH_MAX 96  /* "<path>_<port>" must fit in sun_path */
#define VM_VSOCK_CID_MIN  3   /* 0-2 are reserved */
#define VM_VSOCK_CID_MAX  0xfffffffeu

enum vm_hugepages {
	VM_HUGEPAGES_OFF,  /* MADV_NOHUGEPAGE: smallest footprint, best for KSM (default) */
	VM_HUGEPAGES_ON,   /* MADV_HUGEPAGE: fewer TLB misses, more resident memory */
	VM_HUGEPAGES_AUTO, /* leave the host's transparent huge page policy alone */
	_VM_HUGEPAGES_MAX,
	_VM_HUGEPAGES_INVALID = -22,
};

/* What a syscall outside the sandbox's seccomp lists does (docs/vmm.md "Sandbox"). */
enum vm_seccomp {
	VM_SECCOMP_KILL, /* kill the VMM with SIGSYS (default) */
	VM_SECCOMP_LOG,	 /* allow it, the kernel logs it (debug; default in sanitizer builds) */
	_VM_SECCOMP_MAX,
	_VM_SECCOMP_INVALID = -22,
};

/* --9p TAG:DIR[,ro]: a host directory exported to the guest under a mount tag. */
struct vm_share_config {
	char *tag;
	char *dir;
	bool read_only;
	/* --9p-visible: stays in the VMM's own root (read-only), where the others are covered */
	bool visible;
};

/*
 * --9p-hostvol TAG:DEV:INO:UID:GID: in share TAG, the directory (or file) with host identity
 * DEV:INO and everything beneath it follows the host-volume policy (docs/9p.md, "Host
 * volumes"); UID:GID own what the guest's root makes there (the volume root's owner).
 * --9p-hostvol TAG: the whole share, its root's owner as found when the VM starts.
 */
struct vm_hostvol_config {
	unsigned share;	  /* index in shares[] */
	bool export_root; /* the share's root: dev, ino, uid and gid unused */
	uint64_t dev, ino;
	uint32_t uid, gid;
};

/* --net tap=NAME|fd=N[,mac=..]: a virtio-net device on a tap. */
struct vm_net_config {
	int tap_fd; /* an open tap, or -1; stays the caller's (the VM dups it) */
	char tap_name[VM_TAP_NAME_MAX]; /* else: the tap to attach to (created if missing) */
	uint8_t mac[6];
	bool has_mac; /* false: a random locally administered MAC */
};

/* --blk FILE[,ro]: a virtio-blk device on a raw image. */
struct vm_blk_config {
	char *path;
	bool read_only;
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
	int console_out_fd;   /* -1: output dropped, and no virtio-console device */
	int boot_markers_fd;  /* -1: markers not written; else JSON lines */
	const char *kvm_path; /* NULL: /dev/kvm */
	/* An open KVM device instead of kvm_path, or -1; stays the caller's (the VM dups it). */
	int kvm_fd;
	uint64_t start_ns; /* CLOCK_MONOTONIC at VMM start (0: vm_new's) */

	/* Virtio devices besides the console, filled by vm_config_add_*() (strings owned). */
	struct vm_share_config shares[VM_MAX_SHARES];
	unsigned n_shares;
	struct vm_hostvol_config hostvols[VM_MAX_HOSTVOLS];
	unsigned n_hostvols;
	struct vm_net_config nets[VM_MAX_NETS];
	unsigned n_nets;
	struct vm_blk_config blks[VM_MAX_BLKS];
	unsigned n_blks;
	uint64_t vsock_cid; /* 0: no vsock device */
	char *vsock_path;   /* its unix socket; must not exist, removed when the VM is freed */
	bool rng;	    /* virtio-rng fed by getrandom() */
	bool balloon;	    /* virtio-balloon with free page reporting */
	/*
	 * Give back the guest RAM pages the guest has left all zero (zero-sweep.c): false off;
	 * else every zero_sweep_ms, or with 0 at 2 s after the start and then at intervals that
	 * double up to VM_ZERO_SWEEP_MAX_MS. Needs hugepages off (it would split them).
	 */
	bool zero_sweep;
	unsigned zero_sweep_ms;
	/* In the zero sweep, also map the guest RAM pages whose bytes repeat many times onto one
	 * copy (density/same-pages.h). Needs zero_sweep. */
	bool merge_pages;
	/*
	 * The directory of the host-wide files through which VMs of one kernel share the pages
	 * of its image that each writes alike at boot (vm/kernel-share.c), or NULL: off. The
	 * VMM opens the file there and starts the filler that writes it itself. Or, with
	 * kernel_pages_dir NULL: that file open read-only and a SOCK_SEQPACKET channel to its
	 * filler, both taken over by vm_new() (the stage1 opens the file and starts the filler),
	 * or -1.
	 */
	const char *kernel_pages_dir;
	int kernel_pages_ro_fd;
	int kernel_pages_chan_fd;

	/*
	 * The sandbox vm_run() enters before the first KVM_RUN: inherited fds closed (but 0-2 and
	 * sandbox_keep_fd), no_new_privs, capabilities dropped, a seccomp filter per thread.
	 * Off by default: it changes the whole calling process, once (the filters forbid doing
	 * it again); cc-vmm turns it on.
	 */
	bool sandbox;
	enum vm_seccomp seccomp;
	int sandbox_keep_fd; /* an inherited fd to keep open (rkt's pod lock), or -1 */
	/*
	 * With the sandbox: the VMM's root once set up (chroot), or NULL. The stage1 passes the
	 * pod's stage1 rootfs, as systemd-machined expects of a registered container's leader.
	 */
	const char *sandbox_root;
};

/* How the guest ended, when vm_run() returns 0. */
struct vm_exit {
	int status; /* VMM_EXIT_OK (it reset or powered off) or 128 + the signal */
	char reason[CC_ERROR_MSG_MAX]; /* one line: "guest reset (i8042)", "stopped by signal 15" */
};

struct vm;

void vm_config_init(struct vm_config *cfg);
/* Frees the strings vm_config_add_*() allocated (fds given with --net fd= are not closed). */
void vm_config_done(struct vm_config *cfg);

/*
 * The device options in their command-line form, parsed strictly into cfg. Each returns 0, or
 * a negative errno (cfg unchanged) with *err (if not NULL) saying why, in one line:
 *   vm_config_add_share  "TAG:DIR[,ro]"  tag 1-255 bytes without ':', unique; DIR non-empty
 *   vm_config_add_hostvol "TAG:DEV:INO:UID:GID" or "TAG"  TAG a share given before; decimal
 *                        numbers, UID and GID below 2^32-1; each DEV:INO (or TAG alone) once
 *                        per share
 *   vm_config_set_share_visible "TAG"  TAG a share given before
 *   vm_config_set_vsock  "CID:UDS_PATH"  CID 3-4294967294 (decimal); once
 *   vm_config_add_net    "tap=NAME|fd=N[,mac=XX:XX:XX:XX:XX:XX]"  N >= 3, unicast MAC,
 *                        each tap once
 *   vm_config_add_blk    "FILE[,ro]"
 * Files and directories are only looked at by vm_new().
 */
int vm_config_add_share(struct vm_config *cfg, const char *spec, struct cc_error *err);
int vm_config_add_hostvol(struct vm_config *cfg, const char *spec, struct cc_error *err);
int vm_config_set_share_visible(struct vm_config *cfg, const char *tag, struct cc_error *err);
/* The index of the share whose tag is tag[0..len), or -ENOENT. */
int vm_config_find_share(const struct vm_config *cfg, const char *tag, size_t len);
/*
 * `cc-vmm --9p-worker=PARENT ...`: the 9p worker the sandboxed VMM PARENT execs (docs/9p.md,
 * "The worker"): serves cfg's shares (--9p, --9p-hostvol) under its own sandbox (--seccomp,
 * --chroot) on the socket and areas the VMM left it. Returns only on a usage error.
 */
int vm_9p_worker_serve(const struct vm_config *cfg, pid_t parent);
int vm_config_set_vsock(struct vm_config *cfg, const char *spec, struct cc_error *err);
int vm_config_add_net(struct vm_config *cfg, const char *spec, struct cc_error *err);
int vm_config_add_blk(struct vm_config *cfg, const char *spec, struct cc_error *err);

int vm_new(const struct vm_config *cfg, struct vm **ret, struct cc_error *reterr);
/*
 * Runs the guest until it resets (returns 0, *ret_exit status VMM_EXIT_OK), a signal in
 * 'stop_signals' (SIGTERM, SIGINT) arrives (returns 0, status 128+sig), or an error (negative
 * errno with reterr filled, its status the exit status to use). The caller must have blocked
 * SIGTERM and SIGINT in every thread.
 */
int vm_run(struct vm *vm, struct vm_exit *ret_exit, struct cc_error *reterr);
struct vm *vm_free(struct vm *vm);

const char *vm_hugepages_to_string(enum vm_hugepages h);
enum vm_hugepages vm_hugepages_from_string(const char *s);
const char *vm_seccomp_to_string(enum vm_seccomp s);
enum vm_seccomp vm_seccomp_from_string(const char *s);
