# SPDX-License-Identifier: Apache-2.0
# e2e, VMM core: cc-vmm boots the project's guest kernel and image (root on DAX pmem) in the
# KVM test host: app-started with `dax`, 2 vCPUs, shared kernel text in smaps, bad inputs.
# Two guest (L2) boots in one test-host boot. (Included after tests/e2e/tests.cmake, which
# defines cc_add_e2e_test.)
cc_add_e2e_test(vmm-linux-boot vmm/linux-boot)
# The same boot on a test host whose CPU has no SMAP: cc-vmm undoes the kernel file's
# pre-written clac/stac (docs/guest-image.md, "Pre-written alternatives").
cc_add_e2e_test(vmm-linux-boot-no-smap vmm/linux-boot --no-smap)
# e2e, devices: one guest boot with 9p (rw and ro), vsock, net (tap), blk and rng, checked
# with Linux's own drivers from the guest's output and on the test host's side.
cc_add_e2e_test(vmm-devices vmm/devices)
# e2e, balloon: with --balloon, memory the guest frees goes back to the host (cc-vmm's RSS),
# not without; idle footprint with THP on and off on guest RAM. Three guest boots.
cc_add_e2e_test(vmm-balloon vmm/balloon)
