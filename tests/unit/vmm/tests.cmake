# SPDX-License-Identifier: Apache-2.0
# unit tier: the VMM core's builders and devices, without KVM.
cc_add_check_test(NAME test-vmm-loader LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-loader.c
  LIBS vmm-internal)
cc_add_check_test(NAME test-vmm-build-id LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-build-id.c
  LIBS vmm-internal)
cc_add_check_test(NAME test-vmm-boot LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-boot.c
  LIBS vmm-internal)
cc_add_check_test(NAME test-vmm-legacy LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-legacy.c
  LIBS vmm-internal)

cc_add_fuzzer(NAME fuzz-kernel
  SOURCES ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz-kernel.c
  LIBS vmm-internal
  CORPUS ${CMAKE_SOURCE_DIR}/tests/fuzz/corpus/fuzz-kernel)
cc_add_check_test(NAME test-vmm-config LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-config.c
  LIBS vmm-internal)
cc_add_check_test(NAME test-vmm-altinstr LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-altinstr.c
  LIBS vmm-internal)
