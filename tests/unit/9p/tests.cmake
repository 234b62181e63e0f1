# SPDX-License-Identifier: Apache-2.0
cc_add_check_test(NAME test-9p-ops LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-9p-ops.c ${CMAKE_CURRENT_LIST_DIR}/p9c.c
  LIBS vmm-internal)
cc_add_check_test(NAME test-9p-hostile LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-9p-hostile.c ${CMAKE_CURRENT_LIST_DIR}/p9c.c
  LIBS vmm-internal)
cc_add_check_test(NAME test-9p-budget LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-9p-budget.c ${CMAKE_CURRENT_LIST_DIR}/p9c.c
  LIBS vmm-internal)
cc_add_check_test(NAME test-9p-hostvol LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-9p-hostvol.c ${CMAKE_CURRENT_LIST_DIR}/p9c.c
  LIBS vmm-internal)
cc_add_check_test(NAME test-9p-broker LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-9p-broker.c
  LIBS vmm-internal)
cc_add_check_test(NAME test-9p-buf LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-9p-buf.c
  LIBS vmm-internal)
cc_add_check_test(NAME test-9p-dev LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-9p-dev.c
  LIBS vmm-internal)
cc_add_fuzzer(NAME fuzz-9p
  SOURCES ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz-9p.c
  LIBS vmm-internal
  CORPUS ${CMAKE_SOURCE_DIR}/tests/fuzz/corpus/fuzz-9p)

# Linux's v9fs client against the server over trans=fd (no VMM); runs in the KVM test host when
# this kernel has no 9p, so it is in the e2e tier (cc_add_e2e_test from tests/e2e/tests.cmake).
add_executable(p9-fd-serve ${CMAKE_CURRENT_LIST_DIR}/p9-fd-serve.c)
set_target_properties(p9-fd-serve PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin/tests)
target_link_libraries(p9-fd-serve PRIVATE vmm-internal)
add_executable(p9-mmap-write ${CMAKE_CURRENT_LIST_DIR}/p9-mmap-write.c)
set_target_properties(p9-mmap-write PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin/tests)
cc_add_e2e_test(v9fs-fd ../unit/9p/v9fs-fd-check ${CMAKE_BINARY_DIR})
cc_add_check_test(NAME test-9p-worker LABEL unit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-9p-worker.c ${CMAKE_CURRENT_LIST_DIR}/p9c.c
  LIBS vmm-internal)
