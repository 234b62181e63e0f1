# SPDX-License-Identifier: Apache-2.0
# kvm tier: cc-vmm on the host's /dev/kvm with the test guests of tests/guests.
add_library(vmmrun STATIC ${CMAKE_CURRENT_LIST_DIR}/vmm-run.c)
target_include_directories(vmmrun PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(vmmrun PUBLIC cctest)

set(_vmm_guests guest-boot-check guest-io-check guest-triple-fault guest-idle guest-hello
  guest-smp
  guest-crash guest-pmem-check)

cc_add_check_test(NAME test-vmm-guests LABEL kvm
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-vmm-guests.c
  LIBS vmmrun vmm)
add_dependencies(test-vmm-guests cc-vmm ${_vmm_guests})

cc_add_check_test(NAME test-vmm-lifecycle LABEL kvm
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-vmm-lifecycle.c
  LIBS vmmrun vmm)
add_dependencies(test-vmm-lifecycle cc-vmm ${_vmm_guests})
