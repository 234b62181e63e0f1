# SPDX-License-Identifier: Apache-2.0
# Pod networking (lib ccnet, stage1/net). Pure: selection, CNI results, plugin execution with
# fake plugins, port lists. Root + namespaces (skipped with 77 otherwise): the real ptp/bridge
# round trip.
foreach(_t net-select cni-result cni-exec guest-config portfwd)
  cc_add_check_test(NAME test-${_t} LABEL unit
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-${_t}.c
    LIBS ccnet)
endforeach()
cc_add_check_test(NAME test-net-pod LABEL unit TIMEOUT 180
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-net-pod.c ${CMAKE_CURRENT_LIST_DIR}/net-env.c
          ${CMAKE_CURRENT_LIST_DIR}/guest-sim.c
  LIBS ccnet ccsupervisor Threads::Threads)
cc_add_fuzzer(NAME fuzz-cni-result
  SOURCES ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz-cni-result.c
  LIBS ccnet
  CORPUS ${CMAKE_SOURCE_DIR}/tests/fuzz/corpus/cni-result)
