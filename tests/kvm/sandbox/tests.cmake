# SPDX-License-Identifier: Apache-2.0
# kvm tier: cc-vmm's sandbox on a running VM (every thread's status, the open fds, SIGSYS for
# a syscall outside a thread kind's list, --seccomp log, --no-sandbox). Uses vmmrun from
# tests/kvm and the idle guest of tests/guests.
cc_add_check_test(NAME test-vmm-sandbox LABEL kvm
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-vmm-sandbox.c
  LIBS vmmrun vmm)
add_dependencies(test-vmm-sandbox cc-vmm guest-idle)
