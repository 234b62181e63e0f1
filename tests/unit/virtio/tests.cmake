# SPDX-License-Identifier: Apache-2.0
# Virtio: virtqueues, the virtio-mmio transport and the console, on fake guest memory.
foreach(_t virtq mmio console)
  cc_add_check_test(NAME test-virtio-${_t} LABEL unit
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test-${_t}.c ${CMAKE_CURRENT_LIST_DIR}/vtest.c
    LIBS vmm-internal)
endforeach()

cc_add_fuzzer(NAME fuzz-virtq
  SOURCES ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz-virtq.c
  LIBS vmm-internal
  CORPUS ${CMAKE_SOURCE_DIR}/tests/fuzz/corpus/fuzz-virtq)

cc_add_fuzzer(NAME fuzz-virtio-mmio
  SOURCES ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz-virtio-mmio.c
  LIBS vmm-internal
  CORPUS ${CMAKE_SOURCE_DIR}/tests/fuzz/corpus/fuzz-virtio-mmio)
