/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Exit statuses of cc-vmm (of vm_run() through struct vm_exit, and of errors as the status
 * of struct cc_error). Every non-zero status
 * comes with one line on stderr that says what went wrong. docs/vmm.md lists them too.
 */

enum vmm_exit {
	VMM_EXIT_OK = 0,	   /* the guest reset (i8042 or triple fault) or powered off */
	VMM_EXIT_FAILURE = 1,	   /* host-side error: out of memory, a file, a thread */
	VMM_EXIT_USAGE = 2,	   /* bad command-line arguments */
	VMM_EXIT_NO_KVM = 3,	   /* /dev/kvm is missing or cannot be opened */
	VMM_EXIT_KVM_BUSY = 4,	   /* /dev/kvm refused a new VM for now (EBUSY/EAGAIN) */
	VMM_EXIT_KVM_ERROR = 5,	   /* a KVM ioctl failed, or KVM is too old */
	VMM_EXIT_GUEST_CRASH = 6,  /* internal error, failed entry, or unhandled emulation */
	VMM_EXIT_BAD_KERNEL = 7,   /* the kernel file is not a kernel we can boot */
	VMM_EXIT_BAD_IMAGE = 8,	   /* a --pmem/--blk image or --9p directory is unusable */
	VMM_EXIT_SIGNAL_BASE = 128 /* stopped by SIGTERM/SIGINT: 128 + signal number */
};
