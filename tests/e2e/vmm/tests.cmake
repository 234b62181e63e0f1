# SPDX-License-Identifier: Apache-2.0
# e2e, VMM core: cc-vmm boots the project's guest kernel and image (root on DAX pmem) in the
# KVM test host: app-started with `dax`, 2 vCPUs, shared kernel text in smaps, bad inputs.
# Two guest (L2) boots in one test-host boot. (Included after tests/e2e/tests.cmake, which
# defines cc_add_e2e_test.)
cc_add_e2e_test(vmm-linux-boot vmm/linux-boot)
