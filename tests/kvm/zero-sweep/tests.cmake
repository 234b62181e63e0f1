# SPDX-License-Identifier: Apache-2.0
# kvm tier, the zero sweep: cc-vmm --zero-sweep (sandboxed, seccomp kill: mincore() and the
# discards must be allowed) with the zero-check guest, which races the sweeps on two vCPUs' VM.
cc_add_test_guest(NAME zero-check SOURCES zero-check.c)

cc_add_check_test(NAME test-vmm-zero-sweep LABEL kvm
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-vmm-zero-sweep.c
  LIBS vmmrun)
add_dependencies(test-vmm-zero-sweep cc-vmm guest-zero-check)
