# SPDX-License-Identifier: Apache-2.0
# kvm tier, virtio-balloon: cc-vmm --balloon (sandboxed, seccomp kill) with the balloon-check
# guest, whose minimal driver reports and inflates pages and reads them back.
# (Uses cc_add_test_guest from tests/guests and vmmrun from tests/kvm.)
cc_add_test_guest(NAME balloon-check SOURCES balloon-check.c)

cc_add_check_test(NAME test-vmm-balloon LABEL kvm
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-vmm-balloon.c
  LIBS vmmrun)
add_dependencies(test-vmm-balloon cc-vmm guest-balloon-check)
