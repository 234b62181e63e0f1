# SPDX-License-Identifier: Apache-2.0
# unit tier: the VMM's sandbox (hypervisor/src/sandbox) without KVM: seccomp tables and the
# filters they build (loaded in forked children), capabilities, inherited fds.
cc_add_check_test(NAME test-sandbox LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-sandbox.c
  LIBS vmm-internal)
